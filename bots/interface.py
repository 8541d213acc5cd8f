"""What a match asks of its computer players, as `games.computer_players.ComputerPlayers`
(named by the COMPUTER_PLAYERS setting): `games` reaches the bots only through this module."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from bots import tasks, turn_queue
from bots.advice import choice_values
from bots.evaluation import bid_estimate
from bots.players import warm_up
from games.models import Deal, Match, Seat
from runtime import lanes


def send_turns(match_id: str, version: int) -> None:
    """Scaled out, to the fair queue in front of the workers (bots/turn_queue.py) and a token
    to the broker. On the embedded default (tasks in-process) in the request that made the
    move, which then waits for one round of computer turns at most, since a person's seat
    stops them. A table of computer players alone has no such seat: it plays on in the
    background (the computer players' lane, one turn after the other in the order sent), so
    that no request waits for a whole match; its task hands on every few seconds, so such
    tables take turns."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        account = _fair_share_account(match_id)
        if account is not None:
            turn_queue.push(account, match_id, version)
            tasks.play_next_turn.delay()
    elif not _has_person(match_id):
        lanes.run_soon("computer-players", "bots.tasks.play_bot_turns", match_id, version)
    else:
        tasks.play_bot_turns.delay(match_id, version)


def _fair_share_account(match_id: str) -> int | None:
    """The account whose share of the workers the match's turns use: its creator's, or, when
    its creator is a platform's player, the platform's own account. A platform creates players
    at will, so each of them having a share of its own would let one platform take as many
    shares as it likes; its matches and its players' matches share one."""
    row = Match.objects.filter(pk=match_id).values_list(
        "created_by_id", "created_by__platform_player__platform__user_id"
    ).first()
    if row is None:
        return None
    creator, platform_account = row
    return platform_account or creator


def _has_person(match_id: str) -> bool:
    return Seat.objects.filter(match_id=match_id, bot_level="").exists()


def send_analysis(deal_id: int) -> None:
    """In the share of the analysis of the match's account (its turns' share,
    `_fair_share_account`), so that one account ending deal after deal never holds up another
    account's analysis. Scaled out, to the analysis workers' fair queue (bots/tasks.py, in
    front of ANALYSIS_QUEUE: the computer players' workers never take from it) and a token to
    the broker; on the embedded default, to the analysis lane, after the response, whose task
    searches in the low-priority analysis process (bots/analysis.py)."""
    match_id = Deal.objects.filter(pk=deal_id).values_list("match_id", flat=True).first()
    account = None if match_id is None else _fair_share_account(str(match_id))
    if account is None:
        return
    if settings.CELERY_TASK_ALWAYS_EAGER:
        lanes.run_soon("analysis", "bots.tasks.analyse_deal", deal_id, True, account=account)
    else:
        tasks.ANALYSES.push(account, str(deal_id))
        tasks.analyse_next_deal.delay()


def send_timeout(match_id: str, version: int, at: datetime) -> None:
    tasks.time_out_turn.apply_async((match_id, version), eta=at)


choose = tasks.choose

__all__ = [
    "bid_estimate", "choice_values", "choose", "send_analysis", "send_timeout", "send_turns",
    "warm_up",
]
