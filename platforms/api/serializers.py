"""Input and output shapes of the platform API."""

from __future__ import annotations

import urllib.parse
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from games import engine
from games.api.serializers.analysis import AnalysisReadyEventSerializer
from games.api.serializers.fields import (
    NAME_ALLOWED,
    NAME_PATTERN,
    OUTCOMES,
    PHASES,
    StrictBooleanField,
    StrictChoiceField,
    StrictInputSerializer,
    StrictIntegerField,
    StrictRegexField,
    seat_field,
    seat_list,
)
from games.api.serializers.matches import (
    HINTS_HELP,
    ClockSerializer,
    MatchSerializer,
    RuleOverridesSerializer,
    deal_notation_field,
)
from games.models import BotLevel, GameChoice, MatchStatus, Visibility
from games.privacy import ErasureReason
from platforms.addresses import AddressNotAllowed, public_addresses
from platforms.models import EVERY_EVENT_TYPE, DeliveryStatus, EventType
from ratings.api.leaderboard_serializers import (
    LeaderboardEntrySerializer,
    LeaderboardPageSerializer,
)
from ratings.api.player_serializers import PlayedMatchFields

# Not dots only: `.` and `..` are path segments that a URL resolves away (/players/.. is
# /players), so a generated client could not name such a player in a path.
EXTERNAL_ID_PATTERN = r"^(?!\.+$)[A-Za-z0-9_.:@+-]{1,128}$"
# The start of one: any of its characters (`.` is the start of `.a`).
EXTERNAL_ID_PREFIX_PATTERN = r"^[A-Za-z0-9_.:@+-]{1,128}$"
EXTERNAL_ID_ALLOWED = _("An external id is 1 to 128 characters, each a letter A to Z or a to z, "
                        "a digit, or one of _ . : @ + -, and not dots only")
# How long a match created with `start: when_ready` waits for its players, in seconds.
READY_WITHIN_MIN, READY_WITHIN_DEFAULT, READY_WITHIN_MAX = 10, 120, 900
# Exactly what is accepted: the schema gives this pattern, and nothing else is checked.
WEBHOOK_URL_PATTERN = (
    r"^https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?(/[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]*)?$"
)
WEBHOOK_URL_ALLOWED = _("A webhook's URL is http:// or https://, a host name or address (letters "
                        "A to Z, digits, dots and hyphens), an optional port and a path, e.g. "
                        "https://example.com/batak/events.")


LANGUAGE_HELP = ("The player's language, for what is sent about them (webhooks). Left out, "
                 "an existing player's stays as it was; a new player has none.")
TOKEN_HELP = ("A player token for the platform's app: `Authorization: Token <token>` on the "
              "ordinary endpoints. It lapses at `token_expiry` (use does not extend it); ask for "
              "a new one with PUT or POST …/token.")


def revoke_others_field() -> StrictBooleanField:
    return StrictBooleanField(
        default=False,
        help_text="true: every earlier token of the player stops at once and the new one is "
        "their only one; false (the default): earlier tokens keep working until they lapse.",
    )


class PlayerInputSerializer(StrictInputSerializer):
    display_name = StrictRegexField(NAME_PATTERN, NAME_ALLOWED, max_length=64, min_length=1)
    # No default: a default outside its own enum is an invalid schema, and generated clients
    # drop the whole operation (openapi-python-client did).
    language = StrictChoiceField(
        choices=[code for code, _ in settings.LANGUAGES], required=False, help_text=LANGUAGE_HELP,
    )
    revoke_others = revoke_others_field()


class PlayerChangesSerializer(StrictInputSerializer):
    display_name = StrictRegexField(NAME_PATTERN, NAME_ALLOWED, max_length=64, min_length=1,
                                    required=False, help_text="Left out: as it was.")
    language = StrictChoiceField(
        choices=[code for code, _ in settings.LANGUAGES], required=False, help_text=LANGUAGE_HELP,
    )


class NewTokenSerializer(StrictInputSerializer):
    revoke_others = revoke_others_field()


class PlayerTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text=TOKEN_HELP)
    token_expiry = serializers.DateTimeField()


class PlayerSerializer(serializers.Serializer):
    external_id = serializers.CharField()
    display_name = serializers.CharField()
    language = serializers.CharField()
    token = serializers.CharField(help_text=TOKEN_HELP)
    token_expiry = serializers.DateTimeField()


