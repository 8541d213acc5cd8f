"""People's data on request: erasing an account (the person closing it, their platform erasing
them, staff) and exporting what the service keeps of a person, each in one place.

Erasure keeps the account row, anonymous and unusable (the matches it played keep their moves
and results: they are the other players' history too, and their seats refer to it) and removes
or anonymises everything that names the person. The other apps erase what they keep of the
person as receivers of `account_erasing`, and add their part of an export as receivers of
`personal_data` (both in games/signals.py): games never imports them."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction

from games import accounts, circles, rematch, seating, selectors
from games.errors import (
    ClosingNotConfirmed,
    MatchNotActive,
    MatchStarted,
    NotYourSeat,
    PlatformAccount,
    WrongPassword,
)
from games.models import (
    UNFINISHED,
    AccountStreamEvent,
    Action,
    Deal,
    DealStatus,
    IdempotencyRecord,
    Match,
    MatchStatus,
    RematchOffer,
    Seat,
    Spectator,
    Visibility,
)
from games.signals import account_erasing, personal_data

# What an erased person's seats, and their account, are called from then on.
FORMER_PLAYER = "Former player"
# An erased account: its name given by the erasure (a reserved prefix) and unusable. A name
# alone is not enough: accounts registered before the prefix was reserved may carry it.
ERASED = models.Q(username__startswith=accounts.ERASED_PREFIX, is_active=False)


class ErasureReason(models.TextChoices):
    CLOSED = "closed", "The person closed their account"
    PLATFORM = "platform", "Their platform erased its player"
    STAFF = "staff", "Staff erased the account"






def close_account(user: User, *, password: str | None, confirmed: bool) -> None:
    """The person closes their own account (`erase_account`): an account with a password
    says it (`WrongPassword`), one without confirms (`ClosingNotConfirmed`)."""
    if user.has_usable_password():
        if password is None:
            raise ClosingNotConfirmed()
        if not user.check_password(password):
            raise WrongPassword()
    elif not confirmed:
        raise ClosingNotConfirmed()
    erase_account(user, reason=ErasureReason.CLOSED)


def is_erased(user: User) -> bool:
    return user.get_username().startswith(accounts.ERASED_PREFIX) and not user.is_active


def erase_account(user: User, *, reason: ErasureReason) -> bool:
    """Erase ``user``: tokens and sessions revoked, out of every match waiting or in play
    (`seating.leave_match`: a computer player takes the seat, or the match ends as its rules
    say), their seats renamed FORMER_PLAYER everywhere, their personal rows deleted (and those
    of the other apps, `account_erasing`), the account made anonymous and unusable.

    Each step can be done again: a call that fails half way may be retried, and an account
    erased already is left as it is. A platform's own account, its circle's (games/circles.py),
    is refused (`PlatformAccount`): its matches and keys hang on it. False when it was erased
    already (by another request: of many at once, one erases)."""
    if circles.circle_of(user) == user.pk:
        raise PlatformAccount()
    _revoke_access(user)
    _leave_every_match(user)
    rematch.decline_for_erased(user)
    with transaction.atomic():
        # No key update: a match finishing meanwhile holds its people's ratings and needs a key
        # share of this row to commit; a full update lock would wait for it while it waits here.
        row = get_user_model().objects.select_for_update(no_key=True).filter(
            pk=user.pk).values_list("username", "is_active").first()
        if row is None or (row[0].startswith(accounts.ERASED_PREFIX) and not row[1]):
            return False
        account_erasing.send(sender=User, user=user, reason=reason)
        # A match made for them since the first pass is left now (receivers have locked what
        # makes matches for them, as a platform's players).
        _leave_every_match(user)
        _revoke_access(user)
        IdempotencyRecord.objects.filter(user=user).delete()
        AccountStreamEvent.objects.filter(user=user).delete()
        Spectator.objects.filter(user=user).delete()
        Seat.objects.filter(user=user).update(display_name=FORMER_PLAYER)
        forget_in_admin_history(user)
        user.username = f"{accounts.ERASED_PREFIX}{secrets.token_hex(16)}"
        user.first_name = FORMER_PLAYER
        user.last_name = user.email = ""
        user.is_active = user.is_staff = user.is_superuser = False
        user.last_login = None
        user.set_unusable_password()
        user.save(update_fields=["username", "first_name", "last_name", "email", "is_active",
                                 "is_staff", "is_superuser", "last_login", "password"])
        user.groups.clear()
        user.user_permissions.clear()
    return True


def forget_in_admin_history(instance: models.Model) -> None:
    """The admin's history names each object it changed as it was then (its `str`: an
    account's username, a platform's player's external id): FORMER_PLAYER instead."""
    LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(instance), object_id=str(instance.pk)
    ).update(object_repr=FORMER_PLAYER)


def _revoke_access(user: User) -> None:
    accounts.revoke_every_token(user)
    if user.is_staff:  # only staff sign in with a session (the admin)
        for session in Session.objects.iterator():
            if session.get_decoded().get("_auth_user_id") == str(user.pk):
                session.delete()


