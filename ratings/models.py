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
    # When the match finished, or just after the person's previous change if that is later
    # (`services._dated`): a person's changes are dated in the order they were made, and a
    # recount dates them again the same.
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



class GameRecord(models.Model):
    """A person's statistics of a game, over every finished match they were seated at the end
    of, rated or casual (ratings/statistics.py), kept as each match finishes."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_records"
    )
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0, help_text="Matches finished first.")
    deals = models.PositiveIntegerField(default=0, help_text="Finished deals played.")
    points = models.BigIntegerField(default=0, help_text="Points of those deals.")
    declared = models.PositiveIntegerField(
        default=0, help_text="Deals the seat declared: won the auction, or announced in Koz Maça."
    )
    made = models.PositiveIntegerField(default=0, help_text="Of those, the contracts made.")
    batak = models.PositiveIntegerField(
        default=0, help_text="Deals the seat went down as declarer's side, or took no trick."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "game"], name="game_record_once_per_game"),
        )

    def __str__(self) -> str:
        return f"{self.user} {self.game}: {self.matches} matches"


class PlayedMatch(models.Model):
    """A finished match in the history of a person seated at its end, written with their
    `GameRecord` as it finishes: their history's pages are ranges of one index, however many
    matches they and everyone else played (a join of seats and matches would sort all of
    theirs for every page)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="played_matches"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    rated = models.BooleanField()
    finished_at = models.DateTimeField()
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(help_text="As rated for a rated match.")
    score = models.IntegerField()

    class Meta:
        verbose_name_plural = "played matches"
        constraints = (
            models.UniqueConstraint(fields=["user", "match"], name="played_match_once"),
        )
        indexes = (
            models.Index(fields=["user", "-finished_at", "-match"], name="played_newest"),
            models.Index(fields=["user", "game", "-finished_at", "-match"],
                         name="played_newest_game"),
        )

    def __str__(self) -> str:
        return f"{self.user} {self.match_id}"


class Privacy(models.Model):
    """What a person shows others. No row: the defaults, everything public (as on lichess);
    their ratings are public whatever they choose, being on the leaderboards."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
        related_name="privacy",
    )
    history_public = models.BooleanField(
        default=True, help_text="Others may list the person's finished matches."
    )
    statistics_public = models.BooleanField(
        default=True, help_text="Others may see the person's statistics."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "privacy settings"

    def __str__(self) -> str:
        return f"{self.user} privacy"


class ScoreCount(models.Model):
    """How many players have ``score`` on the leaderboard ``board`` (ratings/board_counts.py):
    a place is summed from these, not counted row by row."""

    board = models.CharField(max_length=64)
    score = models.IntegerField()
    players = models.IntegerField(default=0)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["board", "score"], name="score_count_once"),
        )

    def __str__(self) -> str:
        return f"{self.board} {self.score}: {self.players}"
