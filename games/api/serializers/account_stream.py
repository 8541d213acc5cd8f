"""The events of a person's own stream (`streamMyEvents`, games/account_stream.py): each as
`{type, timestamp, data}`, named in the schema by `x-sse-events`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.serializers.fields import PHASES, seat_field, seat_list
from games.models import AccountEventType, GameChoice, MatchStatus


class _OfMatch(serializers.Serializer):
    match_id = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The match's version when it happened.")


class MyMatchSeatedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat.")
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    ready_by = serializers.DateTimeField(
        allow_null=True, help_text="Say you are ready (`markReady`) by then, if asked.")
    starts_at = serializers.DateTimeField(allow_null=True,
                                          help_text="When it starts, if scheduled.")


class MyMatchStatusChangedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat.")
    status = serializers.ChoiceField(choices=MatchStatus.choices)


class MyMatchAbandonedSerializer(MyMatchStatusChangedSerializer):
    totals = seat_list()


class MyMatchFinishedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat.")
    totals = seat_list()
    ranking = seat_list(help_text="Place per seat (1 = first; ties share).")


class MyTurnStartedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat, to act.")
    deal_number = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=PHASES)
    deadline = serializers.DateTimeField(allow_null=True,
                                         help_text="When your turn clock runs out, if any.")


class MySeatTimedOutSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat.")
    autopilot = serializers.BooleanField(help_text="Your seat is now on autopilot.")


class MySeatChangedSerializer(_OfMatch):
    seat = seat_field(help_text="The seat taken or left (`seat.taken`, `seat.left`: at a "
                      "table where you sit, or sat), or yours (autopilot).")


class MyRematchOfferedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat at the finished match.")
    offered_by = seat_field(help_text="The offerer's seat.")
    expires_at = serializers.DateTimeField(help_text="Unanswered by then, the offer expires "
                                           "(`acceptRematch`, `declineRematch`).")


class MyRematchStartedSerializer(_OfMatch):
    new_match_id = serializers.UUIDField(help_text="The rematch.")
    new_seat = seat_field(help_text="Your seat at the rematch.")


class MyRatingChangedSerializer(_OfMatch):
    seat = seat_field(help_text="Your seat.")
    place = serializers.IntegerField(help_text="Your place as rated: a leaver's is last.")
    rating_before = serializers.IntegerField()
    rating_after = serializers.IntegerField()
    delta = serializers.IntegerField()
    deviation = serializers.IntegerField(help_text="Your rating's deviation after the match.")


def envelope(event_type: str, data: type[serializers.Serializer]
             ) -> type[serializers.Serializer]:
    """An event of the stream: `{type, timestamp, data}`. Its `type` is a constant (the
    webhooks' bodies have enums of the same single values, and two components cannot share
    one's name)."""
    name = "".join(part.capitalize() for part in event_type.replace(".", "_").split("_"))
    constant = extend_schema_field({"type": "string", "const": event_type})(
        type(f"Account{name}Type", (serializers.CharField,), {"__module__": __name__}))
    return type(f"Account{name}EventSerializer", (serializers.Serializer,), {
        "type": constant(),
        "timestamp": serializers.DateTimeField(),
        "data": data(),
        "__module__": __name__,
    })


_DATA: dict[AccountEventType, type[serializers.Serializer]] = {
    AccountEventType.MATCH_SEATED: MyMatchSeatedSerializer,
    AccountEventType.MATCH_STARTED: MyMatchStatusChangedSerializer,
    AccountEventType.TURN_STARTED: MyTurnStartedSerializer,
    AccountEventType.MATCH_FINISHED: MyMatchFinishedSerializer,
    AccountEventType.MATCH_CANCELLED: MyMatchStatusChangedSerializer,
    AccountEventType.MATCH_ABANDONED: MyMatchAbandonedSerializer,
    AccountEventType.SEAT_TIMED_OUT: MySeatTimedOutSerializer,
    AccountEventType.SEAT_TAKEN: MySeatChangedSerializer,
    AccountEventType.SEAT_LEFT: MySeatChangedSerializer,
    AccountEventType.AUTOPILOT_ON: MySeatChangedSerializer,
    AccountEventType.AUTOPILOT_OFF: MySeatChangedSerializer,
    AccountEventType.REMATCH_OFFERED: MyRematchOfferedSerializer,
    AccountEventType.REMATCH_STARTED: MyRematchStartedSerializer,
    AccountEventType.RATING_CHANGED: MyRatingChangedSerializer,
}
ACCOUNT_EVENTS = {event_type: envelope(event_type, data) for event_type, data in _DATA.items()}
