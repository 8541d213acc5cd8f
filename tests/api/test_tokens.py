"""Tokens: stored only as hashes, lapsing when unused, revocable one by one or all at once,
a new one at each log-in, and never shown to staff."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from knox.models import AuthToken
from knox.settings import CONSTANTS
from rest_framework.test import APIClient

from games import retention
from games.api.authentication import TokenAuthentication

from .conftest import API


def sign_up(client: APIClient) -> dict:
    body = {"username": "ayse", "password": "kozmaca-2026"}
    response = client.post(f"{API}/auth/register", body, format="json")
    assert response.status_code == 201
    return response.json()


def me(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get(f"{API}/me").status_code


def test_no_token_is_stored_as_it_is(db) -> None:
    token = sign_up(APIClient())["token"]
    stored = AuthToken.objects.get()
    assert token not in (stored.digest, stored.token_key) and len(token) == 64
    assert me(token) == 200


def test_each_log_in_issues_a_new_token_and_logout_revokes_one(db) -> None:
    first = sign_up(APIClient())["token"]
    login = APIClient().post(f"{API}/auth/token",
                             {"username": "ayse", "password": "kozmaca-2026"}, format="json")
    second = login.json()["token"]
    assert second != first and login.json()["expiry"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert client.post(f"{API}/auth/logout").status_code == 204
    assert (me(first), me(second)) == (401, 200)


def test_logout_everywhere_revokes_every_token(db) -> None:
    first = sign_up(APIClient())["token"]
    second = APIClient().post(f"{API}/auth/token", {"username": "ayse",
                              "password": "kozmaca-2026"}, format="json").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert client.post(f"{API}/auth/logout-all").status_code == 204
    assert (me(first), me(second)) == (401, 401)


def test_a_token_unused_past_its_expiry_lapses(db) -> None:
    token = sign_up(APIClient())["token"]
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    assert me(token) == 401


def test_a_request_reads_its_own_token_and_the_purge_the_expired_others(
    db, django_assert_num_queries
) -> None:
    """knox reads every token of the account on every request to delete the expired ones; a
    request here reads its own (with its account), and the retention purge deletes them."""
    lapsed = sign_up(APIClient())["token"]
    token = APIClient().post(f"{API}/auth/token", {"username": "ayse",
                             "password": "kozmaca-2026"}, format="json").json()["token"]
    AuthToken.objects.exclude(token_key=token[:CONSTANTS.TOKEN_KEY_LENGTH]).update(
        expiry=timezone.now() - timedelta(seconds=1))
    authentication = TokenAuthentication()
    with django_assert_num_queries(1):  # the token and its account, in one statement
        user, _ = authentication.authenticate_credentials(token.encode())
    assert user.username == "ayse" and AuthToken.objects.count() == 2
    retention.purge_finished_matches()
    assert AuthToken.objects.count() == 1 and (me(lapsed), me(token)) == (401, 200)


def test_a_token_that_is_not_text_is_401(db) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token \xff\xfe")
    response = client.get(f"{API}/me")
    assert response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_staff_see_who_holds_tokens_but_never_a_token(db, admin_client) -> None:
    token = sign_up(APIClient())["token"]
    page = admin_client.get("/admin/knox/authtoken/")
    assert page.status_code == 200 and b"ayse" in page.content
    assert token.encode() not in page.content and token[:15].encode() not in page.content
    assert admin_client.get("/admin/knox/authtoken/add/").status_code == 403
