"""What a match asks of its computer players, as `games.computer_players.ComputerPlayers`
(named by the COMPUTER_PLAYERS setting): `games` reaches the bots only through this module."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.utils import timezone

from bots import tasks
from bots.advice import choice_values
from bots.evaluation import bid_estimate
from bots.players import warm_up
from games import server_time
from games.models import BotLevel, Deal, Seat
from runtime import work


def send_turns(match_id: str, version: int, seat_levels: Sequence[str] | None = None) -> None:
    """The computer players' turn of ``match_id`` from ``version`` on. A table with a person at
    it plays it in the thread that made the move (`_plays_here`), once that move's request has
    answered (runtime/work.py `AfterAnswer`): one round of them at most, since a person's seat
    stops them. Otherwise it goes to the workers (on the embedded default, the
    computer players' lane) in its account's share (bots/turn_queue.py): a table of computer
    players alone, whose task hands on every few seconds so that such tables take turns, and,
    scaled out, a table with a computer player whose search takes a worker's time (Hard). A
    match whose creator is past their server time's budget has its turn wait until they are
    within it (games/server_time.py)."""
    account = server_time.share_account(match_id)
    if account is not None:
        work.later(tasks.play_bot_turns, match_id, version, account=account,
                   delay=server_time.deferral(server_time.match_payers(match_id)),
                   wait_here=lambda: _plays_here(match_id, seat_levels))


# Computer players who decide in a few milliseconds (Medium is also the stand-in of a person
# whose clock ran out, who is on autopilot or who left).
QUICK_LEVELS = frozenset({BotLevel.EASY, BotLevel.MEDIUM})


def _plays_here(match_id: str, seat_levels: Sequence[str] | None) -> bool:
    """Whether the computer players' turn is played in this thread: at a table with a person,
    always on the embedded default (it has no workers); scaled out, when all its computer
    players are quick (QUICK_LEVELS): their round then costs less than handing it to a worker
    (a task, the fair queue's calls, reading the match again), and the person hears it sooner."""
    levels = set(seat_levels if seat_levels is not None else
                 Seat.objects.filter(match_id=match_id).values_list("bot_level", flat=True))
    if "" not in levels:
        return False
    return work.in_process() or levels - {""} <= QUICK_LEVELS


def send_analysis(deal_id: int) -> None:
    """In the share of the analysis of the match's account (its turns' share,
    `server_time.share_account`), so that one account ending deal after deal never holds up
    another account's analysis (bots/tasks.py: the computer players' workers never take it)."""
    match_id = Deal.objects.filter(pk=deal_id).values_list("match_id", flat=True).first()
    account = None if match_id is None else server_time.share_account(str(match_id))
    if account is not None:
        work.later(tasks.analyse_deal, deal_id, account=account)


def send_timeout(match_id: str, version: int, at: datetime) -> None:
    work.later(tasks.time_out_turn, match_id, version,
               delay=max(0.0, (at - timezone.now()).total_seconds()))


choose = tasks.choose

__all__ = [
    "bid_estimate", "choice_values", "choose", "send_analysis", "send_timeout", "send_turns",
    "warm_up",
]
