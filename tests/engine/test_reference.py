"""Golden tests for the reference oracle (tests/engine/reference.py) against RULES.md."""

from __future__ import annotations

import pytest

from .reference import deal_scores, legal_cards, ranking, trick_winner


def make_rules(**overrides) -> dict:
    """The default table rules of RULES.md (auction game), with overrides."""
    rules = {
        "game": "auction",
        "min_bid": 4,
        "trump_lead": "after_broken",
        "akq_trump_lead": False,
        "must_beat_in_suit": True,
        "must_beat_after_trumped": False,
        "must_trump": True,
        "must_overtrump": True,
        "must_trump_when_cannot_overtrump": True,
        "scoring": "standard",
        "spades_announcements": False,
        "spades_overtrick_limit": None,
    }
    for key, value in overrides.items():
        assert key in rules, key
        rules[key] = value
    return rules


DEFAULT = make_rules()


# ---------------------------------------------------------------------------
# Worked examples of RULES.md
# ---------------------------------------------------------------------------


def test_worked_example_one_hearts_trump():
    # Ben leads 9C.
    trick = ["9C"]
    # Carla holds QC and 4C and must play QC (4C is illegal because she can beat the 9C).
    carla = ["QC", "4C", "AD", "5H", "2S"]
    assert legal_cards(carla, trick, "H", DEFAULT, False) == {"QC"}
    trick.append("QC")
    # Dan has no clubs and must trump: 3H (any trump, there is no trump in the trick yet).
    dan = ["3H", "JH", "KS", "8D"]
    assert legal_cards(dan, trick, "H", DEFAULT, False) == {"3H", "JH"}
    trick.append("3H")
    # Anna has no clubs; she must beat the 3H and plays 7H.
    anna = ["7H", "2H", "AS", "KD"]
    assert legal_cards(anna, trick, "H", DEFAULT, False) == {"7H"}
    trick.append("7H")
    # Anna wins the trick.
    assert trick_winner(trick, "H") == 3


def test_worked_example_two_beat_in_trumps_and_must_trump():
    # Hearts led, QH on the table; holding 9H and KH you must play KH.
    assert legal_cards(["9H", "KH", "AC", "2D"], ["QH"], "H", DEFAULT, False) == {"KH"}
    # With no hearts and spades trump you must play a spade.
    hand = ["2S", "TS", "AC", "KD"]
    assert legal_cards(hand, ["QH"], "S", DEFAULT, False) == {"2S", "TS"}
    # Completing it: QH, KH, 2S, AC with spades trump -> the 2S wins.
    assert trick_winner(["QH", "KH", "2S", "AC"], "S") == 2
    # Same cards with hearts trump -> the KH wins.
    assert trick_winner(["QH", "KH", "2S", "AC"], "H") == 1


def test_worked_example_standard_scoring():
    rules = make_rules(scoring="standard")
    assert deal_scores(rules, [7, 3, 3, 0], 0, 6, None) == [70, 30, 30, -40]
    # Bid 6 and took 5 -> -60.
    assert deal_scores(rules, [5, 4, 3, 1], 0, 6, None)[0] == -60


def test_worked_example_contract_scoring():
    rules = make_rules(scoring="contract", min_bid=5)
    # Anna bids 7, takes 8 -> 71; Ben 3 -> 30; Carla 2 -> 20; Dan 0 -> -70.
    assert deal_scores(rules, [8, 3, 2, 0], 0, 7, None) == [71, 30, 20, -70]


# ---------------------------------------------------------------------------
# Leading
# ---------------------------------------------------------------------------


def test_lead_anytime_any_card():
    rules = make_rules(trump_lead="anytime")
    hand = ["AS", "2H", "3D"]
    assert legal_cards(hand, [], "S", rules, False) == set(hand)


def test_lead_after_broken_not_broken_excludes_trumps():
    hand = ["AS", "2S", "2H", "3D"]
    assert legal_cards(hand, [], "S", DEFAULT, False) == {"2H", "3D"}


def test_lead_after_broken_broken_any_card():
    hand = ["AS", "2S", "2H", "3D"]
    assert legal_cards(hand, [], "S", DEFAULT, True) == set(hand)


def test_lead_only_trumps_any_card():
    hand = ["AS", "2S", "9S"]
    assert legal_cards(hand, [], "S", DEFAULT, False) == set(hand)


