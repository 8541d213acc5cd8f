"""Log-in lock-out: repeated failures for one account, or from one address, lock log-in for a
while, the right password included, in every configuration (here: debug, no throttles)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from runtime import windows

from .conftest import API

RIGHT = {"username": "ayse", "password": "kozmaca-2026"}
WRONG = {"username": "ayse", "password": "wrong-password"}


@pytest.fixture
def accounts(db):
    cache.clear()
    for name in ("ayse", "mehmet"):
        APIClient().post(f"{API}/auth/register", {"username": name, "password": "kozmaca-2026"},
                         format="json")
    yield
    cache.clear()


def log_in(body: dict, address: str = "192.0.2.1"):
    return APIClient().post(f"{API}/auth/token", body, format="json", REMOTE_ADDR=address)


def test_five_failures_lock_the_account_even_for_the_right_password(accounts, settings):
    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT):
        assert log_in(WRONG).status_code == 401
    locked = log_in(RIGHT)
    assert locked.status_code == 429 and locked.json()["code"] == "login_locked"
    assert 0 < int(locked["Retry-After"]) <= settings.LOGIN_LOCKOUT_SECONDS + 1
    # Another account, from another address, is not locked by this one's failures.
    assert log_in({**RIGHT, "username": "mehmet"}, "192.0.2.9").status_code == 200


def test_the_lock_lifts_when_its_window_has_passed(accounts, settings, monkeypatch):
    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT):
        log_in(WRONG)
    later = windows.time.time() + settings.LOGIN_LOCKOUT_SECONDS + 2
    monkeypatch.setattr(windows.time, "time", lambda: later)
    assert log_in(RIGHT).status_code == 200


def test_one_address_trying_many_accounts_is_locked(accounts, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    for number in range(3):
        assert log_in({"username": f"nobody{number}", "password": "x"}).status_code == 401
    assert log_in(RIGHT).status_code == 429
    assert log_in(RIGHT, "192.0.2.50").status_code == 200


def test_a_success_does_not_count_against_the_address(accounts, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    for _ in range(5):
        assert log_in(RIGHT).status_code == 200
    assert log_in(WRONG).status_code == 401


def test_a_success_clears_the_accounts_count(accounts, settings):
    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT - 1):
        log_in(WRONG)
    assert log_in(RIGHT).status_code == 200
    assert log_in(WRONG).status_code == 401
    assert log_in(RIGHT).status_code == 200


def test_failures_that_keep_coming_are_locked_again_in_the_next_window(
    accounts, settings, monkeypatch
):
    # Once a first window had passed, failures that kept coming were never locked again.
    now = [windows.time.time()]
    monkeypatch.setattr(windows.time, "time", lambda: now[0])
    assert log_in(WRONG).status_code == 401
    now[0] += settings.LOGIN_LOCKOUT_SECONDS - 10
    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT - 1):
        assert log_in(WRONG).status_code == 401
    assert log_in(WRONG).status_code == 429
    now[0] += 11
    statuses = [log_in(WRONG).status_code for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT + 2)]
    assert statuses == [401] * settings.LOGIN_FAILURES_PER_ACCOUNT + [429, 429]


def test_accounts_closed_with_their_password_do_not_lock_the_address(accounts, settings):
    # Closing an account tries its password as a log-in does: the right one is given back, so
    # people closing accounts behind one address (a school, a platform's proxy) lock no one.
    settings.LOGIN_FAILURES_PER_ADDRESS = 2
    for number in range(3):
        app = APIClient(REMOTE_ADDR="192.0.2.1")
        token = app.post(f"{API}/auth/register", {"username": f"leaving{number}",
                                                  "password": "kozmaca-2026"},
                         format="json").json()["token"]
        app.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        closed = app.post(f"{API}/me/close", {"password": "kozmaca-2026"}, format="json")
        assert closed.status_code == 204, closed.content
    assert log_in(RIGHT).status_code == 200
