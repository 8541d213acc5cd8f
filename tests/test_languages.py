"""Six languages everywhere: every error the API can answer, every rule refusal, every title and
every text of the Tour of Tables reads in tr, fr, pt, ru and es, not in English."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework import serializers

from batak_api import problem_codes
from games.api import accounts, authentication, problems
from games.api.serializers.fields import CARD_CHOICES, StrictInputSerializer
from games.api.serializers.play import ActionInputSerializer
from games.engine import Reason
from games.engine.errors import MESSAGES
from games.errors import ActionRefused, ServiceError
from platforms.api import serializers as platform_serializers
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


def msgid_of(sentence: str) -> str:
    """A sentence as the catalogue holds it: `%(limit)d` where problem_codes reads `{limit}`."""
    return re.sub(r"%\((\w+)\)[sd]", r"{\1}", sentence)


def our_catalogue(language: str) -> dict[str, str]:
    """msgid → msgstr, as text (the .po file escapes quotes)."""
    def text(quoted: str) -> str:
        return quoted.replace('\\"', '"')

    return {msgid_of(text(msgid)): text(msgstr)
            for msgid, (msgstr, _fuzzy) in catalogue(language).items()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_problem_code_reads_in_every_language(language) -> None:
    """Each code's detail and each status's title on the errors page has our own sentence in
    every language. Not the answers given before a request's head, so its Accept-Language, is
    read: nginx's own and gunicorn's refusals of a head, which say `Content-Language: en`."""
    english_only = set(problem_codes._front_door())
    ours = our_catalogue(language)
    codes = [entry for entry in problem_codes.problem_codes()
             if entry not in english_only and "{limit_request" not in entry.meaning]
    assert len(codes) > 60
    for entry in codes:
        assert ours.get(entry.meaning, entry.meaning) != entry.meaning, (entry, language)
    for status in {entry.status for entry in codes}:
        english, translated = english_and(language, problems.TITLES[status])
        assert translated != english and english in ours, (status, language)


def input_fields() -> Iterator[serializers.Field]:
    """Every field of every request body, nested ones and list members included."""
    assert accounts and platform_serializers  # imported for their serializers
    kinds, todo = [], [StrictInputSerializer]
    while todo:
        kind = todo.pop()
        todo.extend(kind.__subclasses__())
        kinds.append(kind)
    fields: list[serializers.Field] = [kind() for kind in kinds]
    while fields:
        field = fields.pop()
        yield field
        if isinstance(field, serializers.Serializer):
            fields.extend(field.fields.values())
        elif getattr(field, "child", None) is not None:
            fields.append(field.child)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_framework_sentence_a_request_can_meet_is_ours(language) -> None:
    """DRF's own sentences for a field (some translated poorly or not at all: "Bir sözlük
    bekleniyor, ama var list.") each have our own in the catalogue, which comes first."""
    ours = our_catalogue(language)
    sentences = set()
    for field in input_fields():
        with translation.override("en"):
            sentences |= {str(message) for message in field.error_messages.values()}
    assert len(sentences) > 20
    for english in sentences:
        assert ours.get(english, english) != english, (english, language)
        with translation.override(language):
            assert translation.gettext(english) == ours[english]


# Words of the form of address each language does not use (locale/README.md): French says
# "tu", Portuguese "você", Spanish "tú", Turkish "siz", Russian "вы".
OTHER_ADDRESS = {
    "fr": r"\b(vous|votre|vos)\b|\b(?!assez\b|chez\b)\w+ez\b",
    "pt": r"\b(tu|teu|tua|teus|tuas|contigo|consigo|tens|jogaste|importaste|conheces|podes|"
          r"pede-a|omite|joga-a)\b",
    "es": r"\b(usted|ustedes)\b",
    "tr": r"\b(sen|sana|seni|senin|sensiz|verdin|oynadın|oynamadın|aktardın|biliyorsun|"
          r"oynayamazsın|edebilirsin|kabul et|teklif yap)\b",
    "ru": r"\b(ты|тебя|тебе|тобой|твой|твоя|твоё|твои|твоего|твоей|начни|укажи|прими|"
          r"предложи|запрашивай|дождись)\b",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_form_of_address_per_language(language) -> None:
    other = re.compile(OTHER_ADDRESS[language], re.IGNORECASE)
    mixed = [msgstr for msgstr, _fuzzy in catalogue(language).values() if other.search(msgstr)]
    assert mixed == []


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_framework_refusals_over_http_read_in_the_language(client, db, language) -> None:
    def refused(body: object) -> tuple[dict, str]:
        response = client.post("/api/v1/auth/register", json.dumps(body),
                               content_type="application/json", HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 400
        return response.json(), response["Content-Language"]

    array, content_language = refused([1])
    assert content_language == language
    with translation.override(language):
        assert array["errors"][0]["message"] == translation.gettext(
            "Send a JSON object here, not a list, a string or a number.")
    username = refused({"username": "ayşe2", "password": "a long passphrase"})[0]
    assert [error["field"] for error in username["errors"]] == ["username"]
    assert "_ . @ + -" in username["errors"][0]["message"]
    assert "ş" in username["errors"][0]["message"]


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_a_card_outside_the_notation_is_told_the_notation(language) -> None:
    with translation.override(language):
        refused = ActionInputSerializer(data={"kind": "play", "card": "ZZ"})
        assert not refused.is_valid()
        assert "QH" in refused.errors["card"][0] and "TS" in refused.errors["card"][0]


NOT_AN_OBJECT = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3), max_leaves=5,
)


@pytest.mark.django_db
@hypothesis_settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=NOT_AN_OBJECT, language=st.sampled_from(["en", *LANGUAGES]))
def test_a_body_that_is_no_object_is_told_so_in_the_language(client, body, language) -> None:
    response = client.post("/api/v1/auth/register", json.dumps(body),
                           content_type="application/json", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400 and response["Content-Language"] == language
    with translation.override(language):
        ours = translation.gettext("Send a JSON object here, not a list, a string or a number.")
    assert [error["message"] for error in response.json()["errors"]] == [ours]


@hypothesis_settings(max_examples=200, deadline=None)
@given(text=st.text(min_size=1, max_size=5), language=st.sampled_from(["en", *LANGUAGES]))
def test_a_card_the_notation_refuses_is_told_the_notation(text, language) -> None:
    with translation.override(language):
        refused = ActionInputSerializer(data={"kind": "play", "card": text})
        if text in CARD_CHOICES:
            return
        assert not refused.is_valid()
        assert "QH" in refused.errors["card"][0] and "TS" in refused.errors["card"][0]
