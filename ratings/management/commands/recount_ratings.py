"""Recount every rating from the stored results of the rated matches (ratings.services.recount):
after a change to the rating model, or to check the stored ratings (`--check` changes nothing
and fails if any stored number differs from the recount's)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from ratings import services
from ratings.models import Rating, RatingChange, ScoreCount, SeasonStanding

Snapshot = dict[str, set[tuple[Any, ...]]]


def snapshot() -> Snapshot:
    return {
        "ratings": set(Rating.objects.values_list(
            "user_id", "game", "circle_id", "mu", "sigma", "rating", "deviation", "matches",
            "wins")),
        "rating changes": set(RatingChange.objects.values_list(
            "match_id", "user_id", "seat", "place", "mu_before", "sigma_before", "mu_after",
            "sigma_after", "rating_before", "rating_after", "deviation_after", "created_at")),
        "season standings": set(SeasonStanding.objects.values_list(
            "user_id", "game", "circle_id", "period", "starts", "points", "matches", "wins")),
        "leaderboard counts": set(ScoreCount.objects.exclude(players=0).values_list(
            "board", "score", "players")),
    }


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="Compare with the stored ratings; change nothing.")

    def handle(self, *args: Any, check: bool, **options: Any) -> None:
        with transaction.atomic():
            before = snapshot()
            services.recount()
            after = snapshot()
            if check:
                transaction.set_rollback(True)
        differ = [name for name in before if before[name] != after[name]]
        for name in before:
            self.stdout.write(f"{name}: {len(after[name])}"
                              + (" (differ)" if name in differ else " (the same)"))
        if check and differ:
            raise CommandError("the stored ratings differ from the recount: " + ", ".join(differ))
