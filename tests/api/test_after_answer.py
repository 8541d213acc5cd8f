"""A person's move is answered before the computer players' round after it, which the
request's thread then plays (runtime/work.py `AfterAnswer`, as batak_api/wsgi.py serves)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.test import RequestFactory

from games.models import Match
from runtime import work

from .conftest import API, create_match, new_player

pytestmark = pytest.mark.django_db(transaction=True)


def served(environ: dict[str, Any]) -> Any:
    """The answer's body as a WSGI server holds it: sent, not yet closed."""
    return work.AfterAnswer(WSGIHandler())(environ, lambda status, headers, exc_info=None: None)


def test_a_persons_move_is_answered_before_the_computer_players_play() -> None:
    person = new_player("P")
    match_id = create_match(person, deals=1, seats=[{"kind": "me"}]
                            + [{"kind": "bot", "bot_level": "easy"}] * 3)["id"]
    rounds = 0
    for _ in range(6):
        view = person.view(match_id)
        action = next(a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal")
        environ = RequestFactory().post(
            f"{API}/matches/{match_id}/actions",
            json.dumps({**action, "expected_version": view["version"]}),
            content_type="application/json",
            HTTP_AUTHORIZATION=person.client._credentials["HTTP_AUTHORIZATION"],
        ).environ
        body = served(environ)
        answer = json.loads(b"".join(body))
        assert answer["version"] == view["version"] + 1
        # Sent: the computer players have not moved yet.
        assert Match.objects.get(pk=match_id).version == view["version"] + 1
        body.close()
        after = person.view(match_id)
        assert after["deal"]["to_act"] == 0, "the computer players played up to the person"
        rounds += after["version"] > answer["version"]
    assert rounds >= 3


def test_work_held_for_an_answer_runs_once_the_answer_is_closed(monkeypatch) -> None:
    from bots import tasks

    ran: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.play_bot_turns, "run", lambda *args: ran.append(args))

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        work.later(tasks.play_bot_turns, "m", 1, account=7, wait_here=lambda: True)
        start_response("200 OK", [])
        return [b"answer"]

    body = work.AfterAnswer(app)({}, lambda *args: None)
    assert list(body) == [b"answer"]
    assert ran == []
    body.close()
    assert ran == [("m", 1)]
    # Outside a request: at once.
    work.later(tasks.play_bot_turns, "m", 2, account=7, wait_here=lambda: True)
    assert ran == [("m", 1), ("m", 2)]


def test_an_answer_never_closed_leaves_no_work_held_for_the_thread(monkeypatch) -> None:
    """The thread holds the work only while the application answers: a caller that never
    closes the body (a test, a broken server) does not make the thread's later work wait."""
    from bots import tasks

    ran: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.play_bot_turns, "run", lambda *args: ran.append(args))

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [])
        return [b"answer"]

    assert list(work.AfterAnswer(app)({}, lambda *args: None)) == [b"answer"]  # not closed
    work.later(tasks.play_bot_turns, "m", 1, account=7, wait_here=lambda: True)
    assert ran == [("m", 1)]


def test_on_an_asgi_server_the_work_runs_once_the_answer_is_sent(monkeypatch) -> None:
    """The embedded default's uvicorn: the request's sync code (in asgiref's thread, a copy of
    the request's context) holds the work, which runs once the handler has sent the answer."""
    import asyncio

    from asgiref.sync import sync_to_async

    from bots import tasks

    order: list[str] = []
    monkeypatch.setattr(tasks.play_bot_turns, "run", lambda *args: order.append("work"))

    def view() -> None:
        work.later(tasks.play_bot_turns, "m", 1, account=7, wait_here=lambda: True)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await sync_to_async(view)()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"answer"})

    async def send(message: dict[str, Any]) -> None:
        order.append(message["type"])

    asyncio.run(work.AfterAnswerASGI(app)({"type": "http"}, None, send))
    assert order == ["http.response.start", "http.response.body", "work"]
