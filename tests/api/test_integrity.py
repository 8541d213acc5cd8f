"""`manage.py check_matches` (games/integrity.py): a match played through the API replays to
its stored state; each way a stored match can stop agreeing with its log is found."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from django.core.management import CommandError, call_command

from bots import players
from games.integrity import match_problems
from games.models import Action, Deal, Match
from tests.api.conftest import submit


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6))


@pytest.fixture
def played(player) -> Match:
    """A finished match of two deals, a person against three computer players."""
    someone = player("Checked")
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3
    body = {"game": "auction", "deals": 2, "seats": seats}
    match_id = someone.post("/matches", body).json()["id"]
    rng = random.Random(11)
    while (view := someone.view(match_id))["status"] == "active":
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
    return Match.objects.get(pk=match_id)


@pytest.mark.django_db(transaction=True)
def test_a_played_match_replays_to_its_stored_state(played: Match, capsys) -> None:
    assert match_problems(played) == []
    call_command("check_matches")
    assert "problems: 0" in capsys.readouterr().out


def _first_deal(match: Match) -> Deal:
    return match.deals.order_by("sequence").first()  # type: ignore[return-value]


def _score(match: Match) -> None:
    deal = _first_deal(match)
    deal.scores = [points + 10 for points in deal.scores]
    deal.save()


def _totals(match: Match) -> None:
    match.totals = [total + 1 for total in match.totals]
    match.save()


def _salt(match: Match) -> None:
    Deal.objects.filter(pk=_first_deal(match).pk).update(salt="0" * 32)


def _hands(match: Match) -> None:
    deal = _first_deal(match)
    deal.hands = [deal.hands[1], deal.hands[0], *deal.hands[2:]]
    deal.save()


def _lost_action(match: Match) -> None:
    Action.objects.filter(match=match, version=3).delete()


def _changed_action(match: Match) -> None:
    row = Action.objects.filter(match=match, kind="play").order_by("version").first()
    assert row is not None
    row.payload = {"card": "AS" if row.payload["card"] != "AS" else "KS"}
    row.save()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("tamper", "finding"), [
    (_score, "stored result is not the replay's"),
    (_totals, "are not the deals' sum"),
    (_salt, "do not give its commitment"),
    (_hands, "are not the ones its deck deals"),
    (_lost_action, "are not 1.."),
    (_changed_action, "does not replay"),
])
def test_what_differs_from_the_log_is_found(played: Match, tamper: Callable[[Match], None],
                                            finding: str, capsys) -> None:
    tamper(played)
    problems = match_problems(Match.objects.get(pk=played.pk))
    assert any(finding in problem for problem in problems), problems
    with pytest.raises(CommandError):
        call_command("check_matches", str(played.pk))
    assert finding in capsys.readouterr().err


@pytest.mark.django_db(transaction=True)
def test_the_embedded_default_backs_up_and_restores(played: Match, player, tmp_path,
                                                    capsys) -> None:
    """SQLite's online backup: a match made after the copy is gone once it is restored, the
    ones in it are back as they were, and all of them are checked."""
    copy = tmp_path / "batak.sqlite3"
    call_command("backup", str(copy))
    later = player("Later").post("/matches", {
        "game": "spades", "deals": 1,
        "seats": [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3,
    }).json()["id"]
    Match.objects.filter(pk=played.pk).update(totals=[0, 0, 0, 0])
    call_command("restore", str(copy))
    assert not Match.objects.filter(pk=later).exists()
    assert Match.objects.get(pk=played.pk).totals == played.totals
    assert "matches checked: 1, problems: 0" in capsys.readouterr().out
