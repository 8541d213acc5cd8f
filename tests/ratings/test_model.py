"""The rating model and the places it rates: who gains, who loses, who is last."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from ratings import model
from ratings.model import Player, Skill
from ratings.services import bot_skill, rated_places

places = st.lists(st.integers(min_value=1, max_value=4), min_size=4, max_size=4)


def test_a_new_player_is_1500_with_200_of_doubt() -> None:
    assert (Skill().rating, Skill().deviation) == (1500, 200)


def test_one_first_match_moves_a_new_player_by_less_than_200() -> None:
    # Last at a table of another new person, an Easy and a Medium computer player: the match
    # that moved a new player by 489 points from openskill's default doubt.
    after = model.rate([Player(Skill(), 4), Player(Skill(), 3),
                        Player(bot_skill("easy"), 2, fixed=True),
                        Player(bot_skill("medium"), 1, fixed=True)], partnership=False)
    assert 1300 < after[0].rating < after[1].rating < 1500
    skill = Skill.shown(1650, 60)
    assert (skill.rating, skill.deviation) == (1650, 60)


@given(places)
def test_among_equals_a_better_place_never_gains_less(ranks: list[int]) -> None:
    after = model.rate([Player(Skill(), place) for place in ranks], partnership=False)
    for a in range(4):
        for b in range(4):
            if ranks[a] < ranks[b]:
                assert after[a].mu > after[b].mu
            if ranks[a] == ranks[b]:
                assert after[a] == after[b]
        assert after[a].sigma < Skill().sigma  # every match tells something


def test_a_computer_player_keeps_its_published_rating() -> None:
    hard = bot_skill("hard")
    after = model.rate([Player(Skill(), 4), Player(hard, 1, fixed=True), Player(Skill(), 2),
                        Player(hard, 3, fixed=True)], partnership=False)
    assert after[1] == after[3] == hard
    assert after[0].mu < Skill().mu < after[2].mu


def test_partners_share_their_team_result_unless_one_left() -> None:
    start = [Player(Skill(), 1), Player(Skill(), 2), Player(Skill(), 1), Player(Skill(), 2)]
    after = model.rate(start, partnership=True)
    assert after[0] == after[2] and after[1] == after[3] and after[0].mu > after[1].mu
    # Seat 2 left a winning team: rated as if its team lost; its partner as the team did.
    start[2] = Player(Skill(), 3)
    after = model.rate(start, partnership=True)
    assert after[2].mu < Skill().mu < after[0].mu


START = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)
END = START + timedelta(hours=1)


def finished(game: str, ranking: list[int], *gone: int,
             left: dict[int, int] | None = None, autopilot: tuple[int, ...] = ()
             ) -> SimpleNamespace:
    """A finished match whose people of the seats ``gone`` left, all at once or, by ``left``,
    each that many minutes into it; the seats ``autopilot`` ended on autopilot."""
    minutes = {seat: 10 for seat in gone} | (left or {})
    rows = [
        SimpleNamespace(index=s, is_person=True, autopilot=s in autopilot,
                        left_at=START + timedelta(minutes=minutes[s]) if s in minutes else None)
        for s in range(4)
    ]
    return SimpleNamespace(game=game, ranking=ranking, finished_at=END,
                           seats=SimpleNamespace(all=lambda: rows))


def test_who_left_is_last_and_the_others_keep_their_order() -> None:
    assert rated_places(finished("auction", [1, 2, 3, 4])) == [1, 2, 3, 4]
    assert rated_places(finished("auction", [1, 2, 3, 4], 0)) == [4, 1, 2, 3]
    assert rated_places(finished("auction", [1, 2, 2, 4], 0, 3)) == [3, 1, 1, 3]
    assert rated_places(finished("partnership", [1, 2, 1, 2], 2)) == [1, 2, 3, 2]


def test_the_gone_are_ranked_in_the_order_they_went_the_first_lowest() -> None:
    assert rated_places(finished("auction", [1, 2, 2, 4], left={0: 30, 3: 5})) == [3, 1, 1, 4]
    # Everyone left: the last to go is first.
    assert rated_places(finished("auction", [4, 3, 2, 1],
                                 left={0: 40, 1: 10, 2: 20, 3: 30})) == [1, 4, 3, 2]
    # On autopilot at the end: gone at the end, after any leaver.
    assert rated_places(finished("auction", [1, 2, 3, 4], left={1: 30},
                                 autopilot=(2, 3))) == [1, 4, 2, 2]
    # The partnership game: a team's place counts once among those who stayed.
    assert rated_places(finished("partnership", [1, 2, 1, 2], left={0: 5, 1: 10})) == [
        4, 3, 1, 2]
    assert rated_places(finished("partnership", [1, 2, 1, 2], left={0: 5, 2: 10})) == [
        3, 1, 2, 1]
    assert rated_places(finished("partnership", [1, 2, 1, 2],
                                 left={0: 40, 1: 10, 2: 20, 3: 30})) == [1, 4, 3, 2]


def test_when_all_partners_leave_each_loses_but_the_last_to_leave() -> None:
    places = rated_places(finished("partnership", [1, 2, 1, 2],
                                   left={0: 10, 1: 20, 2: 30, 3: 40}))
    after = model.rate([Player(Skill(), place) for place in places], partnership=True)
    assert after[3].mu > Skill().mu > max(after[0].mu, after[1].mu, after[2].mu)
