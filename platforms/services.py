"""Writes for partner platforms: registering them and their keys (staff, in the admin), their
players by external id from creation to erasure (and the reads of them), and matches between
them. Matches themselves are made and played by `games.services`, like every other."""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import gettext
from knox.models import AuthToken

from games import access, engine, privacy, seating
from games import services as games_services
from games import tasks as games_tasks
from games.errors import InvalidMatch, MatchNotFound, ServiceError
from games.match_unit import changing
from games.models import UNFINISHED, Match, MatchStatus, Seat
from platforms import events
from platforms.errors import MatchOver, PlatformMatchNotFound, PlayerNotFound, UnknownPlayer
from platforms.models import MatchBatch, Platform, PlatformKey, PlatformPlayer
from runtime import work

# A key replaced by `rotate_key` keeps working this long, so that the platform can deploy the
# new one first.
ROTATION_GRACE = timedelta(hours=24)



@dataclasses.dataclass(frozen=True)
class PlayerToken:
    player: PlatformPlayer
    created: bool
    token: str
    expiry: datetime


def register_platform(*, name: str) -> Platform:
    # Random names: a name derived from the platform's could be registered first by anyone.
    account = get_user_model().objects.create_user(
        f"platform-{secrets.token_hex(12)}", first_name=name[:64]
    )
    account.set_unusable_password()
    account.save(update_fields=["password"])
    return Platform.objects.create(name=name, user=account)


def issue_key(*, platform: Platform, name: str, scopes: Sequence[str]) -> tuple[PlatformKey, str]:
    """A new key; the secret is returned once and only its hash is kept."""
    # The library's manager gives its model's instances typed as AbstractAPIKey.
    return cast(
        tuple[PlatformKey, str],
        PlatformKey.objects.create_key(platform=platform, name=name, scopes=list(scopes)),
    )


def rotate_key(*, key: PlatformKey) -> tuple[PlatformKey, str]:
    """A new key with the same scopes; the old one lapses after ROTATION_GRACE."""
    with transaction.atomic():
        new = issue_key(platform=key.platform, name=key.name, scopes=key.scopes)
        lapse = timezone.now() + ROTATION_GRACE
        if key.expiry_date is None or key.expiry_date > lapse:
            key.expiry_date = lapse
            key.save(update_fields=["expiry_date"])
    return new


def revoke_key(*, key: PlatformKey) -> None:
    key.revoked = True
    key.save(update_fields=["revoked"])


def put_player(
    *, platform: Platform, external_id: str, display_name: str, language: str | None,
    revoke_others: bool = False,
) -> PlayerToken:
    """Create or update the platform's player ``external_id`` and issue a player token for
    its app (PLATFORM_PLAYER_TOKEN_MINUTES, not renewed by use: the platform asks again).
    ``language`` None leaves an existing player's as it was (a new player has none).
    ``revoke_others``: the new token is the player's only one."""
    user_model = get_user_model()
    for _ in range(2):  # a concurrent first PUT of the same player makes it once
        try:
            with transaction.atomic():
                player = (
                    PlatformPlayer.objects.select_for_update().select_related("user")
                    .filter(platform=platform, external_id=external_id).first()
                )
                created = player is None
                if player is None:
                    account = user_model.objects.create_user(
                        f"player-{secrets.token_hex(16)}", first_name=display_name
                    )
                    account.set_unusable_password()
                    account.save(update_fields=["password"])
                    player = PlatformPlayer.objects.create(
                        platform=platform, external_id=external_id, user=account,
                        language=language or "",
                    )
                else:
                    _update(player, display_name, language)
                token, expiry = _issue_player_token(player, revoke_others)
            return PlayerToken(player, created, token, expiry)
        except IntegrityError:
            continue
    raise AssertionError("a player created twice at once")


def get_player(platform: Platform, external_id: str) -> PlatformPlayer:
    """The platform's player, 404 `not_found` for any other id (another platform's too)."""
    player = players_with_facts(platform).filter(external_id=external_id).first()
    if player is None:
        raise PlayerNotFound()
    return player


def player_account(platform: Platform, external_id: str) -> User:
    """The account of the platform's player ``external_id``; 404 `not_found` for any other."""
    return _existing(platform, external_id).user


