"""Ratings per game, their changes match by match, and the seasons' standings.

A rating belongs to a person and a game, within the person's circle (games/circles.py): a
partner platform's players are rated among themselves, on leaderboards of their own."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import GameChoice, Match
from ratings.model import CENTRE, MODEL, PROVISIONAL_MATCHES, SCALE, Skill


class Rating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    # The person's circle (a platform's account), whose leaderboards they are on; null: everyone's.
    circle = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    mu = models.FloatField(default=MODEL.mu)
    sigma = models.FloatField(default=MODEL.sigma)
    # As shown (ratings/model.py), kept for the leaderboards' index.
    rating = models.IntegerField(default=CENTRE)
    deviation = models.IntegerField(default=round(SCALE * MODEL.sigma))
    matches = models.PositiveIntegerField(default=0, help_text="Rated matches played.")
    wins = models.PositiveIntegerField(default=0, help_text="Rated matches finished first.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "game"], name="rating_once_per_game"),
        )
        indexes = (
            # A leaderboard's page and a player's place: one index range, in the board's order.
            models.Index(
                fields=["game", "circle", "-rating", "user"], name="rating_board",
            ),
            # The all-time board: established players only, so that a place is a count of
            # index entries alone, without reading each row ahead for its matches (SQLite
            # checks the condition again: the index holds `matches` for it).
            models.Index(
                fields=["game", "circle", "-rating", "user", "matches"],
                name="rating_board_established",
                condition=models.Q(matches__gte=PROVISIONAL_MATCHES),
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.rating}"

    @property
    def skill(self) -> Skill:
        return Skill(self.mu, self.sigma)


class RatingChange(models.Model):
    """What one rated match did to one person's rating: written once, in the transaction that
    finished the match."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(help_text="As rated: a leaver's is last.")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    rating_before = models.IntegerField()
    rating_after = models.IntegerField()
    deviation_after = models.IntegerField()
    # When the match finished (a recount writes it again as it was).
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["match", "user"], name="rating_change_once"),
        )
        indexes = (models.Index(fields=["user", "game", "created_at"], name="rating_history"),)

    def __str__(self) -> str:
        return f"{self.user} {self.rating_before} → {self.rating_after}"

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before


class Period(models.TextChoices):
    WEEK = "week", "Week"
    MONTH = "month", "Month"


class SeasonStanding(models.Model):
    """A person's season (a week from Monday, a month; UTC): the rating points won in it.
    A new season starts every period with nobody on its board."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="season_standings"
    )
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    circle = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    period = models.CharField(max_length=8, choices=Period.choices)
    starts = models.DateField(help_text="The season's first day (UTC).")
    points = models.IntegerField(default=0, help_text="Rating points won in the season.")
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["user", "game", "period", "starts"], name="season_standing_once"
            ),
        )
        indexes = (
            models.Index(
                fields=["game", "circle", "period", "starts", "-points", "user"],
                name="season_board",
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.period} {self.starts}: {self.points}"