class PlatformPlayerSerializer(serializers.Serializer):
    external_id = serializers.CharField()
    display_name = serializers.CharField()
    language = serializers.CharField(help_text="Empty: none set.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(
        help_text="The last PUT or PATCH (issuing a token alone changes nothing)."
    )
    active_tokens = serializers.IntegerField(help_text="Player tokens not yet lapsed.")
    matches_in_play = serializers.ListField(
        child=serializers.UUIDField(),
        help_text="The matches, waiting or in play, at which the player has a seat they have "
        "not left.",
    )


class PlatformOtherSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    display_name = serializers.CharField(help_text="As the seat was taken.")
    external_id = serializers.CharField(
        allow_null=True, help_text="Your platform's id of the player; null for a computer player."
    )
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, allow_null=True)


class PlatformPlayedMatchSerializer(PlayedMatchFields):
    others = PlatformOtherSeatSerializer(many=True)


class PlayerListQuerySerializer(serializers.Serializer):
    external_id_prefix = serializers.RegexField(
        EXTERNAL_ID_PREFIX_PATTERN, required=False, error_messages={"invalid": EXTERNAL_ID_ALLOWED},
        help_text="Only the players whose id starts so.",
    )
    updated_since = serializers.DateTimeField(
        required=False, help_text="Only the players created or changed at or after this time."
    )


class PlatformSeatSerializer(StrictInputSerializer):
    kind = StrictChoiceField(
        choices=[("player", "player"), ("bot", "bot"), ("open", "open")],
        help_text="`player`: the platform's player `external_id`; `bot`: a computer player; "
        "`open`: a seat one of the platform's players takes with their player token (`POST "
        "/matches/{id}/join` of a public match, `POST /invitations/{code}/join` of a private "
        "one). Nobody but the platform's players sits at its matches.",
    )
    external_id = StrictRegexField(EXTERNAL_ID_PATTERN, EXTERNAL_ID_ALLOWED, required=False,
                                   help_text="Required for `player`, refused otherwise.")
    bot_level = StrictChoiceField(choices=BotLevel.choices, required=False,
                                  help_text="Required for `bot`, refused otherwise.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        if (kind == "player") != ("external_id" in attrs):
            raise serializers.ValidationError({"external_id": ["Only and always for `player`."]})
        if (kind == "bot") != ("bot_level" in attrs):
            raise serializers.ValidationError({"bot_level": ["Only and always for `bot`."]})
        return attrs


class PlatformMatchInputSerializer(StrictInputSerializer):
    game = StrictChoiceField(choices=GameChoice.choices)
    rules = RuleOverridesSerializer(required=False)
    deal = deal_notation_field()
    deals = StrictIntegerField(min_value=1, max_value=engine.MAX_DEALS, default=4)
    # many=True hands min_length/max_length to the ListSerializer; the stubs do not list them.
    seats = PlatformSeatSerializer(many=True, min_length=4, max_length=4)  # type: ignore[call-arg]
    visibility = StrictChoiceField(choices=Visibility.choices, default=Visibility.PRIVATE)
    rated = StrictBooleanField(
        default=False,
        help_text="A rated table: the players' ratings (among the platform's players) change "
        "as it finishes. Needs the game's default rules and at least two players' or open "
        "seats; the platform's players count as named accounts.",
    )
    hints = StrictBooleanField(default=False, help_text=HINTS_HELP)
    clock = ClockSerializer(
        required=False, allow_null=True,
        help_text="Turn clock; null for none. Default: "
        f"{settings.CLOCK_DEFAULT['bid']} s a call and {settings.CLOCK_DEFAULT['card']} s a card "
        "when more than one seat is a player's or open, none otherwise.",
    )
    start = StrictChoiceField(
        choices=[("now", "now"), ("when_ready", "when_ready")], default="now",
        help_text="`now`: the match starts as it is created (as its last open seat is taken). "
        "`when_ready`: it waits, turn clocks stopped, until each of its players has posted "
        "`POST /matches/{id}/ready` with their player token, or `ready_within` seconds.",
    )
    ready_within = StrictIntegerField(
        min_value=READY_WITHIN_MIN, max_value=READY_WITHIN_MAX, required=False,
        help_text=f"With `when_ready`: seconds (default {READY_WITHIN_DEFAULT}) after which the "
        "match starts anyway, the seats of players not ready on autopilot until they move or "
        "post `return`.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "ready_within" in attrs and attrs["start"] != "when_ready":
            raise serializers.ValidationError({"ready_within": ["Only with `when_ready`."]})
        return attrs


class PlatformMatchSerializer(MatchSerializer):
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True), min_length=4, max_length=4,
        help_text="The external id of the platform's player at each seat (null: none).",
    )
    invitation_code = serializers.CharField(
        allow_null=True,
        help_text="A private match with open seats: the code its players join with (`POST "
        "/invitations/{code}/join`); null otherwise, and once the match started.",
    )