def list_players(
    platform: Platform, *, external_id_prefix: str | None, updated_since: datetime | None
) -> QuerySet[PlatformPlayer]:
    players = players_with_facts(platform)
    if external_id_prefix is not None:
        players = players.filter(external_id__startswith=external_id_prefix)
    if updated_since is not None:
        players = players.filter(updated_at__gte=updated_since)
    return players


def players_with_facts(platform: Platform) -> QuerySet[PlatformPlayer]:
    """The platform's players with what `player_facts` reads of them prefetched: three queries
    for any number of players."""
    return (
        PlatformPlayer.objects.filter(platform=platform).select_related("user")
        .prefetch_related(
            Prefetch("user__auth_token_set",
                     queryset=AuthToken.objects.filter(expiry__gt=timezone.now()).only("user")),
            Prefetch("user__seats",
                     queryset=Seat.objects.filter(
                         match__status__in=UNFINISHED, left_at__isnull=True,
                     ).only("match_id", "user_id").order_by("match_id")),
        )
    )


def player_facts(player: PlatformPlayer) -> tuple[int, list[uuid.UUID]]:
    """A player of `players_with_facts`: their tokens not yet lapsed, and the matches waiting
    or in play where they have a seat they have not left."""
    # knox's models have no type stubs: mypy does not know the reverse accessor.
    tokens = cast(Any, player.user).auth_token_set.all()
    return len(tokens), [seat.match_id for seat in player.user.seats.all()]


def _existing(platform: Platform, external_id: str, *, lock: bool = False) -> PlatformPlayer:
    """The platform's player ``external_id`` with their account (locked until the caller's
    transaction ends, with ``lock``); 404 `not_found` for any other id."""
    players = PlatformPlayer.objects.select_related("user")
    if lock:
        players = players.select_for_update()
    player = players.filter(platform=platform, external_id=external_id).first()
    if player is None:
        raise PlayerNotFound()
    return player


def patch_player(
    *, platform: Platform, external_id: str, display_name: str | None, language: str | None
) -> PlatformPlayer:
    """Change what is sent of an existing player (None: as it was); no token is issued."""
    with transaction.atomic():
        player = _existing(platform, external_id, lock=True)
        if display_name is not None or language is not None:  # an empty PATCH changes nothing
            _update(player, display_name, language)
    return get_player(platform, external_id)


def _update(player: PlatformPlayer, display_name: str | None, language: str | None) -> None:
    # Seats keep the name they were taken with (games' rule for every account).
    if display_name is not None:
        player.user.first_name = display_name
        player.user.save(update_fields=["first_name"])
    if language is not None:
        player.language = language
    player.save(update_fields=["language", "updated_at"])


def refresh_token(
    *, platform: Platform, external_id: str, revoke_others: bool
) -> tuple[str, datetime]:
    """A new player token of an existing player, changing nothing else."""
    with transaction.atomic():
        return _issue_player_token(_existing(platform, external_id, lock=True), revoke_others)


def _issue_player_token(player: PlatformPlayer, revoke_others: bool) -> tuple[str, datetime]:
    if revoke_others:
        AuthToken.objects.filter(user=player.user).delete()
    ttl = timedelta(minutes=settings.PLATFORM_PLAYER_TOKEN_MINUTES)
    row, token = AuthToken.objects.create(player.user, expiry=ttl)
    assert row.expiry is not None
    return token, row.expiry


def revoke_tokens(*, platform: Platform, external_id: str) -> None:
    """Every token of the player stops at once (401 on its next request)."""
    AuthToken.objects.filter(user_id=_existing(platform, external_id).user_id).delete()


def erase_player(*, platform: Platform, external_id: str) -> None:
    """The platform's player is erased (`privacy.erase_account`, as any erasure): the
    external id is freed; `player.erased` tells the platform. 404 for an id it has not (one
    erased already)."""
    if not privacy.erase_account(_existing(platform, external_id).user,
                                 reason=privacy.ErasureReason.PLATFORM):
        raise PlayerNotFound()  # erased meanwhile, by another request


