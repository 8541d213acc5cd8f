"""/play/ serves the committed build of the web client with Python only, revalidated by ETag."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

PAGE = settings.BASE_DIR / "web" / "dist" / "play.html"


def test_play_serves_the_committed_bundle(client: Client) -> None:
    answer = client.get("/play/")

    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    assert answer["Cache-Control"] == "no-cache"
    assert answer.content == PAGE.read_bytes()
    # One file: the script and the styles are inline, nothing else to fetch.
    assert b"<script src" not in answer.content and b'rel="stylesheet"' not in answer.content


def test_an_unchanged_bundle_is_not_sent_again(client: Client) -> None:
    etag = client.get("/play/")["ETag"]

    again = client.get("/play/", HTTP_IF_NONE_MATCH=etag)

    assert again.status_code == 304
    assert again.content == b""


def test_play_only_reads(client: Client) -> None:
    assert client.post("/play/").status_code == 405
    # A monitor's (or `curl -I`'s) HEAD is a GET without its body.
    head = client.head("/play/")
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Security-Policy"]
    assert client.head("/healthz").status_code == 200


def test_only_the_pages_own_script_and_styles_may_run(client: Client) -> None:
    """The page keeps a person's token: its policy lets run only its own inline script and
    styles, by their hashes, and talk only to this service (the browser tests run under it)."""
    policy = dict(
        part.strip().split(" ", 1) for part in client.get("/play/")["Content-Security-Policy"]
        .split(";")
    )
    assert policy["default-src"] == "'none'" and policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
    assert "unsafe-inline" not in policy["script-src"] + policy["style-src"]
    assert len(policy["script-src"].split()) == len(policy["style-src"].split()) == 1