def _leave_every_match(user: User) -> None:
    # A private table they made that waits for people is called off: only its creator reads
    # its invitation code, so it would wait for ever with the others seated at it.
    waiting = Match.objects.filter(created_by=user, status=MatchStatus.WAITING,
                                   visibility=Visibility.PRIVATE)
    for match_id in list(waiting.values_list("pk", flat=True)):
        # MatchStarted: it started since the query (it is left below, as any match in play).
        with contextlib.suppress(MatchStarted):
            seating.cancel_match(match_id=match_id, user=user)
    seats = Seat.objects.filter(user=user, match__status__in=UNFINISHED, left_at__isnull=True)
    for match_id in list(seats.values_list("match_id", flat=True)):
        # MatchNotActive, NotYourSeat: it ended, or they left, since the query.
        with contextlib.suppress(MatchNotActive, NotYourSeat):
            seating.leave_match(match_id=match_id, user=user)


# --- export -------------------------------------------------------------------------------------


def export(user: User) -> Iterator[str]:
    """The person's data as one JSON document, written piece by piece (a long history is never
    held in memory at once): their account, every match they had a seat at, and the other
    apps' sections (`personal_data`: ratings, statistics, a platform's id of them...).

    Of each match: its summary, the seats' names as everyone at the table saw them, and of
    each ended deal the person's own hand, the contract, the results and every action (all of
    them public at the table). Never another seat's hand, nor anything of a deal still in
    play."""
    sections: dict[str, Any] = {"account": _account(user), "matches": _matches(user)}
    for _receiver, answer in personal_data.send(sender=User, user=user):
        sections.update(cast(dict[str, Any], answer))
    yield "{"
    for number, (name, value) in enumerate(sections.items()):
        yield f"{',' if number else ''}{_json(name)}:"
        if isinstance(value, Iterator):
            yield from _json_list(value)
        else:
            yield _json(value)
    yield "}\n"


def _json(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def _json_list(items: Iterable[Any]) -> Iterator[str]:
    yield "["
    for number, item in enumerate(items):
        yield ("," if number else "") + _json(item)
    yield "]"


def _account(user: User) -> dict[str, Any]:
    return {
        "id": user.pk,
        "username": user.get_username(),
        "display_name": selectors.display_name(user),
        "email": user.email,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "has_password": user.has_usable_password(),
    }


# Matches read at a time by an export: a few queries for each page, however many deals.
EXPORT_PAGE = 100


def _matches(user: User) -> Iterator[dict[str, Any]]:
    mine = list(Seat.objects.filter(user=user).order_by("match__created_at", "match_id")
                .values_list("match_id", "index", "left_at"))
    for start in range(0, len(mine), EXPORT_PAGE):
        page = mine[start:start + EXPORT_PAGE]
        ids = [match_id for match_id, _, _ in page]
        matches = Match.objects.in_bulk(ids)
        seats = _grouped(Seat.objects.filter(match_id__in=ids).order_by("match_id", "index")
                         .values("match_id", "index", "display_name", "bot_level"))
        ended = Deal.objects.filter(match_id__in=ids).exclude(status=DealStatus.IN_PROGRESS)
        deals = _grouped(ended.order_by("match_id", "sequence").values(
            "id", "match_id", "sequence", "number", "status", "dealer", "hands", "declarer",
            "bid", "trump", "tricks", "scores", "started_at", "finished_at"))
        actions = _grouped(
            Action.objects.filter(deal__in=ended.values("pk")).order_by("deal_id", "sequence")
            .values("deal_id", "seat", "kind", "payload", "origin", "created_at"), "deal_id")
        rematches = {offer.match_id: offer for offer in RematchOffer.objects.filter(
            match_id__in=ids).only("match_id", "status", "created_at", "expires_at")}
        for match_id, own, left_at in page:
            match = matches[match_id]
            offer = rematches.get(match_id)
            # Someone who left saw the deals that ended while they were seated, no later one.
            seen = [deal for deal in deals[match_id]
                    if left_at is None or (deal["finished_at"] is not None
                                           and deal["finished_at"] <= left_at)]
            yield {
                "id": match.id,
                "game": match.game,
                "status": match.status,
                "rated": match.rated,
                "deal_count": match.deal_count,
                "created_at": match.created_at,
                "finished_at": match.finished_at,
                "seat": own,
                "seats": [
                    {"index": seat["index"], "display_name": seat["display_name"],
                     "computer": bool(seat["bot_level"]), "you": seat["index"] == own}
                    for seat in seats[match_id]
                ],
                "totals": match.totals,
                "ranking": match.ranking,
                "rematch": offer and {"status": rematch.status_of(offer),
                                      "created_at": offer.created_at},
                "deals": [_deal(deal, own, actions[deal["id"]]) for deal in seen],
            }


def _grouped(rows: Iterable[Mapping[str, Any]], key: str = "match_id") -> dict[Any, list[Any]]:
    grouped: dict[Any, list[Any]] = defaultdict(list)
    for row in rows:
        grouped[row[key]].append(row)
    return grouped


def _deal(deal: dict[str, Any], own: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """An ended deal as the person saw it: their own hand, never another seat's."""
    return {
        "sequence": deal["sequence"],
        "number": deal["number"],
        "status": deal["status"],
        "dealer": deal["dealer"],
        "hand": deal["hands"][own],
        "declarer": deal["declarer"],
        "bid": deal["bid"],
        "trump": deal["trump"],
        "tricks": deal["tricks"],
        "scores": deal["scores"],
        "started_at": deal["started_at"],
        "finished_at": deal["finished_at"],
        "actions": [
            {"seat": action["seat"], "kind": action["kind"], **action["payload"],
             "origin": action["origin"], "at": action["created_at"]}
            for action in actions
        ],
    }
