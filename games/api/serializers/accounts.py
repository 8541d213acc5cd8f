"""Accounts: signing up (as a guest or with a name), logging in, the user and their token."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.fields import (
    MAX_USERNAME_LENGTH,
    MIN_USERNAME_LENGTH,
    PASSWORD_ALLOWED,
    PASSWORD_PATTERN,
    USERNAME_ALLOWED,
    USERNAME_PATTERN,
    StrictInputSerializer,
    StrictRegexField,
    name_field,
)


class GuestInputSerializer(StrictInputSerializer):
    display_name = name_field()


class RegisterInputSerializer(StrictInputSerializer):
    username = StrictRegexField(
        USERNAME_PATTERN, USERNAME_ALLOWED, max_length=MAX_USERNAME_LENGTH,
        help_text=f"{MIN_USERNAME_LENGTH} to {MAX_USERNAME_LENGTH} of the letters A-Z and a-z, "
        "digits and `_ . @ + -`.",
    )
    password = StrictRegexField(PASSWORD_PATTERN, PASSWORD_ALLOWED, min_length=8, max_length=128,
                                write_only=True)
    display_name = name_field()


class LoginInputSerializer(StrictInputSerializer):
    username = StrictRegexField(USERNAME_PATTERN, USERNAME_ALLOWED,
                                max_length=MAX_USERNAME_LENGTH)
    password = StrictRegexField(PASSWORD_PATTERN, PASSWORD_ALLOWED, max_length=128,
                                write_only=True)


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    is_guest = serializers.BooleanField()
    is_staff = serializers.BooleanField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
    expiry = serializers.DateTimeField(
        help_text="When the token lapses if unused; each use moves it on (at most hourly)."
    )
    user = UserSerializer()
