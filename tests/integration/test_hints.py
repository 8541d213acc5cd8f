"""Hints scaled out: an account's hints are bounded across server processes. Two gunicorn
servers share the Redis cache, so a view's hint worked out on one is answered from the cache on
the other (no new search, nothing counted), and HINT_RATE counts the account's hints on both:
with a rate of one a minute, the account's second view is refused on either server."""

from __future__ import annotations

import random

import pytest

from tests.integration.conftest import Table
from tests.integration.harness import client
from tests.integration.harness.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def hints_table(api: client.Api) -> str:
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot_level": "medium"}] * 3
    body = {"game": "auction", "deals": 1, "hints": True, "seats": seats}
    return client.expect(api.post(f"{client.API}/matches", body), 201, "create match")["id"]


def test_an_accounts_hints_are_counted_across_processes(stack: Stack) -> None:
    servers = [stack.start_web(name=f"hints-{n}", workers=1, threads=4, HINT_RATE="1/minute")
               for n in range(2)]
    learner = client.guest(servers[0], "Learner")
    apis = [learner, client.Api(servers[1], learner.token)]
    tables = [Table(learner, hints_table(learner), random.Random(n)) for n in range(2)]
    for table in tables:
        table.wait_for_turn()
        assert client.my_turn(table.view)
    first, second = (f"{client.API}/matches/{table.match_id}/hint" for table in tables)
    worked_out = client.expect(apis[0].get(first), 200, "the first hint")
    # The same view on either server: the cache's answer, not a second hint counted.
    for api in apis * 2:
        assert client.expect(api.get(first), 200, "the hint again") == worked_out
    # Another view of the same account is its second hint in the minute, on either server.
    for api in apis:
        refused = api.get(second)
        assert refused.status == 429, refused.body
        assert refused.body["code"] == "too_many_hints"
        assert int(refused.headers["Retry-After"]) >= 1