# A batch's size, and how far ahead its matches may be scheduled.
MAX_BATCH = 500
MAX_SCHEDULE_DAYS = 7


class MatchBatchInputSerializer(StrictInputSerializer):
    # many=True hands min_length/max_length to the ListSerializer; the stubs do not list them.
    matches = PlatformMatchInputSerializer(  # type: ignore[call-arg]
        many=True, min_length=1, max_length=MAX_BATCH,
        help_text=f"1 to {MAX_BATCH} matches, each as `createPlatformMatch` takes it.",
    )
    starts_at = serializers.DateTimeField(
        required=False,
        help_text="When every match of the batch starts, its turn clocks with it (its seats "
        "ready from the first: no `start`), once no seat of it is open; at most "
        f"{MAX_SCHEDULE_DAYS} days ahead. Left out: each starts as `start` says.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        starts_at = attrs.get("starts_at")
        if starts_at is None:
            return attrs
        now = timezone.now()
        if not now <= starts_at <= now + timedelta(days=MAX_SCHEDULE_DAYS):
            raise serializers.ValidationError({"starts_at": [gettext(
                "A scheduled start is a time to come, at most %(days)d days ahead."
            ) % {"days": MAX_SCHEDULE_DAYS}]})
        if any(match["start"] != "now" for match in attrs["matches"]):
            raise serializers.ValidationError({"starts_at": [gettext(
                "Scheduled matches start at their time: leave `start` out of them."
            )]})
        return attrs


class MatchBatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    starts_at = serializers.DateTimeField(allow_null=True,
                                          help_text="When its matches start; null: unscheduled.")
    match_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class MatchBatchDetailSerializer(MatchBatchSerializer):
    matches = PlatformMatchSerializer(
        many=True, help_text="In the order they were asked for (a match purged since, "
        "with its history, is left out).",
    )


class BatchCancelledSerializer(serializers.Serializer):
    cancelled = serializers.IntegerField(help_text="Matches still waiting, now cancelled.")
    abandoned = serializers.IntegerField(help_text="Matches in play, now abandoned.")


# What a subscription may name: the event types, or `*` for all of them.
SUBSCRIBED_TYPES = [*EventType.choices, (EVERY_EVENT_TYPE, "Every type, those to come included")]


class SubscriptionInputSerializer(StrictInputSerializer):
    url = StrictRegexField(
        WEBHOOK_URL_PATTERN, WEBHOOK_URL_ALLOWED, max_length=500,
        help_text="Where to POST the events: an http:// or https:// URL (the host name or "
        "address, an optional port, a path) of a public address: a host that is, or resolves "
        "to, a private, loopback, link-local or other special-purpose address is refused.",
    )
    event_types = serializers.ListField(
        child=StrictChoiceField(choices=SUBSCRIBED_TYPES), min_length=1,
        max_length=len(SUBSCRIBED_TYPES),
        help_text="The event types to send, or `[\"*\"]`: every type, those added later "
        "included.",
    )

    def validate_url(self, url: str) -> str:
        # Checked again at every attempt: a name may resolve elsewhere later.
        if not settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
            host = urllib.parse.urlsplit(url).hostname or ""
            try:
                public_addresses(host)
            except AddressNotAllowed:
                raise serializers.ValidationError(gettext(
                    "Webhooks go only to public addresses: %(host)s is not one, or does not "
                    "resolve to one."
                ) % {"host": host}) from None
        return url


class SubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="As subscribed.")
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=SUBSCRIBED_TYPES),
        help_text="As subscribed: event types, or `*` for every type.")
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class NewSubscriptionSerializer(SubscriptionSerializer):
    secret = serializers.CharField(
        help_text="The signing secret (`whsec_…`): verify each webhook's `webhook-signature` "
        "with it, as the Standard Webhooks libraries do. Shown only now."
    )


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event_id = serializers.CharField(help_text="The `webhook-id` of every attempt.")
    event_type = serializers.ChoiceField(choices=EventType.choices)
    match_id = serializers.UUIDField(allow_null=True,
                                     help_text="Null for a player's event (`player.erased`).")
    sequence = serializers.IntegerField(
        allow_null=True, help_text="The event's place among its match's events (the body's "
        "`sequence`); null for a player's event."
    )
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_latency_ms = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    next_attempt_at = serializers.DateTimeField(allow_null=True,
                                                help_text="While pending: the next attempt.")
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class RecoverInputSerializer(StrictInputSerializer):
    since = serializers.DateTimeField(help_text="Events created at or after this.")
    until = serializers.DateTimeField(required=False,
                                      help_text="Events created before this; left out: now.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "until" in attrs and attrs["until"] <= attrs["since"]:
            raise serializers.ValidationError(
                {"until": [gettext("The end of the range must come after its start.")]}
            )
        return attrs


class ReplayInputSerializer(RecoverInputSerializer):
    event_types = serializers.ListField(
        child=StrictChoiceField(choices=EventType.choices), min_length=1,
        max_length=len(EventType.choices), required=False,
        help_text="Only these types (among the subscription's); left out: all of its types.",
    )
    match_id = serializers.UUIDField(required=False, help_text="Only this match's events.")


class ReplaySerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Events sent again (at most 500 a call).")
    next_since = serializers.DateTimeField(
        allow_null=True, help_text="More events were in the range: call again with this as "
        "`since` (null: none)."
    )


# --- webhook payloads (the schema's `webhooks`) -----------------------------------------------


class TurnStartedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField()
    seat = seat_field()
    external_id = serializers.CharField(help_text="The platform's player to act.")
    deal_number = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=PHASES)
    deadline = serializers.DateTimeField(allow_null=True,
                                         help_text="When their turn clock runs out, if any.")


class DealEndedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField()
    deal_number = serializers.IntegerField()
    deal_sequence = serializers.IntegerField()
    scores = seat_list()
    outcomes = serializers.ListField(child=serializers.ChoiceField(choices=OUTCOMES))
    totals = seat_list()
    players = serializers.ListField(child=serializers.CharField(allow_null=True))


class MatchFinishedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField()
    totals = seat_list()
    ranking = seat_list(help_text="Place per seat (1 = first; ties share).")
    players = serializers.ListField(child=serializers.CharField(allow_null=True))


class SeatTimedOutSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The version of the move made for them.")
    seat = seat_field()
    external_id = serializers.CharField(allow_null=True)
    autopilot = serializers.BooleanField(help_text="The seat is now on autopilot.")


class MatchStartedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    players = serializers.ListField(child=serializers.CharField(allow_null=True))


class MatchCancelledSerializer(MatchStartedSerializer):
    pass


class MatchAbandonedSerializer(MatchStartedSerializer):
    totals = seat_list(help_text="The points so far; an abandoned match has no ranking.")


class SeatChangedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The match's version when it happened.")
    seat = seat_field()
    external_id = serializers.CharField(allow_null=True,
                                        help_text="The platform's player at the seat.")


class RematchOfferedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField(help_text="The finished match.")
    version = serializers.IntegerField(help_text="The finished match's last version.")
    seat = seat_field(help_text="The offerer's seat.")
    external_id = serializers.CharField(allow_null=True,
                                        help_text="The platform's player who offered it.")
    asked = serializers.ListField(
        child=seat_field(), help_text="The seats of the people asked, the offerer among them "
        "(the computer players, and those taking a leaver's seat, accept at once)."
    )
    expires_at = serializers.DateTimeField(help_text="Unanswered by then, the offer expires.")


class RematchStartedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField(help_text="The finished match.")
    version = serializers.IntegerField(help_text="The finished match's last version.")
    new_match_id = serializers.UUIDField(help_text="The rematch (its own events follow, "
                                         "`match.started` first, in its own sequence).")
    players = serializers.ListField(child=serializers.CharField(allow_null=True),
                                    help_text="The platform's players by the rematch's seats "
                                    "(rotated: seat i's player sits at (i + 1) % 4).")


