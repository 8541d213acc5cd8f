"""Reads of the tour: the tables as one player sees them (open or locked, with their results) and
what a tour match came to."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import User

from games import engine, presenters
from games.errors import MatchNotFound
from games.models import GameChoice, MatchStatus
from tour import content
from tour.models import TableProgress, TourMatch


def tables(user: User) -> list[dict[str, Any]]:
    """Every table in tour order, with whether it is open to ``user`` and their results."""
    progress = {row.table: row for row in TableProgress.objects.filter(user=user)}
    return [
        table_summary(
            table, number=number, is_open=_is_open(table, progress),
            progress=progress.get(table.slug),
        )
        for number, table in enumerate(content.TABLES, start=1)
    ]


def table_for(user: User, table: content.Table) -> dict[str, Any]:
    return next(row for row in tables(user) if row["slug"] == table.slug)


def is_open(user: User, table: content.Table) -> bool:
    return bool(table_for(user, table)["open"])


def _is_open(table: content.Table, progress: dict[str, TableProgress]) -> bool:
    previous = content.previous_table(table)
    return previous is None or (previous.slug in progress and progress[previous.slug].won > 0)


def table_summary(
    table: content.Table, *, number: int, is_open: bool, progress: TableProgress | None
) -> dict[str, Any]:
    """A table as the API shows it, with ``progress``: the player's results there, if any."""
    return {
        "slug": table.slug,
        "number": number,
        "name": table.name,
        "place": table.place,
        "intro": table.intro,
        "game": table.game.value,
        "rules": engine.TableRules.create(table.game.value, **table.rules).to_dict(),
        "deal_count": content.DEALS,
        "characters": [
            {
                "seat": seat,
                "role": "partner"
                if table.game == GameChoice.PARTNERSHIP and seat == content.PARTNER_SEAT
                else "opponent",
                "slug": character.slug,
                "name": character.name,
                "personality": character.personality,
                "bot_level": character.level.value,
            }
            for seat, character in enumerate(table.characters, start=1)
        ],
        "open": is_open,
        "progress": {
            "played": progress.played if progress else 0,
            "won": progress.won if progress else 0,
            "best_place": progress.best_place if progress else None,
            "best_total": progress.best_total if progress else None,
        },
    }


def tour_match(user: User, match_id: uuid.UUID) -> TourMatch:
    """``user``'s tour match of ``match_id``; anyone else's is as good as missing."""
    try:
        return TourMatch.objects.select_related("match").get(user=user, match_id=match_id)
    except TourMatch.DoesNotExist:
        raise MatchNotFound() from None


def match_result(tour_match: TourMatch) -> dict[str, Any]:
    """The match with the person's place in it, once finished, and the table a win opens."""
    match = tour_match.match
    place = (
        match.ranking[content.PERSON_SEAT]
        if match.status == MatchStatus.FINISHED and match.ranking
        else None
    )
    table = content.table(tour_match.table)
    following = content.next_table(table) if table is not None and place == 1 else None
    return {
        "table": tour_match.table,
        "match": presenters.match_summary(match),
        "place": place,
        "won": None if place is None else place == 1,
        "next_table": following.slug if following is not None else None,
    }
