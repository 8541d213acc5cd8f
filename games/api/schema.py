"""Schema hooks: an operation without a summary, a tag, documented errors and an example fails
schema generation (which runs with --fail-on-warn in the tests), so the contract stays complete."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.drainage import warn

from games.api.serializers.fields import CARD_NAMES, SUIT_NAMES


def _has_example(operation: dict[str, Any]) -> bool:
    bodies = [operation.get("requestBody", {}), *operation.get("responses", {}).values()]
    return any(
        "examples" in media or "example" in media
        for body in bodies
        for media in body.get("content", {}).values()
    )


def stream_events(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """The data of each event of a live stream as components, named by the event's name in the
    stream operation's 200 answer (`x-sse-events`): OpenAPI 3.1 describes no event stream, so
    nothing else would bring their shapes into the schema, and clients type each event's data
    with its component (clients/python/batak_sse.py, clients/typescript/sse.ts). The streams
    and their events are settings.STREAM_EVENT_SCHEMAS: by operation, the dotted path of a map
    of event names to serializers. Runs before the enums' hook, so their enums are named as
    everywhere else."""
    from django.utils.module_loading import import_string
    from drf_spectacular.openapi import AutoSchema
    from rest_framework.views import APIView

    schema = AutoSchema()
    schema.registry = generator.registry
    # Resolving a serializer reads the view and method it is for: any view's GET will do.
    view = APIView()
    view.request = request
    schema.view, schema.method, schema.path = view, "GET", "/"
    refs = {
        operation_id: {
            str(name): schema.resolve_serializer(serializer, "response").ref
            for name, serializer in import_string(events).items()
        }
        for operation_id, events in settings.STREAM_EVENT_SCHEMAS.items()
    }
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, component in generator.registry.build({}).get("schemas", {}).items():
        schemas.setdefault(name, component)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if operation.get("operationId") in refs:
                stream = operation["responses"]["200"]["content"]["text/event-stream"]
                stream["x-sse-events"] = refs[operation["operationId"]]
    return result


def require_documentation(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            missing = [
                what
                for what, present in (
                    ("a summary", operation.get("summary")),
                    ("a tag", operation.get("tags")),
                    ("an error response", any(code[0] in "45" for code in operation["responses"])),
                    ("an example", _has_example(operation)),
                )
                if not present
            ]
            if missing:
                warn(f"{method.upper()} {path} lacks {', '.join(missing)}")
    return result


PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
# Answers any operation may give besides its own: a request head the server cannot read, a
# request line or body over the size limits (checked before the view), and throttling (per
# account and per client address, where rates are set). The head's limits are gunicorn's
# (batak_api/gunicorn_conf.py); nginx in front is stricter, with the same answers.
COMMON_PROBLEMS = {
    "400": "The request cannot be read (malformed, a header line over 8190 bytes, more than 100 "
    "header lines), or names a host this service does not answer for.",
    "413": "The request body is larger than the limit "
    f"({settings.API_MAX_BODY_BYTES / 1024:g} KiB).",
    "414": "The request line (method, path and query) is longer than 4094 bytes.",
    "429": "Too many requests: wait the `Retry-After` seconds.",
}
BODY_PROBLEMS = {"415": "The body is not `application/json`."}
# What an operation for people answers a partner platform's key (platforms/authentication.py).
PLATFORM_KEY_REFUSED = (
    "A partner platform's key: this operation does not take one (`platform_key_not_accepted`)."
)
ENUM_DESCRIPTIONS = {
    "Card": "Rank then suit: `AS` the ace of spades, `TH` the ten of hearts, `2C` the two of "
    "clubs.",
    "Suit": "`S` spades, `H` hearts, `D` diamonds, `C` clubs.",
    "Direction": (
        "The order of play and of the deal. `clockwise` (to the left): 0 → 3 → 2 → 1 → 0; "
        "`anticlockwise` (to the right): 0 → 1 → 2 → 3 → 0."
    ),
    "Phase": (
        "What a deal is doing, and what it allows: `auction`: bid or pass in turn (and "
        "`redeal` where the rules allow it); `trump`: the declarer names trumps; "
        "`announcements` (Koz Maça with announcements): each seat announces its tricks; "
        "`play`: cards; `finished`: all 13 tricks played and scored; `redealt`: thrown in and "
        "dealt again."
    ),
}


# The names generated clients give enum members (`Card.NINE_OF_SPADES`, not `Card.VALUE_5`).
ENUM_VARNAMES = {"Card": CARD_NAMES, "Suit": SUIT_NAMES}


def _enum_refs(node: Any, components: dict[frozenset[Any], str], top: bool = False) -> Any:
    """``node`` with every inline enum that has the values of a named one (an item of a list,
    of a nullable list, a query parameter…) replaced by a reference to it, so that a client
    has one type a set of values, not one more copy each place it appears."""
    if isinstance(node, list):
        return [_enum_refs(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    values = frozenset(value for value in node.get("enum", []) if value is not None)
    if not top and values in components:
        ref: dict[str, Any] = {"$ref": f"#/components/schemas/{components[values]}"}
        rest = {key: value for key, value in node.items() if key not in ("enum", "type")
                # drf-spectacular's list of the values, which the component has
                and not (key == "description" and str(value).startswith("* `"))}
        if None in node["enum"]:
            return {"oneOf": [ref, {"type": "null"}], **rest}
        return {"allOf": [ref], **rest} if rest else ref
    return {key: _enum_refs(value, components) for key, value in node.items()}


def _one_component_per_enum(result: dict[str, Any]) -> None:
    schemas = result["components"]["schemas"]
    named = {
        frozenset(schema["enum"]): name for name, schema in schemas.items()
        # An enum of one value is a union's tag, not a type of its own.
        if len(schema.get("enum", [])) > 1
    }
    for key in ("paths", "webhooks"):
        if key in result:
            result[key] = _enum_refs(result[key], named)
    for name, schema in schemas.items():
        schemas[name] = _enum_refs(schema, named, top=True)
    for name, varnames in ENUM_VARNAMES.items():
        assert len(varnames) == len(schemas[name]["enum"])
        schemas[name]["x-enum-varnames"] = varnames


def _seat_kind(kind: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": [kind]}, **properties},
        "required": ["kind", *required],
        "additionalProperties": False,
    }


def _seat_specs(schemas: dict[str, Any]) -> None:
    """A seat of a new match as the server reads it: `bot_level` with `bot` alone (required
    there), four seats, at most one of them `me`. drf-spectacular has no words for "this field
    with that value only", so the seat is written out here as one object per kind."""
    spec = schemas.pop("SeatSpecRequest")
    schemas.pop("SeatSpecKind", None)
    name = spec["properties"]["display_name"]
    bot_level = spec["properties"]["bot_level"]
    kinds = {
        "me": _seat_kind("me", {"display_name": name}, []),
        "open": _seat_kind("open", {"display_name": name}, []),
        "bot": _seat_kind("bot", {"bot_level": bot_level, "display_name": name}, ["bot_level"]),
    }
    for kind, schema in kinds.items():
        schemas[f"{kind.capitalize()}SeatRequest"] = schema
    schemas["SeatSpecRequest"] = {
        "oneOf": [{"$ref": f"#/components/schemas/{k.capitalize()}SeatRequest"} for k in kinds],
        "discriminator": {"propertyName": "kind", "mapping": {
            k: f"#/components/schemas/{k.capitalize()}SeatRequest" for k in kinds
        }},
    }
    seats = schemas["MatchCreateRequest"]["properties"]["seats"]
    seats.update({
        "minItems": 4, "maxItems": 4,
        "contains": {"type": "object", "properties": {"kind": {"const": "me"}},
                     "required": ["kind"]},
        "minContains": 0, "maxContains": 1,
    })


