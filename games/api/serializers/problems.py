"""Errors: the problem document every error response is (RFC 9457)."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.fields import REASONS, card_field
from games.api.serializers.play import ActionSerializer
from games.models import MatchStatus


class FieldErrorSerializer(serializers.Serializer):
    field = serializers.CharField()
    code = serializers.CharField()
    message = serializers.CharField()


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details; every error response has this shape."""

    type = serializers.CharField(help_text=(
        "A URL naming the problem: its `code`'s entry on the errors page of the docs "
        "(the deployment's PROBLEM_TYPE_BASE_URL followed by the code)."
    ))
    title = serializers.CharField()
    status = serializers.IntegerField()
    code = serializers.CharField(help_text="Stable error code (for refused moves: the reason).")
    detail = serializers.CharField(help_text="A sentence in the request's language.")
    # A declared field, which DRF's metaclass takes out of the class body (the property
    # `Serializer.errors` stays); the stubs see it as overriding that property.
    errors = FieldErrorSerializer(many=True, required=False)  # type: ignore[assignment]
    reason = serializers.ChoiceField(choices=REASONS, required=False)
    legal_actions = ActionSerializer(many=True, required=False)
    legal_cards = serializers.ListField(child=card_field(), required=False)
    current_version = serializers.IntegerField(required=False)
    field = serializers.CharField(required=False)
    allowed = serializers.ListField(child=serializers.JSONField(), required=False,
                                    allow_null=True)
    limit = serializers.IntegerField(required=False, help_text="`request_too_large`: in bytes.")
    line = serializers.IntegerField(
        required=False, help_text="`invalid_deal`: the line of the deal's notation refused.",
    )
    match_status = serializers.ChoiceField(
        choices=MatchStatus.choices, required=False,
        help_text="`match_over`: how the match ended.",
    )
