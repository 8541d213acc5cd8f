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
    StrictBooleanField,
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


class CloseAccountInputSerializer(StrictInputSerializer):
    password = StrictRegexField(
        PASSWORD_PATTERN, PASSWORD_ALLOWED, max_length=128, write_only=True, required=False,
        help_text="The account's password (an account with one must send it).",
    )
    confirm = StrictBooleanField(
        required=False, default=False,
        help_text="true: close it (an account without a password: a guest's, a platform's "
        "player's).",
    )


# --- the export (exportMyData): documented here, written by games/privacy.py -------------------


class ExportedAccountSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    email = serializers.CharField(help_text="Empty: the service asks for none.")
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True)
    has_password = serializers.BooleanField()


class ExportedSeatSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    display_name = serializers.CharField(help_text="As everyone at the table saw it.")
    computer = serializers.BooleanField()
    you = serializers.BooleanField()


class ExportedActionSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    kind = serializers.CharField(help_text="`bid`, `pass`, `trump`, `announce`, `play`, "
                                 "`redeal`, with the action's own field, if any:")
    tricks = serializers.IntegerField(required=False, help_text="A bid's or an announcement's.")
    suit = serializers.CharField(required=False, help_text="The trump chosen.")
    card = serializers.CharField(required=False, help_text="The card played.")
    origin = serializers.CharField(help_text="`player`, or how a computer player made it.")
    at = serializers.DateTimeField()


class ExportedDealSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    dealer = serializers.IntegerField()
    hand = serializers.ListField(child=serializers.CharField(),
                                 help_text="Your own seat's cards as dealt; never another's.")
    declarer = serializers.IntegerField(allow_null=True)
    bid = serializers.IntegerField(allow_null=True)
    trump = serializers.CharField()
    tricks = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    actions = ExportedActionSerializer(many=True, help_text="Every seat's, all public at the "
                                       "table.")


class ExportedMatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    status = serializers.CharField()
    rated = serializers.BooleanField()
    deal_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seat = serializers.IntegerField(help_text="Your seat.")
    seats = ExportedSeatSerializer(many=True)
    totals = serializers.ListField(child=serializers.IntegerField())
    ranking = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    rematch = serializers.DictField(allow_null=True, help_text="Its rematch offer's status.")
    deals = ExportedDealSerializer(many=True, help_text="The ended deals; a deal in play has "
                                   "none of its cards here.")


class DataExportSerializer(serializers.Serializer):
    account = ExportedAccountSerializer()
    matches = ExportedMatchSerializer(many=True, help_text="Every match you had a seat at, "
                                      "oldest first.")
    ratings = serializers.ListField(child=serializers.DictField(),
                                    help_text="Per game: rating, deviation, matches, wins.")
    rating_changes = serializers.ListField(child=serializers.DictField(),
                                           help_text="What each rated match did to a rating.")
    seasons = serializers.ListField(child=serializers.DictField(),
                                    help_text="Weekly and monthly seasons' points.")
    statistics = serializers.ListField(child=serializers.DictField(),
                                       help_text="Per game, as on your player page.")
    privacy = serializers.DictField(help_text="Your privacy settings.")
    tour_tables = serializers.ListField(
        child=serializers.DictField(), help_text="The Tour of Tables: your progress per table."
    )
    tour_matches = serializers.ListField(
        child=serializers.DictField(), help_text="The Tour of Tables: the matches you started."
    )
    deal_set_entries = serializers.ListField(
        child=serializers.DictField(), help_text="Deal sets you played, with your result."
    )
    deal_sets_made = serializers.ListField(
        child=serializers.DictField(), help_text="Deal sets you made from a deal's notation."
    )
    platform_player = serializers.DictField(
        required=False, help_text="Only for a partner platform's player: the platform and "
        "its id of you."
    )
