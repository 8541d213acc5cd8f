from .conftest import API


def test_guest_signup_returns_a_working_token(client, db) -> None:
    response = client.post(f"{API}/auth/guest", {"display_name": "Ayşe"},
                           content_type="application/json")
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["is_guest"] and body["user"]["display_name"] == "Ayşe"
    me = client.get(f"{API}/me", HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.status_code == 200 and me.json()["id"] == body["user"]["id"]


def test_register_then_log_in(client, db) -> None:
    account = {"username": "ayse", "password": "kozmaca-2026", "display_name": "Ayşe"}
    assert client.post(f"{API}/auth/register", account,
                       content_type="application/json").status_code == 201
    again = client.post(f"{API}/auth/register", account, content_type="application/json")
    assert again.status_code == 409 and again.json()["code"] == "username_taken"
    login = client.post(f"{API}/auth/token", {"username": "ayse", "password": "kozmaca-2026"},
                        content_type="application/json")
    assert login.status_code == 200 and login.json()["user"]["is_guest"] is False
    wrong = client.post(f"{API}/auth/token", {"username": "ayse", "password": "nope-nope"},
                        content_type="application/json")
    assert wrong.status_code == 401 and wrong.json()["code"] == "authentication_failed"


def test_register_validates_fields(client, db) -> None:
    response = client.post(f"{API}/auth/register", {"username": "a", "password": "x"},
                           content_type="application/json")
    assert response.status_code == 400
    assert {e["field"] for e in response.json()["errors"]} == {"username", "password"}


def test_requests_without_a_token_are_401_problems(client, db) -> None:
    response = client.get(f"{API}/matches")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"
    bad = client.get(f"{API}/matches", HTTP_AUTHORIZATION="Token nope")
    assert bad.status_code == 401 and bad.json()["code"] == "authentication_failed"
