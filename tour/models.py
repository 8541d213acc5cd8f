"""A player's way through the tour: the matches started at its tables and, per table, what came
of them. Tables themselves are content (`tour.content`), referred to by slug."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Match


class TourMatch(models.Model):
    """A match started at a table of the tour. Its result counts towards the player's progress
    once, when it is first read after the match has finished (``recorded``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tour_matches"
    )
    table = models.CharField(max_length=32)
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="tour_match")
    recorded = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "tour matches"
        ordering = ("-created_at",)
        indexes = (models.Index(fields=["user", "recorded"], name="tour_match_pending"),)

    def __str__(self) -> str:
        return f"{self.table} match {self.match_id}"


class TableProgress(models.Model):
    """A player's results at one table; the row appears with the first finished match there,
    and a table is open once the one before it has been won."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tour_progress"
    )
    table = models.CharField(max_length=32)
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0, help_text="Matches finished in first place.")
    best_place = models.PositiveSmallIntegerField()
    best_total = models.IntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("user", "table")
        verbose_name_plural = "table progress"
        constraints = (
            models.UniqueConstraint(fields=["user", "table"], name="tour_progress_unique_table"),
        )

    def __str__(self) -> str:
        return f"{self.table} progress of user {self.user_id}"
