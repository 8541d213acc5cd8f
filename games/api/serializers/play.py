"""Playing: a seat's view of its match and deal, the bid estimate, and the bodies of the
actions a seat submits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from games import engine, hints
from games.api.serializers.fields import (
    ACTION_KINDS,
    MAX_TRICKS,
    MAX_VERSION,
    OUTCOMES,
    PHASES,
    REASONS,
    SUIT_CHOICES,
    StrictChoiceField,
    StrictInputSerializer,
    StrictIntegerField,
    card_field,
    card_input,
    documented_as_union,
    kind_field,
    seat_field,
    seat_list,
)
from games.api.serializers.matches import (
    SeatSerializer,
    TableFactsSerializer,
    TableRulesSerializer,
)
from games.models import DealStatus, GameChoice, MatchStatus, RematchStatus

# --- a seat's view -----------------------------------------------------------------------------


class PlayedCardSerializer(serializers.Serializer):
    seat = seat_field()
    card = card_field()


class TrickSerializer(serializers.Serializer):
    leader = seat_field()
    cards = PlayedCardSerializer(many=True, help_text="In play order.")
    winner = seat_field(allow_null=True, help_text="Null while the trick is in play.")


class AuctionCallSerializer(serializers.Serializer):
    seat = seat_field()
    bid = serializers.IntegerField(allow_null=True, help_text="Null for a pass.")


# The argument each kind of action takes, as the schema's union of actions (and of events)
# describes it: the members, one a kind, of `Action` and `Event`.
ACTION_ARGUMENTS: dict[str, Callable[[], dict[str, serializers.Field]]] = {
    "bid": lambda: {"tricks": serializers.IntegerField(help_text="Tricks bid.")},
    "pass": dict,
    "trump": lambda: {"suit": serializers.ChoiceField(choices=SUIT_CHOICES)},
    "announce": lambda: {
        "tricks": serializers.IntegerField(help_text="Tricks announced, 0 meaning none.")
    },
    "play": lambda: {"card": card_field()},
    "redeal": dict,
}
assert list(ACTION_ARGUMENTS) == ACTION_KINDS


def kinds_of(
    suffix: str,
    base: type[serializers.Serializer],
    trailing: Callable[[], dict[str, serializers.Field]] = dict,
    arguments: dict[str, Callable[[], dict[str, serializers.Field]]] = ACTION_ARGUMENTS,
) -> dict[str, type[serializers.Serializer]]:
    """One serializer a kind of action (`BidAction`, …): ``base``'s fields, `kind`, the kind's
    argument (as ``arguments`` gives it) and the ``trailing`` fields."""
    return {
        kind: type(f"{kind.capitalize()}{suffix}Serializer", (base,), {
            "kind": kind_field(kind), **argument(), **trailing(), "__module__": __name__,
        })
        for kind, argument in arguments.items()
    }


@documented_as_union(
    "Action", kinds_of("Action", serializers.Serializer),
    "An action as in the log: `kind` plus the one argument that kind takes.",
)
class ActionSerializer(serializers.Serializer):
    # What the server writes: `kind` plus the one argument that kind takes (the schema's
    # `Action` is the union of those, one member a kind).

    kind = serializers.ChoiceField(choices=ACTION_KINDS)
    tricks = serializers.IntegerField(required=False)
    suit = serializers.ChoiceField(choices=SUIT_CHOICES, required=False)
    card = card_field(required=False)


class RefusalSerializer(serializers.Serializer):
    card = card_field()
    reason = serializers.ChoiceField(choices=REASONS)
    message = serializers.CharField()


class DealScoreSerializer(serializers.Serializer):
    points = seat_list()
    outcomes = serializers.ListField(
        child=serializers.ChoiceField(choices=OUTCOMES)
    )


class DealViewSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="Deal number within the match, from 1.")
    sequence = serializers.IntegerField(help_text="Shuffle number; differs after a redeal.")
    dealer = seat_field()
    phase = serializers.ChoiceField(choices=PHASES)
    turn = seat_field(allow_null=True, help_text="Seat whose call or card is next.")
    to_act = seat_field(allow_null=True, help_text="Seat that must submit it (declarer for dummy).")
    hand = serializers.ListField(child=card_field(), help_text="Your cards.")
    hand_sizes = seat_list()
    dummy = seat_field(allow_null=True)
    dummy_hand = serializers.ListField(child=card_field(), allow_null=True)
    auction = AuctionCallSerializer(many=True)
    high_bid = serializers.IntegerField(allow_null=True)
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True, help_text="The contract's bid.")
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    announcements = serializers.ListField(child=serializers.IntegerField(allow_null=True))
    trump_broken = serializers.BooleanField()
    tricks = TrickSerializer(many=True, help_text="Completed tricks, in order.")
    current_trick = TrickSerializer(allow_null=True)
    last_trick = TrickSerializer(allow_null=True)
    tricks_won = seat_list()
    legal_actions = ActionSerializer(many=True, help_text="What you may submit now.")
    legal_cards = serializers.ListField(child=card_field())
    refusals = RefusalSerializer(many=True, help_text="Why each other card may not be played.")
    redeal_requested_by = seat_field(allow_null=True)
    score = DealScoreSerializer(allow_null=True)
    commitment = serializers.CharField(
        help_text="SHA-256 of the deck order and a secret salt; both are revealed when the deal "
        "ends (see the deal record)."
    )


class EndedDealSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    sequence = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[DealStatus.FINISHED, DealStatus.REDEALT])
    declarer = seat_field(allow_null=True)
    bid = serializers.IntegerField(allow_null=True)
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    tricks_won = seat_list(allow_null=True)
    scores = seat_list(allow_null=True)
    outcomes = serializers.ListField(
        child=serializers.ChoiceField(choices=OUTCOMES), allow_null=True
    )
    last_trick = TrickSerializer(allow_null=True)


class RematchSeatSerializer(serializers.Serializer):
    seat = seat_field(help_text="The seat at the finished match.")
    new_seat = seat_field(help_text="Where its player sits at the rematch: (seat + 1) % 4.")
    asked = serializers.BooleanField(
        help_text="A person still seated, whose answer is waited for; false: a computer player "
        "(one takes the seat of a person who left), who accepts at once."
    )
    answer = serializers.ChoiceField(
        choices=["accepted", "declined"], allow_null=True,
        help_text="Null while waited for; the offerer's is `accepted`.",
    )


class RematchOfferSerializer(serializers.Serializer):
    match_id = serializers.UUIDField(help_text="The finished match.")
    status = serializers.ChoiceField(
        choices=RematchStatus.choices,
        help_text="`open` until every seat accepted (`accepted`: the rematch started), one "
        "declined, or `expires_at` passed unanswered (`expired`: a new offer may be made).",
    )
    offered_by = seat_field(help_text="The offerer's seat.")
    seats = RematchSeatSerializer(many=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    new_match_id = serializers.UUIDField(allow_null=True,
                                         help_text="The rematch, once it started.")


class SeatViewSerializer(TableFactsSerializer):
    match_id = serializers.UUIDField()
    game = serializers.ChoiceField(choices=GameChoice.choices)
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    version = serializers.IntegerField(help_text="Send back as `expected_version`.")
    seat = seat_field()
    seats = SeatSerializer(many=True)
    rules = TableRulesSerializer()
    deal_count = serializers.IntegerField()
    totals = seat_list()
    ranking = seat_list(allow_null=True)
    deal = DealViewSerializer(allow_null=True, help_text="The deal in play, if any.")
    previous_deal = EndedDealSerializer(allow_null=True, help_text="The last ended deal.")
    rematch = RematchOfferSerializer(
        allow_null=True,
        help_text="A finished match's rematch offer, whatever became of it (`getRematch` "
        "reads the same); null while the match is in play and when nobody offered one.",
    )


class TrumpEstimateSerializer(serializers.Serializer):
    trump = serializers.ChoiceField(choices=SUIT_CHOICES)
    tricks = serializers.FloatField(help_text="Expected tricks with this trump.")


class BidEstimateSerializer(serializers.Serializer):
    hand = serializers.ListField(child=card_field())
    estimates = TrumpEstimateSerializer(many=True)
    best_trump = serializers.ChoiceField(choices=SUIT_CHOICES)
    team = serializers.BooleanField(help_text="True when the figures count the partner's tricks.")


class ChoiceValueSerializer(serializers.Serializer):
    action = ActionSerializer()
    points = serializers.FloatField(
        help_text="The score the seat expects for the deal with this choice (its team's, in the "
        "partnership game)."
    )
    tricks = serializers.FloatField(
        allow_null=True,
        help_text="The tricks expected with it, for a call, trump or announcement (with the "
        "best trump for a bid); null for a card.",
    )


# The schema's `HintReason` (ENUM_NAME_OVERRIDES in settings).
HINT_REASONS = list(hints.REASONS)


class HintSerializer(serializers.Serializer):
    """A hint: the suggested call or card (`action`, the best choice), one sentence why, and
    what each legal choice is expected to bring."""

    version = serializers.IntegerField(help_text="The match's version the hint is for.")
    # No help_text: a described reference is an `allOf`, which openapi-typescript reads as an
    # Action without its `kind`, the discriminator a client needs.
    action = ActionSerializer()
    reason_code = serializers.ChoiceField(choices=HINT_REASONS,
                                          help_text="Which kind of reason `reason` gives.")
    reason = serializers.CharField(help_text="One sentence why, in your language.")
    choices = ChoiceValueSerializer(many=True, help_text="Every legal choice, best first.")
    team = serializers.BooleanField(help_text="True when the figures count the partner's too.")


# --- submitting actions ------------------------------------------------------------------------

# The argument each kind of action takes in a request, with the bounds a request is held to:
# the members, one a kind, of the schema's `ActionInput`. A bid below the table's `min_bid` or
# not above the high bid is the engine's to refuse (422, with the reason).
ACTION_INPUTS: dict[str, Callable[[], dict[str, serializers.Field]]] = {
    "bid": lambda: {"tricks": StrictIntegerField(
        min_value=1, max_value=MAX_TRICKS,
        help_text="Tricks you promise: at least min_bid and above the high bid, else 422.")},
    "pass": dict,
    "trump": lambda: {"suit": StrictChoiceField(choices=SUIT_CHOICES)},
    "announce": lambda: {"tricks": StrictIntegerField(
        min_value=0, max_value=MAX_TRICKS, help_text="Tricks you will take, 0 meaning none.")},
    # No help_text: a described reference is an `allOf`, which some generators type loosely.
    "play": lambda: {"card": card_input()},
    "redeal": dict,
}
assert list(ACTION_INPUTS) == ACTION_KINDS


def _expected_version() -> dict[str, serializers.Field]:
    return {"expected_version": StrictIntegerField(
        required=False, min_value=0, max_value=MAX_VERSION,
        help_text="The version your view or stream showed; a different current version "
        "answers 409.",
    )}


@documented_as_union(
    "ActionInput",
    kinds_of("ActionInput", StrictInputSerializer, _expected_version, arguments=ACTION_INPUTS),
    "An entry of `legal_actions` exactly as the seat view or the stream gave it, plus the "
    "version it was given at.",
)
class ActionInputSerializer(StrictInputSerializer):
    # Read as one object: `kind`, then the argument that kind takes and no other (the schema's
    # `ActionInput` is the union of the kinds' members). Validated into the engine's action.

    kind = StrictChoiceField(choices=ACTION_KINDS)
    tricks = StrictIntegerField(required=False, min_value=0, max_value=MAX_TRICKS)
    suit = StrictChoiceField(choices=SUIT_CHOICES, required=False)
    card = card_input(required=False)
    expected_version = _expected_version()["expected_version"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        member = ACTION_INPUTS[kind]()
        arguments = {name: value for name, value in attrs.items()
                     if name not in ("kind", "expected_version")}
        errors: dict[str, Any] = {
            name: [ErrorDetail(str(_("This field is not part of this kind of action.")),
                               code="unknown_field")]
            for name in sorted(set(arguments) - set(member))
        }
        for name, field in member.items():
            if name not in arguments:
                errors[name] = [ErrorDetail(str(field.error_messages["required"]),
                                            code="required")]
            else:
                try:
                    field.run_validation(arguments[name])  # the kind's bounds: a bid's from 1
                except serializers.ValidationError as error:
                    errors[name] = error.detail
        if errors:
            raise serializers.ValidationError(errors)
        action = engine.action_from_dict({"kind": kind, **arguments})
        return {"action": action, "expected_version": attrs.get("expected_version")}