def test_lead_akq_rule_allows_exactly_a_k_q():
    rules = make_rules(akq_trump_lead=True)
    hand = ["AS", "KS", "QS", "JS", "2H"]
    assert legal_cards(hand, [], "S", rules, False) == {"AS", "KS", "QS", "2H"}


def test_lead_akq_rule_needs_all_three():
    rules = make_rules(akq_trump_lead=True)
    hand = ["AS", "KS", "JS", "2H"]
    assert legal_cards(hand, [], "S", rules, False) == {"2H"}


def test_lead_akq_rule_off():
    hand = ["AS", "KS", "QS", "2H"]
    assert legal_cards(hand, [], "S", DEFAULT, False) == {"2H"}


# ---------------------------------------------------------------------------
# Following suit and beating in suit
# ---------------------------------------------------------------------------


def test_follow_suit_must_beat():
    hand = ["3C", "TC", "KC", "AH"]
    assert legal_cards(hand, ["JC", "5C"], "H", DEFAULT, False) == {"KC"}


def test_follow_suit_cannot_beat_any_of_suit():
    hand = ["3C", "TC", "AH"]
    assert legal_cards(hand, ["JC", "5C"], "H", DEFAULT, False) == {"3C", "TC"}


def test_follow_suit_beat_the_highest_not_the_led_card():
    hand = ["TC", "KC", "2D"]
    # Highest club in the trick is QC, so only KC beats it.
    assert legal_cards(hand, ["9C", "QC"], "H", DEFAULT, False) == {"KC"}


def test_follow_suit_must_beat_off():
    rules = make_rules(must_beat_in_suit=False)
    hand = ["3C", "KC", "AH"]
    assert legal_cards(hand, ["JC"], "H", rules, False) == {"3C", "KC"}


def test_after_trumped_no_need_to_beat():
    # Clubs led, a heart (trump) played: with must_beat_after_trumped off any club will do.
    hand = ["3C", "KC", "AH"]
    assert legal_cards(hand, ["JC", "2H"], "H", DEFAULT, False) == {"3C", "KC"}


def test_after_trumped_must_still_beat_when_on():
    rules = make_rules(must_beat_after_trumped=True)
    hand = ["3C", "KC", "AH"]
    assert legal_cards(hand, ["JC", "2H"], "H", rules, False) == {"KC"}


def test_trumps_led_must_beat_highest_trump():
    hand = ["3S", "KS", "AH"]
    # Spades led and spades are trumps: not "trumped", must_beat_in_suit governs.
    assert legal_cards(hand, ["JS"], "S", DEFAULT, False) == {"KS"}


def test_trumps_led_must_beat_off_any_trump():
    rules = make_rules(must_beat_in_suit=False)
    hand = ["3S", "KS", "AH"]
    assert legal_cards(hand, ["JS"], "S", rules, False) == {"3S", "KS"}


def test_trumps_led_beat_applies_even_when_after_trumped_off():
    rules = make_rules(must_beat_after_trumped=False)
    hand = ["3S", "KS"]
    assert legal_cards(hand, ["JS", "QS"], "S", rules, False) == {"KS"}


# ---------------------------------------------------------------------------
# Void in the led suit
# ---------------------------------------------------------------------------


def test_void_no_trumps_any_card():
    hand = ["2D", "AD", "5S"]
    assert legal_cards(hand, ["JC", "2H"], "H", DEFAULT, False) == set(hand)


def test_void_must_trump_no_trump_in_trick_any_trump():
    hand = ["2H", "9H", "AD"]
    assert legal_cards(hand, ["JC", "QC"], "H", DEFAULT, False) == {"2H", "9H"}


