"""The post-deal analysis: on the rules' worked examples (the golden deals) its judgement with
every hand known is the exact search's, move by move; the player's own view is Hard's; marks
follow the thresholds; the CPU and search bounds hold."""

from __future__ import annotations

import os
import signal
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from bots import analysis
from bots.advice import choice_values
from bots.players import controlled_seats, scoring_side
from bots.solver import Solver
from games.engine import ActionKind, Deal, Game, Phase, Play
from games.engine.notation import NotatedDeal, read_deal, read_match
from tests.bots.test_solver import best_response

GOLDEN = Path(__file__).parent.parent / "engine" / "golden"


def golden_deals() -> list[tuple[str, NotatedDeal]]:
    deals = []
    for path in sorted(GOLDEN.glob("*.bdn")):
        text = path.read_text()
        if "[Deals " in text:
            deals += [(f"{path.stem}-{i}", deal) for i, deal in enumerate(read_match(text).deals)]
        else:
            deals.append((path.stem, read_deal(text)))
    return [(name, deal) for name, deal in deals if deal.replay().phase == Phase.FINISHED]


GOLDEN_DEALS = golden_deals()
# The reference: a solver of its own, each search from an empty table.
SOLVER = Solver()


def _solved(deal: Deal, seat: int, card: int) -> tuple[int, int]:
    """Points and tricks after ``card`` by an unbounded search from an empty table."""
    observation = deal.observation(seat)
    side, values = scoring_side(observation)
    after = deal.play.copy()
    after.play(card)
    partnership = deal.rules.game == Game.PARTNERSHIP
    if after.finished:
        tricks = sum(after.tricks_won[s] for s in side)
        return values[tricks], tricks
    controlled = controlled_seats(observation)
    return (SOLVER.best_response(after, controlled, side, values, partnership),
            SOLVER.best_response(after, controlled, side, list(range(14)), partnership))


@pytest.mark.parametrize(("name", "notated"), GOLDEN_DEALS, ids=[n for n, _ in GOLDEN_DEALS])
def test_every_card_is_judged_as_the_exact_search_judges_it(
    name: str, notated, monkeypatch,
) -> None:
    # Without the player's own view (Hard's search: seconds, and not this test's).
    monkeypatch.setattr(analysis, "_seen", lambda move: None)
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    # Only a dummy's early cards may need more search than a move is allowed.
    dummy = notated.start.rules.partnership_dummy
    assert dummy or not review.partial
    deal = Deal(notated.start)
    by_index = {move.index: move for move in review.moves}
    judged = 0
    for index, (seat, action) in enumerate(notated.log, start=1):
        move = by_index[index]
        if action.kind == ActionKind.PLAY and move.choices > 1 and (
                move.known is not None or not dummy):
            judged += 1
            legal = deal.legal_cards()
            outcomes = {card: _solved(deal, seat, card.index) for card in legal}
            best_points = max(points for points, _ in outcomes.values())
            most_tricks = max(tricks for _, tricks in outcomes.values())
            chosen = outcomes[action.card]
            assert move.known is not None
            assert move.known.points_cost == best_points - chosen[0], (name, index)
            assert move.known.tricks_cost == most_tricks - chosen[1], (name, index)
            assert outcomes[move.known.best.card][0] == best_points
        deal.apply(seat, action)
    assert judged >= 10, name


def test_late_cards_match_the_plain_definition_of_the_search() -> None:
    assert len(GOLDEN_DEALS) >= 5, "the worked examples have scored deals"
    name, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    deal = Deal(notated.start)
    for index, (seat, action) in enumerate(notated.log, start=1):
        move = next(m for m in review.moves if m.index == index)
        late = deal.play is not None and sum(deal.play.tricks_won) >= 10
        if late and move.choices > 1:
            observation = deal.observation(seat)
            side, values = scoring_side(observation)
            controlled = set(controlled_seats(observation))
            points = {}
            for card in deal.legal_cards():
                after = deal.play.copy()
                after.play(card.index)
                points[card] = best_response(after, controlled, set(side), values,
                                             deal.rules.game == Game.PARTNERSHIP)
            assert move.known.points_cost == max(points.values()) - points[action.card], name
        deal.apply(seat, action)


