"""Writes of the tour: starting a table's match and counting finished matches into progress.

A finished match, or one the player left (a forfeit: played and lost), is counted when it is
next read (the tour, a table, the match's result, or a new start), not when its last card
falls: the game's services know nothing of the tour. Each
match is counted exactly once, however often and however concurrently it is read: its
`TourMatch` row is locked and its ``recorded`` flag set in the same transaction as the progress.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.db import transaction

from games import services as games_services
from games.models import Match, MatchStatus, Seat
from tour import content, selectors
from tour.errors import TableLocked, TableNotFound
from tour.models import TableProgress, TourMatch


def start_table(*, user: User, slug: str) -> Match:
    """A new match at an open table: ``user`` in seat 0, the table's characters in the others."""
    table = content.table(slug)
    if table is None:
        raise TableNotFound()
    # The win that opens this table may have finished since the tour was last read.
    record_results(user=user)
    if not selectors.is_open(user, table):
        raise TableLocked()
    with transaction.atomic():
        match = games_services.create_match(
            user=user,
            table=games_services.NewTable(
                game=table.game.value,
                rules=table.rules,
                deal_count=content.DEALS,
                leave_forfeits=True,
                seats=[
                    games_services.SeatSpec(kind=games_services.SeatKind.ME),
                    *(
                        games_services.SeatSpec(
                            kind=games_services.SeatKind.BOT, bot_level=character.level.value,
                            display_name=character.name, character=character.slug,
                        )
                        for character in table.characters
                    ),
                ],
            ),
        )
        TourMatch.objects.create(user=user, table=table.slug, match=match)
    return match


def record_results(*, user: User, match_id: uuid.UUID | None = None) -> None:
    """Count every finished tour match of ``user`` not counted yet, or only the one of
    ``match_id``. Matches still in play cost one query and take no lock, so a client may
    poll freely."""
    pending = TourMatch.objects.filter(
        user=user, recorded=False, match__status__in=[MatchStatus.FINISHED, MatchStatus.ABANDONED]
    )
    if match_id is not None:
        pending = pending.filter(match_id=match_id)
    for tour_match_id in list(pending.values_list("pk", flat=True)):
        _record(tour_match_id)


def _record(tour_match_id: int) -> None:
    """Count one finished tour match into its player's progress at its table, unless another
    reader has just done so."""
    with transaction.atomic():
        tour_match = TourMatch.objects.select_for_update().get(pk=tour_match_id)
        if tour_match.recorded:
            return
        match = Match.objects.get(pk=tour_match.match_id)
        left = Seat.objects.filter(
            match=match, index=content.PERSON_SEAT, left_at__isnull=False
        ).exists()
        if match.status == MatchStatus.ABANDONED and not left:  # stopped by staff: no result
            tour_match.recorded = True
            tour_match.save(update_fields=["recorded"])
            return
        # The engine's ranking already shares a place between tied seats (RULES.md: more tricks
        # in the last deal, then a shared place), so a shared first place is a win; a forfeit
        # counts as a match played and lost, in last place.
        if match.status == MatchStatus.FINISHED:
            assert match.ranking is not None  # set when the match finishes
            place = match.ranking[content.PERSON_SEAT]
        else:
            place = 4
        total = match.totals[content.PERSON_SEAT]
        progress, _ = TableProgress.objects.select_for_update().get_or_create(
            user_id=tour_match.user_id,
            table=tour_match.table,
            defaults={"best_place": place, "best_total": total},
        )
        progress.played += 1
        if place == 1:
            progress.won += 1
        progress.best_place = min(progress.best_place, place)
        progress.best_total = max(progress.best_total, total)
        progress.save()
        tour_match.recorded = True
        tour_match.save(update_fields=["recorded"])
