"""`TableRules`: presets, defaults, validation and round-trips."""

import pytest

from games.engine import PRESETS, Game, RuleError, TableRules


class TestPresets:
    def test_defaults_are_the_common_turkish_rules(self) -> None:
        rules = PRESETS[Game.AUCTION]
        assert rules.to_dict() == {
            "game": "auction",
            "direction": "anticlockwise",
            "min_bid": 4,
            "all_pass": "dealer_takes",
            "all_pass_bid": 4,
            "trump_lead": "after_broken",
            "akq_trump_lead": False,
            "must_beat_in_suit": True,
            "must_beat_after_trumped": False,
            "must_trump": True,
            "must_overtrump": True,
            "must_trump_when_cannot_overtrump": True,
            "scoring": "standard",
            "partnership_dummy": False,
            "spades_announcements": False,
            "spades_overtrick_limit": None,
            "weak_hand_redeal": False,
        }

    def test_partnership_and_spades_presets(self) -> None:
        assert (PRESETS[Game.PARTNERSHIP].min_bid, PRESETS[Game.PARTNERSHIP].all_pass_bid) == (7, 7)
        spades = PRESETS[Game.SPADES]
        assert spades.all_pass is None and spades.all_pass_bid is None and not spades.has_auction

    def test_round_trip(self) -> None:
        rules = TableRules.create("spades", spades_announcements=True, scoring="bonus")
        assert TableRules.from_dict(rules.to_dict()) == rules
        assert rules.replace(spades_overtrick_limit=None).spades_overtrick_limit is None

    def test_replace_derives_dependent_defaults(self) -> None:
        spades = TableRules.create("spades")
        assert spades.replace(spades_announcements=True).spades_overtrick_limit == 3
        announcing = TableRules.create("spades", spades_announcements=True)
        assert announcing.replace(spades_announcements=False).spades_overtrick_limit is None
        assert TableRules.create("auction").replace(min_bid=5).min_bid == 5


class TestValidation:
    @pytest.mark.parametrize(
        ("game", "overrides", "field"),
        [
            ("auction", {"min_bid": 7}, "min_bid"),
            ("partnership", {"min_bid": 4}, "min_bid"),
            ("auction", {"spades_announcements": True}, "spades_announcements"),
            ("partnership", {"spades_announcements": True}, "spades_announcements"),
            ("auction", {"partnership_dummy": True}, "partnership_dummy"),
            ("spades", {"all_pass": "redeal"}, "all_pass"),
            ("spades", {"all_pass_bid": 4}, "all_pass_bid"),
            ("auction", {"all_pass_bid": 3}, "all_pass_bid"),
            ("partnership", {"all_pass_bid": 6}, "all_pass_bid"),
            ("spades", {"spades_overtrick_limit": 3}, "spades_overtrick_limit"),
            ("spades", {"spades_announcements": True, "spades_overtrick_limit": 0},
             "spades_overtrick_limit"),
            ("auction", {"scoring": "fancy"}, "scoring"),
            ("auction", {"direction": "left"}, "direction"),
            ("auction", {"must_trump": "yes"}, "must_trump"),
            ("auction", {"min_bid": "4"}, "min_bid"),
            ("auction", {"trumps": "H"}, "trumps"),
            ("poker", {}, "game"),
        ],
    )
    def test_refuses_with_the_field_named(self, game, overrides, field) -> None:
        with pytest.raises(RuleError) as caught:
            TableRules.create(game, **overrides)
        assert caught.value.field == field
        assert str(caught.value).startswith(field)

    def test_error_lists_allowed_values(self) -> None:
        with pytest.raises(RuleError) as caught:
            TableRules.create("auction", spades_announcements=True)
        assert caught.value.allowed == [False]
        assert "spades" in caught.value.message
        with pytest.raises(RuleError) as caught:
            TableRules.create("auction", min_bid=7)
        assert caught.value.allowed == [4, 5]

    def test_accepts_every_listed_option(self) -> None:
        TableRules.create(
            "partnership",
            direction="clockwise",
            min_bid=8,
            all_pass="redeal",
            all_pass_bid=7,
            trump_lead="anytime",
            akq_trump_lead=True,
            must_beat_in_suit=False,
            must_beat_after_trumped=True,
            must_trump=False,
            must_overtrump=False,
            must_trump_when_cannot_overtrump=False,
            scoring="contract",
            partnership_dummy=True,
            weak_hand_redeal=True,
        )
