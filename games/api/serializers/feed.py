"""What anyone may follow of a match: the spectators' view, the event feed and the records of
ended deals."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.analysis import AnalysisReadyEventSerializer
from games.api.serializers.fields import (
    OUTCOMES,
    PHASES,
    SUIT_CHOICES,
    card_field,
    documented_as_union,
    seat_field,
    seat_list,
)
from games.api.serializers.matches import (
    SeatSerializer,
    TableFactsSerializer,
    TableRulesSerializer,
)
from games.api.serializers.play import (
    ActionSerializer,
    AuctionCallSerializer,
    DealScoreSerializer,
    EndedDealSerializer,
    RefusalSerializer,
    RematchOfferSerializer,
    TrickSerializer,
    kinds_of,
)
from games.models import ActionOrigin, GameChoice, MatchStatus


class PublicDealSerializer(serializers.Serializer):
    """A deal in play as anyone may see it: no hand but a face-up dummy."""

    number = serializers.IntegerField()
    sequence = serializers.IntegerField()
    dealer = seat_field()
    phase = serializers.ChoiceField(choices=PHASES)
    turn = seat_field(allow_null=True)
    to_act = seat_field(allow_null=True)
    hand_sizes = seat_list()
    dummy = seat_field(allow_null=True)
    dummy_hand = serializers.ListField(child=card_field(), allow_null=True)
    auction = AuctionCallSerializer(many=True)
    high_bid = serializers.IntegerField(allow_null=True)
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True)
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    trump_broken = serializers.BooleanField()
    tricks = TrickSerializer(many=True)
    current_trick = TrickSerializer(allow_null=True)
    last_trick = TrickSerializer(allow_null=True)
    tricks_won = seat_list()
    redeal_requested_by = seat_field(allow_null=True)
    score = DealScoreSerializer(allow_null=True)
    commitment = serializers.CharField()


class SpectatorViewSerializer(TableFactsSerializer):
    match_id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    version = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    totals = seat_list()
    ranking = seat_list(allow_null=True)
    spectators = serializers.IntegerField(help_text="People watching, you among them.")
    deal = PublicDealSerializer(allow_null=True, help_text="The deal in play, if any.")
    previous_deal = EndedDealSerializer(allow_null=True)


class ActingSeatSerializer(serializers.Serializer):
    seat = seat_field(help_text="The seat that submitted it.")


@documented_as_union(
    "LoggedAction", kinds_of("LoggedAction", ActingSeatSerializer),
    "An action of a deal's log: the seat that submitted it, `kind` and the one argument that "
    "kind takes.",
)
class LoggedActionSerializer(ActingSeatSerializer, ActionSerializer):
    # What the server writes: `seat`, then the action as the seat view lists it.
    pass


class DealRecordSerializer(EndedDealSerializer):
    dealer = seat_field()
    hands = serializers.ListField(
        child=serializers.ListField(child=card_field(), allow_null=True),
        help_text="Initial hands, seats 0..3; while a deal set's cards are sealed, null but "
        "your own seat's.",
    )
    deck = serializers.ListField(child=card_field(), allow_null=True,
                                 help_text="The shuffled deck order; null while sealed.")
    salt = serializers.CharField(allow_null=True, help_text="Null while sealed.")
    commitment = serializers.CharField()
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                          allow_null=True)
    auction = AuctionCallSerializer(many=True)
    actions = LoggedActionSerializer(many=True, help_text="The action log.")
    tricks = TrickSerializer(many=True)
    redeal_requested_by = seat_field(allow_null=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class EventFieldsSerializer(serializers.Serializer):
    # What every event has besides its action and time (a comment: the schema would give a
    # docstring as the description of every kind of event).

    version = serializers.IntegerField(help_text="The match version this action made.")
    deal_number = serializers.IntegerField()
    deal_sequence = serializers.IntegerField()
    seat = seat_field(help_text="Whose call or card it is (for a face-up dummy's card, the "
                      "dummy's seat).")
    submitted_by = seat_field(help_text="The seat that submitted it (the declarer for a dummy).")
    origin = serializers.ChoiceField(
        choices=ActionOrigin.choices,
        help_text="`player`: the seat's own player; `timeout`: a computer player, as the "
        "person's clock ran out; `autopilot`: a computer player, the seat being on autopilot; "
        "`stand_in`: a computer player, the person having left.",
    )


@documented_as_union(
    "Event",
    kinds_of("Event", EventFieldsSerializer, lambda: {"created_at": serializers.DateTimeField()}),
    "An action applied to the match: who made it and how, `kind` and the one argument that "
    "kind takes.",
)
class EventSerializer(EventFieldsSerializer, ActionSerializer):
    # What the server writes (the fields in this order); the schema's `Event` is the union of
    # one member a kind of action.

    created_at = serializers.DateTimeField()


class EventPageSerializer(serializers.Serializer):
    events = EventSerializer(many=True, help_text="Oldest first, at most `limit`.")
    next_after = serializers.IntegerField(
        help_text="Pass as `after` for the next page: the page's `version` when the page holds "
        "every action up to it (versions without an action, such as the match's end by "
        "abandonment, are passed too), else the last event's version."
    )
    has_more = serializers.BooleanField(
        help_text="More actions after `next_after` already exist: ask again without waiting."
    )
    version = serializers.IntegerField(help_text="The match version this page was read at.")
    status = serializers.ChoiceField(choices=MatchStatus.choices)


# --- the live stream's other events (games/api/streams.py) -------------------------------------


class DealEndedEventSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The version of the card that ended the deal.")
    deal_number = serializers.IntegerField()
    deal_sequence = serializers.IntegerField()
    scores = seat_list(help_text="The deal's points per seat.")
    outcomes = serializers.ListField(child=serializers.ChoiceField(choices=OUTCOMES),
                                     min_length=4, max_length=4)
    totals = seat_list(help_text="The match's points per seat after this deal.")


class ClockEventSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The match version the clock is for.")
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the turn clock of the person to act runs out; null: "
        "no clock is running (a computer player is to act, or the table has none)."
    )


class SeatStateSerializer(serializers.Serializer):
    seat = seat_field()
    open = serializers.BooleanField(help_text="Nobody has taken it yet.")
    ready = serializers.BooleanField(help_text="False only for a person of a match that waits "
                                     "for its people (`start: when_ready`) who has not said "
                                     "ready: still waited for, or not ready by the start.")
    autopilot = serializers.BooleanField(help_text="A computer player plays for its person.")
    left = serializers.BooleanField(help_text="Its person left: a computer player plays it to "
                                    "the end.")


class SeatsEventSerializer(serializers.Serializer):
    seats = SeatStateSerializer(many=True)


# --- a seat's own events: only on its person's own stream --------------------------------------


class HandEventSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        help_text="The match version the hand is at: the card that dealt the deal (the "
        "previous deal's last), or the version the stream (re)started at."
    )
    deal_number = serializers.IntegerField()
    deal_sequence = serializers.IntegerField()
    hand = serializers.ListField(child=card_field(), help_text="The cards you hold now.")
    # No help_text: a described array of a union is read without its discriminator by some
    # generators.
    legal_actions = ActionSerializer(many=True)


class TurnEventSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        help_text="The version to act at: send it as `expected_version` with your action."
    )
    legal_actions = ActionSerializer(many=True)
    legal_cards = serializers.ListField(child=card_field(),
                                        help_text="The cards among `legal_actions`.")
    refusals = RefusalSerializer(many=True, help_text="Why each other card may not be played.")


class StreamEndSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The match's last version.")
    status = serializers.ChoiceField(choices=MatchStatus.choices)


# --- after the finish: the rematch (games/rematch.py) and the ratings --------------------------


class RematchStartedEventSerializer(serializers.Serializer):
    match_id = serializers.UUIDField(help_text="The finished match.")
    new_match_id = serializers.UUIDField(help_text="The rematch: follow it with its own stream.")


class SeatRatingChangeSerializer(serializers.Serializer):
    seat = seat_field()
    place = serializers.IntegerField(help_text="The place as rated: a leaver's is last.")
    rating_before = serializers.IntegerField()
    rating_after = serializers.IntegerField()
    delta = serializers.IntegerField(help_text="`rating_after` - `rating_before`.")
    deviation = serializers.IntegerField(help_text="The rating's deviation after the match.")


class RatingChangedEventSerializer(serializers.Serializer):
    changes = SeatRatingChangeSerializer(many=True, help_text="One per rated person, by seat.")


# Each event the stream sends, by name, and the shape of its data (the schema's `x-sse-events`).
STREAM_EVENTS: dict[str, type[serializers.Serializer]] = {
    "action": EventSerializer,
    "deal_ended": DealEndedEventSerializer,
    "hand": HandEventSerializer,
    "turn": TurnEventSerializer,
    "clock": ClockEventSerializer,
    "seats": SeatsEventSerializer,
    "end": StreamEndSerializer,
    "rating_changed": RatingChangedEventSerializer,
    "analysis_ready": AnalysisReadyEventSerializer,
    "rematch_offered": RematchOfferSerializer,
    "rematch_started": RematchStartedEventSerializer,
}