class PlayerRatingChangeSerializer(serializers.Serializer):
    seat = seat_field()
    external_id = serializers.CharField(allow_null=True)
    place = serializers.IntegerField(help_text="The place as rated: a leaver's is last.")
    rating_before = serializers.IntegerField()
    rating_after = serializers.IntegerField()
    delta = serializers.IntegerField()
    deviation = serializers.IntegerField(help_text="The rating's deviation after the match.")


class RatingChangedSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The match's last version.")
    changes = PlayerRatingChangeSerializer(many=True, help_text="One per rated person, by seat.")


class PlayerErasedSerializer(serializers.Serializer):
    external_id = serializers.CharField(
        help_text="Your id of the player erased; free from now on (a PUT makes a new player)."
    )
    reason = serializers.ChoiceField(
        choices=ErasureReason.choices, help_text="`platform`: you erased them "
        "(deletePlatformPlayer); `closed`: they closed their account (closeAccount); "
        "`staff`: the service's staff erased them."
    )


class DealAnalysedSerializer(AnalysisReadyEventSerializer):
    version = serializers.IntegerField(help_text="The match's version when it was recorded.")


def envelope(
    event_type: str, data: type[serializers.Serializer], *, of_a_match: bool = True
) -> type[serializers.Serializer]:
    """A webhook body: `{type, timestamp, sequence, data}`; a player's event (of no match)
    has no `sequence`."""
    name = "".join(part.capitalize() for part in event_type.replace(".", "_").split("_"))
    sequence = {"sequence": serializers.IntegerField(
        help_text="Increases with each event of the match (not by one: other types, and "
        "other subscriptions' types, take numbers too; several events may share a match "
        "`version`). Order a match's events by it."
    )} if of_a_match else {}
    return type(f"{name}WebhookSerializer", (serializers.Serializer,), {
        "type": serializers.ChoiceField(choices=[event_type]),
        "timestamp": serializers.DateTimeField(),
        **sequence,
        "data": data(),
        "__module__": __name__,
    })


WEBHOOK_BODIES = {
    EventType.TURN_STARTED: envelope(EventType.TURN_STARTED, TurnStartedSerializer),
    EventType.DEAL_ENDED: envelope(EventType.DEAL_ENDED, DealEndedSerializer),
    EventType.MATCH_FINISHED: envelope(EventType.MATCH_FINISHED, MatchFinishedSerializer),
    EventType.SEAT_TIMED_OUT: envelope(EventType.SEAT_TIMED_OUT, SeatTimedOutSerializer),
    EventType.MATCH_STARTED: envelope(EventType.MATCH_STARTED, MatchStartedSerializer),
    EventType.MATCH_CANCELLED: envelope(EventType.MATCH_CANCELLED, MatchCancelledSerializer),
    EventType.MATCH_ABANDONED: envelope(EventType.MATCH_ABANDONED, MatchAbandonedSerializer),
    EventType.SEAT_TAKEN: envelope(EventType.SEAT_TAKEN, SeatChangedSerializer),
    EventType.SEAT_LEFT: envelope(EventType.SEAT_LEFT, SeatChangedSerializer),
    EventType.AUTOPILOT_ON: envelope(EventType.AUTOPILOT_ON, SeatChangedSerializer),
    EventType.AUTOPILOT_OFF: envelope(EventType.AUTOPILOT_OFF, SeatChangedSerializer),
    EventType.REMATCH_OFFERED: envelope(EventType.REMATCH_OFFERED, RematchOfferedSerializer),
    EventType.REMATCH_STARTED: envelope(EventType.REMATCH_STARTED, RematchStartedSerializer),
    EventType.RATING_CHANGED: envelope(EventType.RATING_CHANGED, RatingChangedSerializer),
    EventType.PLAYER_ERASED: envelope(EventType.PLAYER_ERASED, PlayerErasedSerializer,
                                      of_a_match=False),
    EventType.DEAL_ANALYSED: envelope(EventType.DEAL_ANALYSED, DealAnalysedSerializer),
}


class PlatformLeaderboardEntrySerializer(LeaderboardEntrySerializer):
    external_id = serializers.CharField(
        allow_null=True, help_text="Your id of the player (null: a player since erased).",
    )


class PlatformLeaderboardSerializer(LeaderboardPageSerializer):
    results = PlatformLeaderboardEntrySerializer(many=True)
