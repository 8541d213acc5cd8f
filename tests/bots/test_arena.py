import random

from bots import arena
from games.engine import Deal, DealStart, RequestRedeal, TableRules


def test_arena_reports_a_duplicate_comparison() -> None:
    report = arena.run("auction", "easy", "random", 3)
    assert report.deal_sets == 3 and sum(count for _, count in report.role_means.values()) == 12
    assert "easy" in report.line()
    assert report.call_p95_ms >= report.call_p50_ms > 0  # the auction's calls are timed


def test_the_reference_field_that_sees_all_cards_plays_legal_cards() -> None:
    report = arena.run("partnership", "medium", arena.SEES_ALL, 2)
    assert report.deal_sets == 2


def test_the_judge_charges_nothing_to_the_search_it_judges_by() -> None:
    seeing = arena.run("spades", arena.SEES_ALL, "medium", 2, judged=True)
    assert set(seeing.loss_by_stage) == set(arena.STAGES)
    assert sum(seeing.loss_by_stage.values()) == 0
    medium = arena.run("spades", "medium", "easy", 4, judged=True)
    assert sum(medium.loss_by_stage.values()) > 0
    assert "given up against the seeing search" in medium.line()
    assert medium.unseen_value > 0


def test_the_seeing_reference_with_hards_calls_bids_as_hard_does() -> None:
    start = DealStart.shuffle(TableRules.create("auction"), dealer=0, rng=random.Random(3))
    seeing, _ = arena.play_deal(start, [arena.HARD_SEES_ALL] * 4, seed=5)
    hard, _ = arena.play_deal(start, ["hard"] * 4, seed=5)
    assert seeing.declarer == hard.declarer and seeing.bid == hard.bid
    assert seeing.score is not None


def test_hard_given_the_real_layout_plays_no_dominated_card() -> None:
    report = arena.run("partnership", arena.HARD_SEES_ALL, "medium", 2)
    assert report.cards > 0 and not any(report.waste.values())


def test_the_reference_fields_ask_for_a_redeal_as_the_level_making_their_calls() -> None:
    rules = TableRules.create("spades", weak_hand_redeal=True)
    rng = random.Random(1)
    while True:
        deal = Deal(DealStart.shuffle(rules, dealer=0, rng=rng))
        observation = deal.observation(deal.to_act)
        if RequestRedeal() in observation.legal_actions:
            break
    for field in (arena.PIMC, arena.HARD_SEES_ALL):
        action, _ = arena._decide(deal, observation, field, random.Random(2))
        assert action == RequestRedeal()
