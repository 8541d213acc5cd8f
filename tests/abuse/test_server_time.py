"""Server time per account (games/server_time.py, runtime/server_time.py): each request's CPU
and each computer players' turn's is charged to whoever pays for it; past a full bucket the
account's computer players' turns wait, past two its requests are refused (429
`server_time_exhausted` with Retry-After), and nobody else's are. A platform's players share
their platform's budget."""

from __future__ import annotations

import pytest

from games import server_time
from runtime import server_time as buckets
from runtime.server_time import Payer
from tests.api.conftest import create_match
from tests.platforms.conftest import new_platform

from .test_waits import assert_refused

PER_MINUTE = 6.0


@pytest.fixture
def budgets(settings) -> None:
    settings.SERVER_TIME_PER_ACCOUNT = PER_MINUTE
    settings.SERVER_TIME_PER_PLATFORM = 10 * PER_MINUTE


def use(account: int, full_buckets: float, per_minute: float = PER_MINUTE) -> None:
    """Charge ``account`` that many of its full buckets at once."""
    buckets.charge([Payer(account, per_minute)],
                   full_buckets * per_minute * buckets.BURST_SECONDS / 60)


def test_the_bucket_holds_a_burst_and_drains_at_the_budgets_rate(monkeypatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(buckets.time, "monotonic", lambda: now[0])
    payer = (Payer(7, PER_MINUTE),)  # 0.1 s a second; its bucket holds 20 s of that: 2 s
    buckets.charge(payer, 2.0)  # a whole bucket at once: full, not past it
    assert buckets.deferral(payer) == 0
    buckets.charge(payer, 0.2)  # two seconds' budget more
    assert buckets.deferral(payer) == pytest.approx(2.0)
    assert buckets.refusal(payer) == 0
    buckets.charge(payer, 2.0)
    assert buckets.refusal(payer) == pytest.approx(2.0)
    now[0] += 10  # drains a second of server time
    assert buckets.refusal(payer) == 0
    assert buckets.deferral(payer) == pytest.approx(12.0)
    # Idle long enough, it is empty: the next charge starts from nothing, not from a credit.
    now[0] += 3600
    buckets.charge(payer, 1.0)
    assert buckets.deferral(payer) == 0 and buckets.refusal(payer) == 0


def test_requests_are_refused_past_twice_the_budget_and_others_served(player, budgets) -> None:
    flooding, other = player("flooding"), player("other")
    use(flooding.user_id, 1.5)
    assert flooding.get("/matches").status_code == 200  # past one bucket only: served
    use(flooding.user_id, 0.6)
    refused = flooding.get("/matches")
    assert_refused(refused, "server_time_exhausted")
    assert 1 <= int(refused["Retry-After"]) <= 3
    assert other.get("/matches").status_code == 200


def test_each_request_is_charged_its_server_time(player, settings) -> None:
    # A budget so small that the CPU of any one request is more than two minutes of it.
    settings.SERVER_TIME_PER_ACCOUNT = 1e-6
    someone, other = player("someone"), player("other")
    assert someone.get("/matches").status_code == 200
    assert_refused(someone.get("/matches"), "server_time_exhausted")
    assert other.get("/matches").status_code == 200


def test_a_platforms_players_share_its_budget(db, budgets, settings) -> None:
    platform = new_platform("Shared")
    first, second = platform.player("first"), platform.player("second")
    assert second.get("/api/v1/matches").status_code == 200
    platform_account = platform.platform.user_id
    use(platform_account, 2.1, per_minute=settings.SERVER_TIME_PER_PLATFORM)
    for app in (first, second):
        assert_refused(app.get("/api/v1/matches"), "server_time_exhausted")
    assert_refused(platform.get("/matches"), "server_time_exhausted")


def test_a_platforms_player_is_held_to_a_persons_budget_too(db, budgets) -> None:
    platform = new_platform("Own")
    first, second = platform.player("first"), platform.player("second")
    first_account = first.get("/api/v1/me").json()["id"]
    use(first_account, 2.1)
    assert_refused(first.get("/api/v1/matches"), "server_time_exhausted")
    assert second.get("/api/v1/matches").status_code == 200


def test_computer_players_turns_wait_while_their_creator_is_past_the_budget(
        player, budgets, monkeypatch) -> None:
    from bots import interface

    sent = []
    monkeypatch.setattr(interface.work, "later",
                        lambda task, *args, delay=0.0, **kwargs: sent.append(delay))
    person = player("person")
    match = create_match(person, deals=1, seats=[
        {"kind": "me"}, *[{"kind": "bot", "bot_level": "medium"}] * 3])
    interface.send_turns(match["id"], 1)
    use(person.user_id, 1.25)
    interface.send_turns(match["id"], 2)
    assert sent[0] == 0
    assert sent[1] == pytest.approx(buckets.BURST_SECONDS / 4, abs=1)
    # Who pays for a match's turns is its creator, whoever moved.
    assert server_time.match_payers(match["id"]) == (Payer(person.user_id, PER_MINUTE),)