def on_account_erasing(
    sender: Any, *, user: User, reason: privacy.ErasureReason, **kwargs: Any
) -> None:
    """What platforms keep of a person being erased: a platform's player row is locked
    (`create_match` takes this lock too: no match is made for them meanwhile), their external
    id removed from the platform's kept events and the admin's history, `player.erased` sent,
    and the row deleted, freeing the id for a new player."""
    player = PlatformPlayer.objects.select_for_update().filter(user=user).first()
    if player is None:
        return
    events.redact_player(
        platform_id=player.platform_id, external_id=player.external_id,
        match_ids=Seat.objects.filter(user=user).values_list("match_id", flat=True),
    )
    events.player_erased(platform_id=player.platform_id, external_id=player.external_id,
                           reason=reason)
    privacy.forget_in_admin_history(player)
    player.delete()


def circle_of(user: User) -> int | None:
    """A platform's account and its players are of its circle (games/circles.py): its
    account's id. One query, each half on a unique index (an OR across the join would read
    every player of every platform)."""
    # Unordered: a compound statement takes no ORDER BY in its parts (the models' ordering).
    player = PlatformPlayer.objects.filter(user=user).order_by().values_list("platform__user_id")
    account = Platform.objects.filter(user=user).order_by().values_list("user_id")
    found = list(player.union(account)[:1])
    return found[0][0] if found else None


def _check_seats(seats: Sequence[dict[str, Any]], *, when_ready: bool) -> None:
    """400 `invalid_input` naming each seat that repeats a player of an earlier one, and each
    open seat of a match that waits for its players to be ready: whoever takes an open seat
    is there, so such a match simply starts as its last seat is taken."""
    first: dict[str, int] = {}
    errors = []
    for index, seat in enumerate(seats):
        if seat["kind"] == "open" and when_ready:
            errors.append({
                "field": f"seats[{index}].kind", "code": "open_when_ready",
                "message": gettext(
                    "A match that starts when its players are ready has no open seat: seat "
                    "every player, or start it now and it starts as its last seat is taken."
                ),
            })
        if seat["kind"] != "player":
            continue
        earlier = first.setdefault(seat["external_id"], index)
        if earlier != index:
            errors.append({
                "field": f"seats[{index}].external_id", "code": "duplicate",
                "message": gettext("This player already has seat %(seat)d of this match.")
                % {"seat": earlier},
            })
    if errors:
        raise InvalidMatch(field="seats", errors=errors)


def players_by_id(platform: Platform, external_ids: Sequence[str]) -> dict[str, PlatformPlayer]:
    """The players, locked until the caller's transaction ends: an erasure (`erase_player`)
    waits for a match seating them to be made, then takes them out of it."""
    found = {
        player.external_id: player
        for player in PlatformPlayer.objects.select_for_update(of=("self",))
        .select_related("user").filter(platform=platform, external_id__in=list(external_ids))
    }
    missing = sorted(set(external_ids) - set(found))
    if missing:
        raise UnknownPlayer(external_ids=missing)
    return found


def create_match(
    *,
    platform: Platform,
    game: str,
    rules: dict[str, Any] | None,
    deal_count: int,
    seats: Sequence[dict[str, Any]],
    visibility: str,
    clock_seconds: games_services.ClockSeconds = games_services.DefaultClock.FOR_THE_SEATS,
    ready_within: int | None = None,
    rated: bool = False,
    hints: bool = False,
    deal: engine.DealStart | None = None,
    starts_at: datetime | None = None,
) -> Match:
    """A match created by the platform's account, its players seated by external id, computer
    players or open seats beside them (for the platform's players only: games/circles.py);
    counted against the platform's own limits. With
    ``ready_within`` it waits that many seconds at most for its players to be ready; with
    ``starts_at`` it starts then (`create_batch` sends its start for that time)."""
    _check_seats(seats, when_ready=ready_within is not None)
    with transaction.atomic():
        players = players_by_id(
            platform, [seat["external_id"] for seat in seats if seat["kind"] == "player"]
        )
        specs = [
            games_services.SeatSpec(kind=games_services.SeatKind.PERSON,
                                    user=players[seat["external_id"]].user)
            if seat["kind"] == "player"
            else games_services.SeatSpec(kind=games_services.SeatKind(seat["kind"]),
                                         bot_level=seat.get("bot_level", ""),
                                         display_name=seat.get("display_name", ""))
            for seat in seats
        ]
        return games_services.create_match(
            user=platform.user,
            table=games_services.NewTable(
                game=game,
                rules=rules,
                deal_count=deal_count,
                seats=specs,
                visibility=visibility,
                clock_seconds=clock_seconds,
                ready_by=(
                    None if ready_within is None
                    else timezone.now() + timedelta(seconds=ready_within)
                ),
                starts_at=starts_at,
                rated=rated,
                hints=hints,
                deal=deal,
            ),
            limits=games_services.AccountLimits(
                platform.max_unfinished_matches, platform.max_bot_seat_deals
            ),
        )


