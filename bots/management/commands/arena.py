"""``python manage.py arena``: duplicate-form strength test of the computer players."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from bots import arena
from games.engine import Game

LADDER = [("easy", "random"), ("medium", "easy"), ("hard", "medium"), ("hard", arena.PIMC),
          ("expert", "hard"), ("hard", arena.SEES_ALL)]


class Command(BaseCommand):
    help = "Play deal-sets in duplicate form and print each player's advantage over a field."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", choices=[g.value for g in Game], action="append",
                            help="Game(s) to test (default: all three).")
        parser.add_argument("--tested", help="Level tested (default: the whole ladder).")
        parser.add_argument("--field", help="Level of the other three seats, or a reference: "
                                                f"{arena.PIMC} (plain perfect-information Monte "
                                                f"Carlo), {arena.SEES_ALL} and "
                                                f"{arena.HARD_SEES_ALL} (see every hand; Medium's "
                                                f"or Hard's calls).")
        parser.add_argument("--deal-sets", type=int, default=600)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--judge", action="store_true",
                            help="Also report the points per deal the tested player's cards give "
                                 "up against a search that sees every hand, by stage of the play.")

    def handle(self, *args: Any, **options: Any) -> None:
        games = options["game"] or [g.value for g in Game]
        pairs = [(options["tested"], options["field"])] if options["tested"] else LADDER
        for game in games:
            for tested, field in pairs:
                report = arena.run(
                    game, tested, field or "medium", options["deal_sets"],
                    seed=options["seed"], workers=options["workers"], judged=options["judge"],
                    progress=arena.progress_bar,
                )
                self.stdout.write(report.line())