def test_the_players_own_view_is_hards_values_of_its_choices() -> None:
    _, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    move = next(m for m in review.moves if m.choices > 1 and m.action.kind == ActionKind.PLAY)
    values = choice_values(move.observation, settings=analysis.SEEN)
    chosen = next(v for v in values if v.action == move.action)
    assert move.seen is not None
    assert move.seen.best == values[0].action
    assert move.seen.points_cost == pytest.approx(values[0].points - chosen.points)


def test_a_hints_suggestion_is_what_the_analysis_judges_best_from_the_view() -> None:
    # The hint (through the computer players' seam, as games.hints asks) and the analysis's
    # `seen` judge a view alike: following a hint never earns a mark.
    from bots import interface
    from games import hints

    _, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    judged = [m for m in review.moves if m.choices > 1 and m.seen is not None]
    assert judged
    for move in judged:
        hint = hints.worked_out(interface.choice_values(move.observation))
        assert move.seen is not None and hint.choices[0]["action"] == move.seen.best.to_dict()


@pytest.mark.parametrize(("cost", "mark"), [
    (0, None), (4.9, None), (5, "inaccuracy"), (9.9, "inaccuracy"), (10, "mistake"),
    (29.9, "mistake"), (30, "blunder"), (120, "blunder"),
])
def test_marks_follow_the_thresholds(cost: float, mark: str | None) -> None:
    _, notated = GOLDEN_DEALS[0]
    seat, action = notated.log[0]
    move = analysis.MoveReview(1, seat, action, Deal(notated.start).observation(seat), None, 2,
                               seen=analysis.Judgement(action, cost, None))
    assert move.mark == mark


def test_the_summary_adds_up_each_players_points_given_up() -> None:
    _, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    for player in review.players():
        mine = [m for m in review.moves if m.seat == player["seat"] and m.seen is not None]
        assert player["points_given_up"] == pytest.approx(
            sum(m.seen.points_cost for m in mine), abs=0.01)
        assert player["judged"] == len(mine)


def test_no_time_left_judges_nothing_and_says_so() -> None:
    _, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=0)
    assert review.partial
    assert all(m.known is None and m.seen is None for m in review.moves)


def test_the_cpu_budget_stops_the_analysis_after_the_step_that_passes_it() -> None:
    _, notated = GOLDEN_DEALS[0]
    whole = analysis.analyse(notated.start, notated.log, seconds=600)
    judged = sum(1 for m in whole.moves if m.seen is not None)
    cut = analysis.analyse(notated.start, notated.log, seconds=whole.cpu_seconds / 4)
    assert cut.partial
    assert sum(1 for m in cut.moves if m.seen is not None) < judged


def test_a_search_past_its_bound_leaves_the_move_unjudged_with_every_hand_known(
    monkeypatch,
) -> None:
    monkeypatch.setattr(analysis, "NODES_PER_MOVE", 3)
    _, notated = GOLDEN_DEALS[0]
    review = analysis.analyse(notated.start, notated.log, seconds=600)
    early = [m for m in review.moves
             if isinstance(m.action, Play) and m.choices > 1 and m.index < 20]
    assert early and all(m.known is None for m in early)
    assert review.partial


def test_the_embedded_default_analyses_in_a_process_of_lowest_priority() -> None:
    _, notated = GOLDEN_DEALS[0]
    result = analysis.analyse_in_background(notated.start, notated.log, seconds=600)
    assert result["moves"] == analysis.analyse(notated.start, notated.log, 600).to_dict()["moves"]
    assert analysis._background is not None
    assert analysis._background.submit(os.nice, 0).result() == 19


def test_a_dead_analysis_process_is_replaced_by_the_next_analysis() -> None:
    _, notated = GOLDEN_DEALS[0]
    analysis.analyse_in_background(notated.start, notated.log, seconds=1)
    assert analysis._background is not None
    os.kill(analysis._background.submit(os.getpid).result(), signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):
        analysis.analyse_in_background(notated.start, notated.log, seconds=1)
    assert analysis.analyse_in_background(notated.start, notated.log, seconds=1)["moves"]