# Scheduled matches a start task takes. A task starts all of its matches before what follows
# any start runs (`seating.start_together`), so a few large tasks, side by side on the
# workers' processes, start a batch sooner than many small ones one after another.
STARTS_PER_TASK = 100


def create_batch(*, platform: Platform, matches: Sequence[dict[str, Any]],
                 starts_at: datetime | None = None) -> MatchBatch:
    """The platform's ``matches`` (each `create_match`'s arguments), made together in one
    transaction: all of them or, at the first refused, none (its problem's `field` says which,
    `matches[i]`). With ``starts_at`` each starts then, its clocks with it: tasks are sent for
    that time, STARTS_PER_TASK matches each (the clock sweep starts any they miss)."""
    with transaction.atomic():
        made = []
        for index, arguments in enumerate(matches):
            try:
                made.append(create_match(platform=platform, starts_at=starts_at, **arguments))
            except ServiceError as error:
                field = error.extra.get("field")
                error.extra["field"] = f"matches[{index}]" + (f".{field}" if field else "")
                raise
        batch = MatchBatch.objects.create(platform=platform, starts_at=starts_at,
                                          match_ids=[str(match.pk) for match in made])
        if starts_at is not None:
            # Sent early where the matches can be prepared in a transaction that commits at
            # their time (`seating.start_together`).
            lead = (seating.SCHEDULED_START_LEAD_SECONDS
                    if connection.features.has_select_for_update else 0.0)
            delay = max(0.0, (starts_at - timezone.now()).total_seconds() - lead)
            ids = batch.match_ids
            for first in range(0, len(ids), STARTS_PER_TASK):
                work.later(games_tasks.start_scheduled, ids[first:first + STARTS_PER_TASK],
                           starts_at.isoformat(), delay=delay)
    return batch


def batch_matches(batch: MatchBatch) -> QuerySet[Match]:
    """The batch's matches that are still kept, in no order."""
    return Match.objects.filter(pk__in=batch.match_ids).prefetch_related("seats")


def cancel_batch(*, platform: Platform, batch: MatchBatch) -> dict[str, int]:
    """Call off every match of the batch not over yet (`cancel_match`); how many were
    cancelled (still waiting) and abandoned (in play)."""
    counts = {"cancelled": 0, "abandoned": 0}
    for match_id in batch_matches(batch).filter(status__in=UNFINISHED).values_list(
            "pk", flat=True):
        try:
            match = cancel_match(platform=platform, match_id=match_id)
        except MatchOver:  # it ended meanwhile
            continue
        counts[match.status] += 1
    return counts


def cancel_match(*, platform: Platform, match_id: uuid.UUID) -> Match:
    """Call off the platform's match: one still waiting is cancelled, one in play abandoned
    (its log stays for review). One already over is refused with how it ended, so a retried
    cancel tells the platform what happened rather than changing anything."""
    try:
        with changing(match_id) as unit:
            match = unit.match
            if not access.access(match, platform.user).allows(access.Permission.MANAGE):
                raise PlatformMatchNotFound()
            if match.status == MatchStatus.WAITING:
                unit.end(MatchStatus.CANCELLED)
            elif match.status == MatchStatus.ACTIVE:
                unit.end(MatchStatus.ABANDONED)
            else:
                raise MatchOver(match_status=match.status)
    except MatchNotFound:
        raise PlatformMatchNotFound() from None
    return unit.match


def personal_data(sender: Any, *, user: User, **kwargs: Any) -> dict[str, Any]:
    """The export's part of platforms (`privacy.personal_data`): the platform whose player the
    person is, and its id of them."""
    player = PlatformPlayer.objects.select_related("platform").filter(user=user).first()
    if player is None:
        return {}
    return {"platform_player": {
        "platform": player.platform.name, "external_id": player.external_id,
        "language": player.language, "created_at": player.created_at,
        "updated_at": player.updated_at,
    }}
