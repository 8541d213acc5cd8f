"""What the serializers of every resource share: the strict input fields, the patterns and
value lists requests are checked against, and the seat and card fields."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, TypeVar

from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.serializers import PolymorphicProxySerializerExtension
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.settings import api_settings

from games import engine
from games.engine.cards import ALL_CARDS
from games.engine.rules import AllPass, Direction, Scoring, TrumpLead

if TYPE_CHECKING:
    from drf_spectacular.openapi import AutoSchema
    from drf_spectacular.utils import Direction as SchemaDirection

SORTED_CARDS = sorted(ALL_CARDS, key=lambda c: (c.suit, -c.rank))
CARD_CHOICES = [str(card) for card in SORTED_CARDS]
SUIT_CHOICES = [suit.letter for suit in engine.Suit]
# The names generated clients give the members (the schema's `x-enum-varnames`):
# `NINE_OF_SPADES` for "9S" rather than a generator's `VALUE_5`, `SPADES` for "S".
CARD_NAMES = [f"{card.rank.name}_OF_{card.suit.name}" for card in SORTED_CARDS]
SUIT_NAMES = [suit.name for suit in engine.Suit]
# Value lists of the engine's enums: the serializers use them and the schema names them
# (ENUM_NAME_OVERRIDES in settings).
ACTION_KINDS = [kind.value for kind in engine.ActionKind]
PHASES = [phase.value for phase in engine.Phase]
REASONS = [reason.value for reason in engine.Reason]
OUTCOMES = [outcome.value for outcome in engine.Outcome]
DIRECTIONS = [direction.value for direction in Direction]
ALL_PASS_RULES = [rule.value for rule in AllPass]
TRUMP_LEADS = [rule.value for rule in TrumpLead]
SCORINGS = [scoring.value for scoring in Scoring]


class _Bounds(TypedDict):
    min_value: int
    max_value: int


SEAT: _Bounds = {"min_value": 0, "max_value": 3}
# A card in a request is written as the answers write it (the schema's `Card`); a card outside
# that is told how it is written, in words.
CARD_ALLOWED = _("A card is its rank then its suit, in capitals, as legal_actions write it, "
                 "e.g. QH or TS: the rank 2 to 9, T for ten, J, Q, K or A; the suit S, H, D or C.")
# Names are text without control characters.
NAME_PATTERN = r"^[^\u0000-\u001f\u007f]*$"
NAME_ALLOWED = _("A name may not hold control characters, such as a line break or a tab.")
MIN_USERNAME_LENGTH = 3
# As long as Django's User.username may be.
MAX_USERNAME_LENGTH = 150
USERNAME_PATTERN = f"^[A-Za-z0-9_.@+-]{{{MIN_USERNAME_LENGTH},{MAX_USERNAME_LENGTH}}}$"
USERNAME_ALLOWED = _("A username is 3 to 150 characters, each a letter A to Z or a to z (no "
                     "accented or other letters, such as ş or é), a digit, or one of _ . @ + -")
# A password may hold any character but NUL.
PASSWORD_PATTERN = r"^[^\u0000]*$"
PASSWORD_ALLOWED = _("A password may hold any character but the NUL character.")
MAX_TRICKS = 13
# Versions count a match's actions: far below this in any match.
MAX_VERSION = 2**31 - 1

S = TypeVar("S", bound=serializers.Serializer)


# --- strict input ------------------------------------------------------------------------------
# A request is read exactly as the schema describes it: a field the API does not know is refused
# (400 unknown_field) rather than ignored, and a value of the wrong JSON type is refused rather
# than converted ("5" is no integer, "true" no boolean, 0 no string).


class StrictInputSerializer(serializers.Serializer):
    # An input object that refuses fields it does not declare. (A comment, not a docstring:
    # the schema would give it as the description of every request.)
    # DRF's own sentence names a Python type ("Expected a dictionary, but got list").
    default_error_messages: ClassVar[dict[str, Any]] = {
        "invalid": _("Send a JSON object here, not a list, a string or a number."),
    }

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if data is None and not self.allow_null:
            # DRF would say "No data provided" (a body of `null`), in English only. Keyed as
            # DRF keys its own refusal of a list, so that the errors stay an object.
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [self.error_messages["invalid"]]},
                code="invalid",
            )
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(str(name) for name in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({
                    name: [ErrorDetail(str(_("This field is not part of the API.")),
                                       code="unknown_field")]
                    for name in unknown
                })
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if isinstance(data, float) and not data.is_integer():
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictRegexField(serializers.RegexField):
    def __init__(self, regex: str, allowed: Any, **kwargs: Any) -> None:
        # The pattern is the whole contract: no whitespace trimmed before it is applied.
        super().__init__(regex, trim_whitespace=False, **kwargs)
        # A value outside the pattern is told what the pattern allows, in words (`allowed`),
        # rather than DRF's "This value does not match the required pattern."
        self.error_messages["invalid"] = allowed
        # The schema's `^…$` is ECMA-262's, where `$` is the very end; Python's `$` also
        # matches before a final newline, so the value must match as a whole.
        self.whole = re.compile(regex)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        # JSON may spell a lone surrogate (\ud800), which is no text a database can store.
        if any("\ud800" <= char <= "\udfff" for char in data):
            self.fail("invalid")
        if self.whole.fullmatch(data) is None:
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


def card_input(**kwargs: Any) -> StrictChoiceField:
    """A card in a request: one of the schema's `Card`, else told the notation."""
    return StrictChoiceField(choices=CARD_CHOICES,
                             error_messages={"invalid_choice": CARD_ALLOWED}, **kwargs)