def _rules_of_each_game(schemas: dict[str, Any]) -> None:
    """Which rules a match of each game may change, and to what (as `TableRules` checks them):
    written as conditions on the game, since a rule's values depend on it."""
    def rules(properties: dict[str, Any]) -> dict[str, Any]:
        return {"properties": {"rules": {"properties": properties}}}

    def game_is(game: str) -> dict[str, Any]:
        return {"properties": {"game": {"const": game}}, "required": ["game"]}

    per_game = [
        {"if": game_is("spades"),
         "then": rules({"all_pass": False, "all_pass_bid": False,
                        "partnership_dummy": {"const": False}, "min_bid": {"enum": [4, 5]}}),
         "else": rules({"spades_announcements": {"const": False},
                        "spades_overtrick_limit": {"const": None}})},
        {"if": game_is("partnership"),
         "then": rules({"min_bid": {"enum": [7, 8]}, "all_pass_bid": {"minimum": 7}}),
         "else": rules({"min_bid": {"enum": [4, 5]}, "partnership_dummy": {"const": False}})},
        {"if": {"properties": {"rules": {"properties": {"spades_announcements": {"const": True}},
                                         "required": ["spades_announcements"]}}},
         "else": rules({"spades_overtrick_limit": {"const": None}})},
    ]
    # Both a created match and a quick match name their game and rules.
    for request in ("MatchCreateRequest", "QuickMatchRequest"):
        schemas[request]["allOf"] = per_game