def test_void_must_overtrump():
    hand = ["2H", "9H", "KH", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", DEFAULT, False) == {"9H", "KH"}


def test_void_overtrump_highest_trump_in_trick():
    hand = ["2H", "9H", "KH", "AD"]
    assert legal_cards(hand, ["JC", "5H", "TH"], "H", DEFAULT, False) == {"KH"}


def test_void_cannot_overtrump_still_must_trump():
    hand = ["2H", "4H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", DEFAULT, False) == {"2H", "4H"}


def test_void_cannot_overtrump_and_rule_off_any_card():
    rules = make_rules(must_trump_when_cannot_overtrump=False)
    hand = ["2H", "4H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == set(hand)


def test_void_can_overtrump_rule_off_does_not_matter():
    rules = make_rules(must_trump_when_cannot_overtrump=False)
    hand = ["2H", "9H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == {"9H"}


def test_void_must_overtrump_off_any_trump():
    rules = make_rules(must_overtrump=False)
    hand = ["2H", "9H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == {"2H", "9H"}


def test_void_must_overtrump_off_and_mtwcno_off_still_any_trump():
    # must_trump_when_cannot_overtrump only matters when must_overtrump is on.
    rules = make_rules(must_overtrump=False, must_trump_when_cannot_overtrump=False)
    hand = ["2H", "4H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == {"2H", "4H"}


def test_void_must_trump_off_still_must_overtrump_a_trump_in_the_trick():
    # Step 4 binds whenever a trump is in the trick; must_trump only governs step 3.
    rules = make_rules(must_trump=False)
    hand = ["2H", "9H", "AD", "3S"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == {"9H"}


def test_void_must_trump_off_cannot_overtrump_still_trumps():
    rules = make_rules(must_trump=False)
    hand = ["2H", "4H", "AD"]
    assert legal_cards(hand, ["JC", "5H"], "H", rules, False) == {"2H", "4H"}
    loose = make_rules(must_trump=False, must_trump_when_cannot_overtrump=False)
    assert legal_cards(hand, ["JC", "5H"], "H", loose, False) == set(hand)


def test_void_must_trump_off_no_trump_in_trick_any_card():
    rules = make_rules(must_trump=False)
    hand = ["2H", "4H", "AD"]
    assert legal_cards(hand, ["JC"], "H", rules, False) == set(hand)


def test_void_only_trumps_in_hand_must_overtrump():
    hand = ["2H", "QH"]
    assert legal_cards(hand, ["JC", "TH"], "H", DEFAULT, False) == {"QH"}


def test_trump_broken_flag_does_not_affect_following():
    hand = ["2H", "9H", "AD"]
    assert legal_cards(hand, ["JC"], "H", DEFAULT, True) == {"2H", "9H"}
    assert legal_cards(hand, ["JC"], "H", DEFAULT, False) == {"2H", "9H"}


# ---------------------------------------------------------------------------
# Trick winner
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        (["2C", "3C", "4C", "5C"], "S", 3),
        (["AC", "3C", "4C", "5C"], "S", 0),
        (["2C", "AD", "AH", "AS"], "S", 3),
        (["2C", "AD", "AH", "KD"], "S", 0),
        (["2C", "2S", "AS", "3S"], "S", 2),
        (["TC", "JC", "2D", "9C"], "D", 2),
        (["5S", "AS", "KH", "QS"], "S", 1),
        (["KD", "AD"], "S", 1),
    ],
)
def test_trick_winner(trick, trump, winner):
    assert trick_winner(trick, trump) == winner


# ---------------------------------------------------------------------------
# Scoring: auction
# ---------------------------------------------------------------------------


def test_bonus_scheme():
    rules = make_rules(scoring="bonus")
    # makes: 6*15 + 1*10 = 100; defender with 0 tricks -50.
    assert deal_scores(rules, [7, 3, 3, 0], 0, 6, None) == [100, 30, 30, -50]
    assert deal_scores(rules, [5, 4, 3, 1], 0, 6, None) == [-60, 40, 30, 10]


def test_simple_scheme():
    rules = make_rules(scoring="simple", min_bid=5)
    assert deal_scores(rules, [7, 3, 3, 0], 0, 6, None) == [7, 3, 3, -5]
    assert deal_scores(rules, [5, 4, 4, 0], 0, 6, None) == [-6, 4, 4, -5]


def test_contract_scheme_goes_down():
    rules = make_rules(scoring="contract")
    assert deal_scores(rules, [2, 0, 5, 6], 3, 7, None) == [20, -70, 50, -70]


def test_contract_exact():
    rules = make_rules(scoring="contract")
    assert deal_scores(rules, [1, 7, 5, 0], 1, 7, None) == [10, 70, 50, -70]


def test_standard_min_bid_5_penalty():
    rules = make_rules(min_bid=5)
    assert deal_scores(rules, [0, 0, 13, 0], 2, 13, None) == [-50, -50, 130, -50]


def test_declarer_with_zero_tricks_only_goes_down():
    rules = make_rules()
    assert deal_scores(rules, [0, 5, 4, 4], 0, 4, None) == [-40, 50, 40, 40]


# ---------------------------------------------------------------------------
# Scoring: partnership
# ---------------------------------------------------------------------------


def test_partnership_standard_makes():
    rules = make_rules(game="partnership", min_bid=7)
    # Team 0+2: 5+4 = 9 tricks, bid 8 -> 90 each; team 1+3: 4 tricks -> 40 each.
    assert deal_scores(rules, [5, 1, 4, 3], 2, 8, None) == [90, 40, 90, 40]


def test_partnership_goes_down():
    rules = make_rules(game="partnership", min_bid=7)
    assert deal_scores(rules, [3, 4, 3, 3], 1, 8, None) == [60, -80, 60, -80]


def test_partnership_defending_team_zero_tricks():
    rules = make_rules(game="partnership", min_bid=7)
    assert deal_scores(rules, [7, 0, 6, 0], 0, 9, None) == [130, -70, 130, -70]
    rules = make_rules(game="partnership", min_bid=8, scoring="contract")
    assert deal_scores(rules, [0, 7, 0, 6], 3, 9, None) == [-90, 94, -90, 94]


def test_partnership_one_partner_zero_tricks_is_fine():
    rules = make_rules(game="partnership", min_bid=7)
    assert deal_scores(rules, [9, 0, 0, 4], 0, 7, None) == [90, 40, 90, 40]


# ---------------------------------------------------------------------------
# Scoring: spades
# ---------------------------------------------------------------------------


def test_spades_plain_standard():
    rules = make_rules(game="spades")
    assert deal_scores(rules, [6, 4, 3, 0], None, None, None) == [60, 40, 30, -40]


def test_spades_plain_other_schemes():
    tricks = [6, 4, 3, 0]
    assert deal_scores(make_rules(game="spades", scoring="bonus"), tricks, None, None, None) == [
        60,
        40,
        30,
        -50,
    ]
    assert deal_scores(make_rules(game="spades", scoring="simple"), tricks, None, None, None) == [
        6,
        4,
        3,
        -4,
    ]
    rules = make_rules(game="spades", scoring="contract", min_bid=5)
    assert deal_scores(rules, tricks, None, None, None) == [60, 40, 30, -50]


def test_spades_announcements_with_limit():
    rules = make_rules(game="spades", spades_announcements=True, spades_overtrick_limit=3)
    # seat 0: 4 announced, 5 taken -> +40; seat 1: 3 announced, 2 taken -> -30;
    # seat 2: 2 announced, 6 taken (4 over) -> -20; seat 3: none, none -> +50.
    assert deal_scores(rules, [5, 2, 6, 0], None, None, [4, 3, 2, 0]) == [40, -30, -20, 50]


def test_spades_announcements_limit_boundary():
    rules = make_rules(game="spades", spades_announcements=True, spades_overtrick_limit=3)
    # 2 over -> still made; exactly 3 over -> goes down (yandan batmak).
    assert deal_scores(rules, [4, 5, 4, 0], None, None, [2, 2, 4, 1]) == [20, -20, 40, -10]


def test_spades_announcements_without_limit():
    rules = make_rules(game="spades", spades_announcements=True, spades_overtrick_limit=None)
    assert deal_scores(rules, [10, 2, 1, 0], None, None, [1, 0, 1, 0]) == [10, -50, 10, 50]


# ---------------------------------------------------------------------------
# Ranking
# ---------------------------------------------------------------------------


def test_ranking_distinct():
    assert ranking([10, 40, 30, 20], [3, 3, 3, 4]) == [4, 1, 2, 3]


def test_ranking_tie_broken_by_last_deal_tricks():
    assert ranking([50, 50, 20, 10], [2, 5, 3, 3]) == [2, 1, 3, 4]


def test_ranking_shared_place():
    assert ranking([90, 40, 40, -10], [5, 3, 3, 2]) == [1, 2, 2, 4]


def test_ranking_all_equal():
    assert ranking([0, 0, 0, 0], [4, 3, 3, 3]) == [1, 2, 2, 2]
    assert ranking([0, 0, 0, 0], [13, 0, 0, 0]) == [1, 2, 2, 2]
    assert ranking([5, 5, 5, 5], [4, 3, 3, 3]) == [1, 2, 2, 2]


def test_ranking_last_deal_tricks_only_breaks_ties():
    # More tricks in the last deal does not lift a lower total.
    assert ranking([30, 20, 10, 0], [0, 13, 0, 0]) == [1, 2, 3, 4]