def name_field() -> StrictRegexField:
    return StrictRegexField(NAME_PATTERN, NAME_ALLOWED, max_length=64, required=False,
                            allow_blank=True)


def card_field(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=CARD_CHOICES, **kwargs)


def seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(**SEAT, **kwargs)


def seat_input(**kwargs: Any) -> StrictIntegerField:
    return StrictIntegerField(**SEAT, **kwargs)


def seat_list(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), min_length=4, max_length=4,
                                 **kwargs)


def kind_field(kind: str) -> serializers.ChoiceField:
    """`kind` of one member of a union discriminated by it: `const` in the schema, which clients
    type as that literal (an enum of one value would become a component of its own)."""
    field_class = extend_schema_field({"type": "string", "const": kind})(
        type(f"{kind.capitalize()}KindField", (serializers.ChoiceField,), {})
    )
    return field_class(choices=[kind])


class _UnionExtension(OpenApiSerializerExtension):
    # A serializer documented as a union (`documented_as_union`); this base matches none.
    union: ClassVar[PolymorphicProxySerializer]
    description: ClassVar[str]

    def get_name(self, auto_schema: AutoSchema, direction: SchemaDirection) -> str:
        return str(self.union.component_name)

    def map_serializer(self, auto_schema: AutoSchema, direction: SchemaDirection) -> dict[str, Any]:
        schema: dict[str, Any] = PolymorphicProxySerializerExtension(self.union).map_serializer(
            auto_schema, direction
        )
        return {**schema, "description": self.description}


def documented_as_union(
    name: str, members: dict[str, type[serializers.Serializer]], description: str
) -> Callable[[type[S]], type[S]]:
    """The schema documents the decorated serializer, wherever it appears, as the component
    ``name``: `oneOf` the ``members`` with a discriminator mapping by `kind`, which clients
    generate as a union they narrow by `kind`. The serializer itself writes what it writes."""

    def decorate(serializer_class: type[S]) -> type[S]:
        # Defining the subclass registers it with drf-spectacular.
        type(f"{name}UnionExtension", (_UnionExtension,), {
            "target_class": serializer_class,
            "union": PolymorphicProxySerializer(
                component_name=name, serializers=dict[str, Any](members),
                resource_type_field_name="kind",
            ),
            "description": description,
        })
        return serializer_class

    return decorate
