"""RULES.md "End of a deal and scoring", team rules, Koz Maça and the final ranking."""

import pytest

from games.engine import Outcome, TableRules, ranking, score_deal

Out = Outcome


def auction(scoring: str = "standard", **rules) -> TableRules:
    return TableRules.create("auction", scoring=scoring, **rules)


class TestAuctionSchemes:
    def test_standard_examples(self) -> None:
        made = score_deal(auction(), [7, 3, 3, 0], declarer=0, bid=6)
        assert made.points == (70, 30, 30, -40)
        assert made.outcomes == (Out.MADE, Out.SCORED, Out.SCORED, Out.BATAK)
        down = score_deal(auction(), [5, 3, 3, 2], declarer=0, bid=6)
        assert down.points[0] == -60 and down.outcomes[0] == Out.DOWN

    def test_standard_zero_penalty_follows_min_bid(self) -> None:
        assert score_deal(auction(min_bid=5), [8, 3, 2, 0], declarer=0, bid=6).points[3] == -50

    def test_contract_example(self) -> None:
        score = score_deal(auction("contract"), [8, 3, 2, 0], declarer=0, bid=7)
        assert score.points == (71, 30, 20, -70)
        assert score_deal(auction("contract"), [6, 3, 2, 2], declarer=0, bid=7).points[0] == -70

    @pytest.mark.parametrize(
        ("scoring", "made", "down", "defender", "batak"),
        [
            ("standard", 80, -60, 30, -40),
            ("bonus", 6 * 15 + 20, -60, 30, -50),
            ("simple", 8, -6, 3, -4),
            ("contract", 62, -60, 30, -60),
        ],
    )
    def test_every_scheme(self, scoring, made, down, defender, batak) -> None:
        rules = auction(scoring)
        assert score_deal(rules, [8, 3, 2, 0], declarer=0, bid=6).points[0] == made
        assert score_deal(rules, [5, 3, 5, 0], declarer=0, bid=6).points[0] == down
        assert score_deal(rules, [8, 3, 2, 0], declarer=0, bid=6).points[1] == defender
        assert score_deal(rules, [8, 3, 2, 0], declarer=0, bid=6).points[3] == batak

    def test_declarer_with_zero_tricks_is_down_not_batak(self) -> None:
        score = score_deal(auction(), [0, 5, 4, 4], declarer=0, bid=6)
        assert score.points[0] == -60 and score.outcomes[0] == Out.DOWN


class TestPartnership:
    def test_team_tricks_bind_the_bid(self) -> None:
        rules = TableRules.create("partnership")
        score = score_deal(rules, [4, 3, 4, 2], declarer=2, bid=8)
        assert score.points == (80, 50, 80, 50)
        assert score.outcomes == (Out.MADE, Out.SCORED, Out.MADE, Out.SCORED)

    def test_team_down_and_team_batak(self) -> None:
        rules = TableRules.create("partnership")
        down = score_deal(rules, [3, 3, 4, 3], declarer=0, bid=8)
        assert down.points == (-80, 60, -80, 60)
        batak = score_deal(rules, [7, 0, 6, 0], declarer=0, bid=9)
        assert batak.points == (130, -70, 130, -70)
        assert batak.outcomes[1] == Out.BATAK


class TestSpades:
    def test_default_tricks_times_ten_and_zero_penalty(self) -> None:
        score = score_deal(TableRules.create("spades"), [6, 4, 3, 0])
        assert score.points == (60, 40, 30, -40)
        assert score.outcomes == (Out.SCORED, Out.SCORED, Out.SCORED, Out.BATAK)

    def test_announcements_with_overtrick_limit(self) -> None:
        rules = TableRules.create("spades", spades_announcements=True)
        assert rules.spades_overtrick_limit == 3
        score = score_deal(rules, [4, 6, 3, 0], announcements=[3, 3, 4, 0])
        # 4 of 3: made; 6 of 3: three over, down; 3 of 4: down; none and none: +50.
        assert score.points == (30, -30, -40, 50)
        assert score.outcomes == (Out.MADE, Out.DOWN, Out.DOWN, Out.MADE)

    def test_none_announced_but_a_trick_taken(self) -> None:
        rules = TableRules.create("spades", spades_announcements=True)
        assert score_deal(rules, [1, 4, 4, 4], announcements=[0, 4, 4, 4]).points[0] == -50

    def test_overtrick_limit_disabled(self) -> None:
        rules = TableRules.create("spades", spades_announcements=True, spades_overtrick_limit=None)
        assert score_deal(rules, [9, 2, 2, 0], announcements=[2, 2, 2, 0]).points[0] == 20


class TestRanking:
    def test_highest_total_first(self) -> None:
        assert ranking([10, 50, 30, -20], [3, 3, 3, 4]) == (3, 1, 2, 4)

    def test_tie_broken_by_last_deal_tricks(self) -> None:
        assert ranking([50, 50, 30, 0], [2, 5, 3, 3]) == (2, 1, 3, 4)

    def test_still_tied_shares_the_place(self) -> None:
        assert ranking([50, 40, 40, 0], [2, 4, 4, 3]) == (1, 2, 2, 4)

    def test_partnership_uses_team_tricks(self) -> None:
        assert ranking([80, 40, 80, 40], [1, 5, 6, 1], partnership=True) == (1, 2, 1, 2)
        assert ranking([60, 60, 60, 60], [4, 3, 3, 3], partnership=True) == (1, 2, 1, 2)
        assert ranking([60, 60, 60, 60], [4, 3, 3, 4], partnership=True) == (1, 1, 1, 1)