# The request rate's fields (games/api/quotas.py), on the answers of a signed-in caller's
# requests that a request rate counts: one component each, referred to from every answer.
RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "schema": {"type": "string", "example": '"requests";q=6000;w=60'},
        "description": "The caller's request quota (`q`) and its window in seconds (`w`), as "
        "the IETF's RateLimit fields give them. Sent when a request rate applies to the caller "
        "(always to a platform's key).",
    },
    "RateLimit": {
        "schema": {"type": "string", "example": '"requests";r=5873;t=14'},
        "description": "What is left of the caller's quota in this window (`r`), and the "
        "seconds until the window is whole again (`t`). Sent with `RateLimit-Policy`.",
    },
}
RATE_LIMIT_REFS = {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_LIMIT_HEADERS}


def _problem_response(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/problem+json": {"schema": PROBLEM_REF}}}


def _exact_operation(operation: dict[str, Any]) -> None:
    """One operation of `exact_contract`: its security and its problem answers."""
    if operation.get("security") == [{}]:
        del operation["security"]
    responses = operation["responses"]
    for status, response in responses.items():
        if status[0] in "45" and "application/json" in response.get("content", {}):
            content = response["content"]
            content["application/problem+json"] = content.pop("application/json")
    schemes = {name for requirement in operation.get("security", []) for name in requirement}
    if "tokenAuth" in schemes and "platformKey" not in schemes:
        responses.setdefault("403", _problem_response(PLATFORM_KEY_REFUSED))
    extra = {**COMMON_PROBLEMS, **(BODY_PROBLEMS if "requestBody" in operation else {})}
    for status, description in extra.items():
        responses.setdefault(status, _problem_response(description))
    responses["429"].setdefault("headers", {"Retry-After": {
        "schema": {"type": "integer", "minimum": 1},
        "description": "Seconds to wait before retrying.",
    }})
    if schemes:
        for status, response in responses.items():
            if status[0] == "2" or status == "429":
                response.setdefault("headers", {}).update(RATE_LIMIT_REFS)


def exact_contract(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Make the schema say exactly what the server does:

    - every 4xx and 5xx answer is `application/problem+json`, as the server sends it;
    - the answers every operation may give (400, 413, 414, 429, and 415 where a body is read)
      are listed,
      and 403 where a platform's key is refused;
    - request objects are closed: the server refuses a field they do not declare;
    - a new match's seats are as exact as the server's checks (`_seat_specs`);
    - the enums of directions and phases say what each value means, the cards and suits name
      their values, and each set of values is one component (`_one_component_per_enum`);
    - the answers to a signed-in caller carry the request rate's fields;
    - an operation open to anyone has no `security` at all (the document has no global one),
      rather than `[{}]`, which some client generators read as "needs credentials".
    """
    assert "security" not in result
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            _exact_operation(operation)
    result.setdefault("components", {})["headers"] = RATE_LIMIT_HEADERS
    schemas = result.get("components", {}).get("schemas", {})
    _seat_specs(schemas)
    _rules_of_each_game(schemas)
    for name, schema in schemas.items():
        if name.endswith("Request") and schema.get("type") == "object":
            schema["additionalProperties"] = False
    _one_component_per_enum(result)
    for name, description in ENUM_DESCRIPTIONS.items():
        if name in schemas:
            schemas[name]["description"] = description
    return result
