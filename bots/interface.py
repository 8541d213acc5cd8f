"""What a match asks of its computer players, as `games.computer_players.ComputerPlayers`
(named by the COMPUTER_PLAYERS setting): `games` reaches the bots only through this module."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from bots import tasks
from bots.advice import choice_values
from bots.evaluation import bid_estimate
from bots.players import warm_up
from games import server_time
from games.models import Deal, Seat
from runtime import work


def send_turns(match_id: str, version: int) -> None:
    """The computer players' turn of ``match_id`` from ``version`` on, in its account's share
    of their workers (bots/turn_queue.py). On the embedded default a match with a person at
    it plays the turn in the request that made the move, which then waits for one round of
    computer turns at most, since a person's seat stops them; a table of computer players
    alone has no such seat: it plays on in the background (the computer players' lane), so
    that no request waits for a whole match; its task hands on every few seconds, so such
    tables take turns. A match whose creator is past their server time's budget has its turn
    wait until they are within it (games/server_time.py)."""
    account = server_time.share_account(match_id)
    if account is not None:
        work.later(tasks.play_bot_turns, match_id, version, account=account,
                   delay=server_time.deferral(server_time.match_payers(match_id)),
                   wait_here=lambda: _has_person(match_id))


def _has_person(match_id: str) -> bool:
    return Seat.objects.filter(match_id=match_id, bot_level="").exists()


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
