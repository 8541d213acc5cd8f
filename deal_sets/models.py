"""The same deal for everyone: a deal set is one deal's cards that any number of people play,
each at their own table against the same computer players, and whose results are compared (as
duplicate bridge compares a board's)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import BotLevel, GameChoice, Match


class DealSetKind(models.TextChoices):
    DAILY = "daily", _("The deal of the day")
    IMPORTED = "imported", _("An imported deal")


class DealSet(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=8, choices=DealSetKind.choices)
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    rules = models.JSONField(help_text="The full table rules (engine `TableRules.to_dict`).")
    # The deal of the day's day (UTC); none for an imported set.
    day = models.DateField(null=True, blank=True)
    dealer = models.PositiveSmallIntegerField()
    # Secret until the set closes: the deck order the hands are dealt from, and the salt of
    # its commitment (shown from the start).
    deck = models.JSONField(help_text="Deck order, card strings; revealed when the set closes.")
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the deck order and salt.")
    # Where the people sit, and who plays the other seats.
    seat = models.PositiveSmallIntegerField(default=0)
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices,
                                 default=BotLevel.HARD)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="+", help_text="Who imported it (knows its cards, so never plays it).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closes_at = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["game", "day"], condition=models.Q(kind="daily"),
                                    name="deal_set_one_daily_per_game"),
        )

    def __str__(self) -> str:
        return f"{self.kind} {self.game} {self.day or self.pk}"


class DealSetEntry(models.Model):
    """One person's play of a set: their match, and once it is over, their seat's result."""

    deal_set = models.ForeignKey(DealSet, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                             related_name="+")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="deal_set_entry")
    # The player's circle (games/circles.py): results are compared within one.
    circle = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                               on_delete=models.PROTECT, related_name="+")
    points = models.IntegerField(null=True, blank=True)
    tricks = models.PositiveSmallIntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "deal set entries"
        constraints = (
            models.UniqueConstraint(fields=["deal_set", "user"], name="deal_set_entry_once"),
        )
        indexes = (
            models.Index(fields=["deal_set", "circle", "-points"], name="deal_set_results"),
        )

    def __str__(self) -> str:
        return f"{self.user_id} in {self.deal_set_id}"
