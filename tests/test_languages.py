"""Six languages everywhere: every error the API can answer, every rule refusal, every title and
every text of the Tour of Tables reads in tr, fr, pt, ru and es, not in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from games.api import accounts, authentication, problems
from games.engine import Reason
from games.engine.errors import MESSAGES
from games.errors import ActionRefused, ServiceError
from tour import content
from tour import errors as tour_errors

LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]


def every_service_error() -> list[type[ServiceError]]:
    assert accounts and authentication and tour_errors  # imported for their error types
    found, todo = [], [ServiceError]
    while todo:
        kind = todo.pop()
        todo.extend(kind.__subclasses__())
        if kind is not ActionRefused:
            found.append(kind)
    return found


def english_and(language: str, text) -> tuple[str, str]:
    with translation.override("en"):
        english = str(text)
    with translation.override(language):
        return english, str(text)


def catalogue(language: str) -> dict[str, tuple[str, bool]]:
    """msgid → (msgstr, fuzzy) of the project's own catalogue for ``language``."""
    text = (Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po").read_text()
    entries = {}
    for block in text.split("\n\n"):
        def joined(keyword: str, block: str = block) -> str:
            match = re.search(rf'^{keyword} ((?:".*"\n?)+)', block, re.M)
            assert match, block
            return "".join(re.findall(r'"(.*)"', match.group(1)))

        if "msgid" in block:
            entries[joined("msgid")] = (joined("msgstr"), "#, fuzzy" in block)
    return entries


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_of_the_catalogue_is_translated(language) -> None:
    untranslated = [
        msgid for msgid, (msgstr, fuzzy) in catalogue(language).items()
        if msgid and (fuzzy or not msgstr or msgstr == msgid)
    ]
    assert untranslated == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_error_code_reads_in_the_language(language) -> None:
    kinds = every_service_error()
    assert len(kinds) > 10
    for kind in kinds:
        english, translated = english_and(language, kind.default_detail)
        assert translated != english, (kind.__name__, language)
    for reason in Reason:
        english, translated = english_and(language, translation.gettext_lazy(MESSAGES[reason]))
        assert translated != english, (reason, language)
    for status, title in problems.TITLES.items():
        english, translated = english_and(language, title)
        assert translated != english, (status, language)
    for _kind, code, detail in problems._DRF_PROBLEMS:
        english, translated = english_and(language, detail)
        assert translated != english, (code, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_tour_text_reads_in_the_language(language) -> None:
    texts = [c.personality for c in content.CHARACTERS.values()]
    texts += [text for table in content.TABLES for text in (table.place, table.intro)]
    assert len(texts) == 20
    for text in texts:
        english, translated = english_and(language, text)
        assert translated != english, (english, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_rule_refusals_over_http_read_in_the_language(client, db, language) -> None:
    token = client.post("/api/v1/auth/guest", {}, content_type="application/json").json()["token"]
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"}
    body = {"game": "auction", "rules": {"spades_announcements": True}}
    english = client.post("/api/v1/matches", body, content_type="application/json",
                          HTTP_ACCEPT_LANGUAGE="en", **headers).json()
    local = client.post("/api/v1/matches", body, content_type="application/json",
                        HTTP_ACCEPT_LANGUAGE=language, **headers).json()
    assert english["code"] == local["code"] == "invalid_rules"
    assert local["detail"] != english["detail"] and local["title"] != english["title"]
    assert local["detail"].startswith("spades_announcements: ")
