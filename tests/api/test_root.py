"""Where to go from the service's address: the front page at `/`, the API's root at
`/api/v1/` (every resource by its absolute address) and the icon browsers ask for."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import resolve

from games.api import problems

from .schema import assert_matches


@pytest.mark.django_db
def test_the_front_page_links_the_table_the_api_the_guides_and_the_status(settings) -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    for link in ("/play/", "/api/docs/", "/api/v1/", settings.DOCS_URL, "/readyz",
                 "/favicon.ico"):
        assert f'href="{link}"' in html, link
    turkish = Client().get("/", HTTP_ACCEPT_LANGUAGE="tr").content.decode()
    assert "Oyna" in turkish and 'lang="tr"' in turkish


@pytest.mark.django_db
def test_the_api_root_says_where_every_resource_is() -> None:
    response = Client().get("/api/v1/")
    assert response.status_code == 200
    body = response.json()
    assert_matches(body, "ApiRoot")
    assert body["matches_url"] == "http://testserver/api/v1/matches"
    assert body["match_url"] == "http://testserver/api/v1/matches/{match_id}"
    for key, url in body.items():
        if key == "docs_url":
            continue
        path = url.removeprefix("http://testserver")
        concrete = re.sub(r"\{[a-z_]+\}", lambda found: {
            "{match_id}": "6990c34b-402a-4832-b7a0-91140a5b4ddf", "{game}": "auction",
        }.get(found.group(0), "someone"), path)
        assert resolve(concrete).func is not problems.not_found, key
        assert Client().get(concrete).status_code != 404 or "{" in path, key


def test_the_icon_is_a_picture() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")
