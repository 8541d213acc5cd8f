"""What every view of the platform API under `/api/v1/platform/` shares: its key's
authentication, a player's external id checked, a match and a player as the API answers them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.authentication import BaseAuthentication
from rest_framework.views import APIView

from games import presenters
from games.models import Match
from platforms import services
from platforms.api import serializers as ps
from platforms.authentication import PlatformKeyAuthentication, scoped
from platforms.errors import (
    InvalidExternalId,
)
from platforms.models import (
    Platform,
    PlatformKey,
    PlatformPlayer,
    Scope,
)

EXTERNAL_ID = re.compile(ps.EXTERNAL_ID_PATTERN)
EXTERNAL_ID_PARAMETER = OpenApiParameter(
    "external_id", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=ps.EXTERNAL_ID_PATTERN,
    description="The platform's own id of the player: 1 to 128 of A-Z a-z 0-9 `_ . : @ + -`.",
)


class PlatformEndpoint(APIView):
    authentication_classes: Sequence[type[BaseAuthentication]] = [PlatformKeyAuthentication]

    @property
    def platform(self) -> Platform:
        key = self.request.auth
        assert isinstance(key, PlatformKey)
        return key.platform


def platform_match(match: Match) -> dict[str, Any]:
    """The match's summary with the platform's external id of each seat's player."""
    summary = presenters.match_summary(match)
    users = {seat.index: seat.user_id for seat in match.seats.all()}
    assert match.circle_id is not None, "a platform's match is of its circle"
    # Keyed for lookups by a seat's user id, None for a computer or an open seat (no entry).
    ids: dict[int | None, str] = dict(
        PlatformPlayer.objects.filter(
            platform__user_id=match.circle_id, user_id__in=[u for u in users.values() if u]
        ).values_list("user_id", "external_id")
    )
    return {**summary, "players": [ids.get(users.get(index)) for index in range(4)],
            "invitation_code": match.invitation_code}


READ_PLAYERS = scoped(Scope.PLAYERS_READ, Scope.PLAYERS_WRITE)
WRITE_PLAYERS = scoped(Scope.PLAYERS_WRITE)


def checked(external_id: str) -> str:
    if not EXTERNAL_ID.fullmatch(external_id):
        raise InvalidExternalId(field="external_id")
    return external_id


def player_body(player: PlatformPlayer) -> dict[str, Any]:
    """A player of `services.players_with_facts`, as the API shows it."""
    active_tokens, matches_in_play = services.player_facts(player)
    return {"external_id": player.external_id, "display_name": player.user.first_name,
            "language": player.language, "created_at": player.created_at,
            "updated_at": player.updated_at, "active_tokens": active_tokens,
            "matches_in_play": matches_in_play}
