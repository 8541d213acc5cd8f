"""The account endpoints: sign-up, log-in and tokens, through the accounts service
(games/accounts.py)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import StreamingHttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from knox.models import AuthToken
from rest_framework import status
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import accounts, privacy, selectors
from games.api import examples, lockout, windows
from games.api.base import errors, example, signed_in, streamed_response
from games.api.problems import problem_type
from games.api.serializers.accounts import (
    CloseAccountInputSerializer,
    DataExportSerializer,
    GuestInputSerializer,
    LoginInputSerializer,
    RegisterInputSerializer,
    TokenSerializer,
    UserSerializer,
)
from games.errors import ServiceError


class BadCredentials(ServiceError):
    status = 401
    code = "authentication_failed"
    default_detail = _("Wrong username or password.")


def token_body(user: User) -> dict[str, object]:
    """A new token of ``user``'s, as the API answers it."""
    token, expiry = accounts.issue_token(user)
    return {"token": token, "expiry": expiry, "user": user_body(user)}


def user_body(user: User) -> dict[str, object]:
    return {
        "id": user.pk,
        "username": user.get_username(),
        "display_name": selectors.display_name(user),
        "is_guest": accounts.is_guest(user),
        "is_staff": bool(getattr(user, "is_staff", False)),
    }


class GuestView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (*APIView.throttle_classes, windows.SignUpThrottle)

    @extend_schema(
        operation_id="createGuest", tags=["accounts"], summary="Play as a guest",
        description=(
            "Creates a guest account and returns its token in one call. Each client address "
            "may create so many accounts, guests and registered together, in a while (the "
            "service's GUEST_CREATION_RATE); past "
            "that, 429 `throttled` with `Retry-After`. Keep the token rather than sign up again."
        ),
        request=GuestInputSerializer, responses={201: TokenSerializer, **errors(400)},
        examples=[OpenApiExample("Guest", value={"display_name": "Ayşe"}, request_only=True),
                  OpenApiExample("Token", value=examples.TOKEN, response_only=True,
                                 status_codes=["201"])],
    )
    def post(self, request: Request) -> Response:
        serializer = GuestInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = accounts.create_guest(
            display_name=serializer.validated_data.get("display_name") or ""
        )
        return Response(TokenSerializer(token_body(user)).data, status=status.HTTP_201_CREATED)


class RegisterView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (*APIView.throttle_classes, windows.SignUpThrottle)

    @extend_schema(
        operation_id="register", tags=["accounts"], summary="Register",
        description=(
            "Creates a named account with a password and returns its token. The username is "
            "unique whatever its case (409 `username_taken`); the password must pass the "
            "service's password checks (not too common, not all digits, not like the "
            "username: 400 with the reasons under `password`). New accounts, guests' and "
            "registered, count together per client address (the service's "
            "GUEST_CREATION_RATE); past that, 429 `throttled` with `Retry-After`."
        ),
        request=RegisterInputSerializer,
        responses={201: TokenSerializer, **errors(400, 409)},
        examples=[OpenApiExample("Register", request_only=True,
                                 value={"username": "ayse", "password": "kozmaca-2026",
                                        "display_name": "Ayşe"})],
    )
    def post(self, request: Request) -> Response:
        serializer = RegisterInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            user = accounts.register(
                username=data["username"], password=data["password"],
                display_name=data.get("display_name", ""),
            )
        except DjangoValidationError as error:
            raise ValidationError(
                {"password": [ErrorDetail(message, code=code) for message, code in zip(
                    error.messages, (e.code or "invalid" for e in error.error_list), strict=True
                )]}
            ) from None
        return Response(TokenSerializer(token_body(user)).data, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        operation_id="logIn", tags=["accounts"], summary="Log in",
        description=(
            "Exchanges a username and password for a new token of the account. After "
            f"{settings.LOGIN_FAILURES_PER_ACCOUNT} failed log-ins for one username, or "
            f"{settings.LOGIN_FAILURES_PER_ADDRESS} from one address, within "
            f"{settings.LOGIN_LOCKOUT_SECONDS / 60:g} minutes, log-in is refused with 429 "
            "`login_locked` (and `Retry-After`) until then."
        ),
        request=LoginInputSerializer, responses={200: TokenSerializer, **errors(400, 401)},
        examples=[OpenApiExample("Log in", request_only=True,
                                 value={"username": "ayse", "password": "kozmaca-2026"})],
    )
    def post(self, request: Request) -> Response:
        serializer = LoginInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        username = serializer.validated_data["username"]
        lockout.attempt(request, username)
        user = authenticate(request, **serializer.validated_data)
        if user is None:
            raise BadCredentials()
        lockout.succeeded(request, username)
        return Response(TokenSerializer(token_body(user)).data)


