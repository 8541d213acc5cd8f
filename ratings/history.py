"""Players' pages: a person's profile (ratings, statistics), finished matches and rating
history, as others see them. Ratings and their history are public (they are on the
leaderboards); the matches and the statistics only as the person's `Privacy` allows, and
always to themselves; a person whose matches are private is unnamed in others' (`unnamed`).
Another circle's people (games/circles.py) are not found, as unknown usernames are."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.db.models.functions import Lower

from games import circles, selectors
from games.models import GameChoice, Seat
from ratings.errors import HistoryHidden, PlayerNotFound
from ratings.model import PROVISIONAL_MATCHES
from ratings.models import GameRecord, PlayedMatch, Privacy, Rating, RatingChange

ME = "me"
# A person who keeps their match history private, in another's (`unnamed`).
UNNAMED = "A player"


def find_player(requester: User, username: str) -> User:
    """The person ``username`` (any case; `me`: the requester) as ``requester`` may look them
    up: one of another circle is not found."""
    if username == ME:
        return requester
    if "\x00" in username:  # no name holds one, and PostgreSQL refuses it in a query
        raise PlayerNotFound()
    # On lower(username): the unique index of the names (games migration 0003).
    found = get_user_model().objects.alias(name=Lower("username")).filter(
        name=username.lower(), is_active=True
    ).first()
    if found is None or circles.circle_of(found) != circles.circle_of(requester):
        raise PlayerNotFound()
    return found


def privacy_of(user: User) -> Privacy:
    """The person's setting; the defaults (everything public) when they never chose."""
    return Privacy.objects.filter(user=user).first() or Privacy(user=user)


def set_privacy(user: User, **changes: bool) -> Privacy:
    privacy, _ = Privacy.objects.update_or_create(user=user, defaults=changes)
    return privacy


def shows(requester: User, user: User) -> Privacy:
    """What ``requester`` may see of ``user``: all of their own."""
    return Privacy(user=user) if requester.pk == user.pk else privacy_of(user)


def _percent(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def statistics_body(record: GameRecord | None) -> dict[str, Any]:
    """A record's numbers and the rates made of them (docs/ratings.md); a rate of nothing
    (no match, no deal, no contract) is null."""
    row = record or GameRecord()
    return {
        "matches": row.matches, "wins": row.wins, "deals": row.deals, "points": row.points,
        "declared": row.declared, "made": row.made, "batak": row.batak,
        "win_percent": _percent(row.wins, row.matches),
        "average_points": round(row.points / row.deals, 2) if row.deals else None,
        "made_percent": _percent(row.made, row.declared),
        "batak_percent": _percent(row.batak, row.deals),
    }


def rating_body(rating: Rating | None) -> dict[str, Any] | None:
    if rating is None:
        return None
    return {"rating": rating.rating, "deviation": rating.deviation,
            "provisional": rating.matches < PROVISIONAL_MATCHES, "matches": rating.matches,
            "wins": rating.wins}


def profile(user: User, privacy: Privacy) -> dict[str, Any]:
    """``user``'s profile, their statistics only where ``privacy`` shows them."""
    ratings = {row.game: row for row in Rating.objects.filter(user=user)}
    records = (
        {row.game: row for row in GameRecord.objects.filter(user=user)}
        if privacy.statistics_public else {}
    )
    return {
        "username": user.get_username(),
        "display_name": selectors.display_name(user),
        "joined": user.date_joined,
        "statistics_hidden": not privacy.statistics_public,
        "history_hidden": not privacy.history_public,
        "games": [
            {"game": game, "rating": rating_body(ratings.get(game)),
             "statistics": statistics_body(records.get(game))
             if privacy.statistics_public else None}
            for game in GameChoice.values
        ],
    }


def finished_matches(
    user: User, privacy: Privacy, *, game: str | None = None, rated: bool | None = None
) -> QuerySet[PlayedMatch]:
    """``user``'s finished matches (unordered: the caller's pagination orders them on the
    index of `PlayedMatch`), each with its match, seats and ``user``'s rating change
    prefetched. 403 `history_hidden` when ``privacy`` hides them."""
    if not privacy.history_public:
        raise HistoryHidden()
    rows = PlayedMatch.objects.filter(user=user)
    if game is not None:
        rows = rows.filter(game=game)
    if rated is not None:
        rows = rows.filter(rated=rated)
    return rows.select_related("match").defer("match__rules").prefetch_related(
        Prefetch("match__seats", queryset=Seat.objects.select_related("user")),
        Prefetch("match__rating_changes", queryset=RatingChange.objects.filter(user=user),
                 to_attr="own_changes"),
    )


def unnamed(requester: User, user: User, rows: Sequence[PlayedMatch]) -> set[int]:
    """The people of ``user``'s matches ``rows`` (seats prefetched) whom ``requester`` sees
    unnamed in them: those who keep their match history private, whose history could
    otherwise be rebuilt from their opponents'. Named to themselves, and to ``user``, who sat
    with them."""
    if requester.pk == user.pk:
        return set()
    seated = {seat.user_id for row in rows for seat in row.match.seats.all()
              if seat.user_id is not None} - {requester.pk, user.pk}
    if not seated:
        return set()
    return set(Privacy.objects.filter(user_id__in=seated, history_public=False)
               .values_list("user_id", flat=True))


def match_line(row: PlayedMatch, unnamed: Collection[int] = ()) -> dict[str, Any]:
    """One match of a person's finished matches (`finished_matches`), as their history shows
    it: the people ``unnamed`` as UNNAMED, without a username."""
    match = row.match
    change: RatingChange | None = next(iter(getattr(match, "own_changes", [])), None)
    return {
        "id": match.pk, "game": row.game, "finished_at": row.finished_at,
        "deal_count": match.deal_count, "rated": row.rated, "seat": row.seat,
        "place": row.place, "score": row.score,
        "others": [
            {"seat": other.index,
             "display_name": UNNAMED if other.user_id in unnamed else other.display_name,
             "username": None if other.user is None or other.user_id in unnamed
             else other.user.get_username(),
             "bot_level": other.bot_level or None}
            for other in match.seats.all() if other.index != row.seat
        ],
        "rating_change": {"before": change.rating_before, "after": change.rating_after,
                          "delta": change.delta} if change else None,
    }


def rating_history(user: User, game: str) -> QuerySet[RatingChange]:
    """``user``'s rated matches of ``game`` (unordered: the caller's pagination orders them)."""
    return RatingChange.objects.filter(user=user, game=game)


def rating_line(change: RatingChange, *, with_match: bool) -> dict[str, Any]:
    """A point of the rating history; its match and place only ``with_match`` (the player's
    own, or a player who shows their history: the line would list a hidden one)."""
    return {"match_id": change.match_id if with_match else None,
            "rating": change.rating_after, "deviation": change.deviation_after,
            "delta": change.delta, "place": change.place if with_match else None,
            "at": change.created_at}
