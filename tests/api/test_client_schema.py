"""What generated clients make of the schema: readable enum members, one type per set of values,
actions and events as unions discriminated by `kind`, conditional reads typed, and the stream's
events named with their data's schema."""

from __future__ import annotations

from typing import Any

import pytest

from .schema import _document

REF = "#/components/schemas/"
ETAG_OPERATIONS = {"getMatch", "getSeatView", "spectateMatch"}


def _schemas() -> dict[str, Any]:
    return _document()["components"]["schemas"]


def _operations() -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for operations in _document()["paths"].values()
        for operation in operations.values()
    }


def _inline_enums(node: Any) -> list[frozenset[Any]]:
    """The value sets of the enums written out within ``node`` (a tag of one value aside)."""
    if isinstance(node, list):
        return [found for item in node for found in _inline_enums(item)]
    if not isinstance(node, dict):
        return []
    here = [frozenset(node["enum"]) - {None}] if len(node.get("enum", [])) > 1 else []
    return here + [found for value in node.values() for found in _inline_enums(value)]


def test_cards_and_suits_have_readable_member_names() -> None:
    card, suit = _schemas()["Card"], _schemas()["Suit"]
    names = dict(zip(card["enum"], card["x-enum-varnames"], strict=True))
    assert (names["9S"], names["TH"], names["AC"]) == ("NINE_OF_SPADES", "TEN_OF_HEARTS",
                                                       "ACE_OF_CLUBS")
    assert dict(zip(suit["enum"], suit["x-enum-varnames"], strict=True)) == {
        "S": "SPADES", "H": "HEARTS", "D": "DIAMONDS", "C": "CLUBS"}


def test_a_set_of_values_named_once_is_referenced_everywhere() -> None:
    named = {frozenset(schema["enum"]) for schema in _schemas().values() if "enum" in schema}
    document = _document()
    written_out = _inline_enums([document["paths"], document["webhooks"]]) + [
        found for schema in _schemas().values()
        for key, value in schema.items() if key != "enum"
        for found in _inline_enums(value)
    ]
    assert named.isdisjoint(written_out)
    hands = _schemas()["DealRecord"]["properties"]["hands"]
    assert hands["items"]["items"] == {"$ref": f"{REF}Card"}


@pytest.mark.parametrize("union, members", [
    ("Action", {kind: f"{kind.capitalize()}Action"
                for kind in ("bid", "pass", "trump", "announce", "play", "redeal")}),
    ("Event", {kind: f"{kind.capitalize()}Event"
               for kind in ("bid", "pass", "trump", "announce", "play", "redeal")}),
])
def test_actions_and_events_are_unions_discriminated_by_kind(union, members) -> None:
    schema = _schemas()[union]
    refs = {kind: f"{REF}{member}" for kind, member in members.items()}
    assert schema["discriminator"] == {"propertyName": "kind", "mapping": refs}
    assert [one["$ref"] for one in schema["oneOf"]] == list(refs.values())
    for kind, member in members.items():
        properties = _schemas()[member]["properties"]
        assert properties["kind"] == {"type": "string", "const": kind}
        assert "kind" in _schemas()[member]["required"]
    assert "tricks" in _schemas()[members["bid"]]["required"]
    assert _schemas()[members["play"]]["properties"]["card"] == {"$ref": f"{REF}Card"}


def test_legal_actions_and_the_feed_refer_to_the_unions() -> None:
    assert _schemas()["DealView"]["properties"]["legal_actions"]["items"] == {
        "$ref": f"{REF}Action"}
    assert _schemas()["EventPage"]["properties"]["events"]["items"] == {"$ref": f"{REF}Event"}
    # A plain reference: an `allOf` around it is read by openapi-typescript without `kind`.
    assert _schemas()["Hint"]["properties"]["action"] == {"$ref": f"{REF}Action"}


def test_conditional_reads_document_if_none_match_and_an_empty_304() -> None:
    for name, operation in _operations().items():
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        assert ("If-None-Match" in headers) == (name in ETAG_OPERATIONS), name
        assert ("304" in operation["responses"]) == (name in ETAG_OPERATIONS), name
    for name in ETAG_OPERATIONS:
        responses = _operations()[name]["responses"]
        assert "content" not in responses["304"]
        assert responses["200"]["headers"]["ETag"]["required"] is True


def test_the_stream_names_the_schema_of_each_event() -> None:
    media = _operations()["streamEvents"]["responses"]["200"]["content"]["text/event-stream"]
    assert media["x-sse-events"] == {
        name: {"$ref": f"{REF}{component}"} for name, component in (
            ("action", "Event"), ("deal_ended", "DealEndedEvent"), ("hand", "HandEvent"),
            ("turn", "TurnEvent"), ("clock", "ClockEvent"),
            ("seats", "SeatsEvent"), ("end", "StreamEnd"),
            ("rating_changed", "RatingChangedEvent"), ("rematch_offered", "RematchOffer"),
            ("rematch_started", "RematchStartedEvent"),
            ("analysis_ready", "AnalysisReadyEvent"))}
    assert set(_schemas()["StreamEnd"]["required"]) == {"version", "status"}


def test_a_new_match_may_be_created_without_a_body() -> None:
    body = _operations()["createMatch"]["requestBody"]
    assert body.get("required", False) is False
    assert "no body" in _operations()["createMatch"]["description"].lower()


def test_no_example_names_a_host() -> None:
    assert "api.example.org" not in str(_document())