class MeView(APIView):
    @extend_schema(
        operation_id="getMe", tags=["accounts"], summary="Who am I",
        responses={200: UserSerializer, **errors(401)},
        examples=[example("A guest", examples.USER)],
    )
    def get(self, request: Request) -> Response:
        assert request.user.is_authenticated  # IsAuthenticated, the default permission
        return Response(UserSerializer(user_body(request.user)).data)


NOT_SIGNED_IN = OpenApiExample(
    "No token", status_codes=["401"], response_only=True,
    value={"type": problem_type("not_authenticated"), "title": "Unauthorized",
           "status": 401, "code": "not_authenticated",
           "detail": "Sign in first: send the header Authorization: Token <token>."},
)


class LogoutView(APIView):
    @extend_schema(
        operation_id="logOut", tags=["accounts"], summary="Log out",
        description="Revokes the token this request carries; other tokens stay valid.",
        request=None, responses={204: None, **errors(401)},
        examples=[NOT_SIGNED_IN],
    )
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, AuthToken):
            accounts.revoke_token(request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    @extend_schema(
        operation_id="logOutEverywhere", tags=["accounts"], summary="Log out everywhere",
        description="Revokes every token of the account, this one included.",
        request=None, responses={204: None, **errors(401)},
        examples=[NOT_SIGNED_IN],
    )
    def post(self, request: Request) -> Response:
        accounts.revoke_every_token(signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CloseAccountView(APIView):
    @extend_schema(
        operation_id="closeAccount", tags=["accounts"], summary="Close my account",
        description=(
            "Erases your account, at once and for good: every token of yours stops (this one "
            "too); at each match waiting or in play you leave, as a person leaving does; your "
            "name becomes `Former player` everywhere, in finished matches too; you leave the "
            "leaderboards; the account can never be used again. Kept, under the neutral name: "
            "the moves and results of the matches you played, which are the other players' "
            "history too (docs: players, \"Your data\"). Export your data first if you want "
            "it (exportMyData). An account with a password sends it (wrong: 403 "
            "`wrong_password`; failures count toward the log-in lock-out, 429 `login_locked`); "
            "one without (a guest's, a platform's player's) sends `\"confirm\": true`; "
            "neither: 400 `closing_not_confirmed`. A platform's player's platform is told "
            "(webhook `player.erased`)."
        ),
        request=CloseAccountInputSerializer, responses={204: None, **errors(400, 401, 403, 429)},
        examples=[OpenApiExample("A password account", request_only=True,
                                 value={"password": "kozmaca-2026"}),
                  OpenApiExample("A guest", request_only=True, value={"confirm": True}),
                  NOT_SIGNED_IN],
    )
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        data = CloseAccountInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        password = data.validated_data.get("password")
        # A password tried counts toward the log-in lock-out as a log-in does: a wrong one
        # stays counted, the right one is given back (the name is read before the erasure).
        username = user.get_username()
        counted = user.has_usable_password() and password is not None
        if counted:
            lockout.attempt(request, username)
        privacy.close_account(user, password=password,
                              confirmed=data.validated_data["confirm"])
        if counted:
            lockout.succeeded(request, username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportView(APIView):
    throttle_classes = (*APIView.throttle_classes, windows.DataExportThrottle)

    @extend_schema(
        operation_id="exportMyData", tags=["accounts"], summary="Export my data",
        description=(
            "Everything the service keeps of you, as one JSON document (sent as it is written: "
            "a long history streams): your account; every match you had a seat at, with its "
            "seats' names, results and, of each ended deal, your own hand, the contract, the "
            "scores and every action (all public at the table; never another seat's hand, "
            "nothing of a deal still in play); your ratings, their changes, seasons and "
            "statistics; your privacy settings; your Tour of Tables progress and matches; the "
            "deal sets you played (with your result) and made; a platform's player, the "
            "platform's id of "
            "you. Each account may export so many times in a while (the service's "
            "DATA_EXPORT_RATE, 2 an hour by default); past that, 429 `throttled` with "
            "`Retry-After`."
        ),
        responses={200: DataExportSerializer, **errors(401, 429)},
        examples=[NOT_SIGNED_IN],
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        user = signed_in(request)
        response = streamed_response(
            request, privacy.export(user), content_type="application/json; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="batak-my-data.json"'
        return response
