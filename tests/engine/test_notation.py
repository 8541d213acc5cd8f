"""Batak Deal Notation: printed text reads back to the same deal and prints to the same bytes;
the golden files (RULES.md's worked examples) score as the rules say; every malformed or illegal
text is refused with a `NotationError` naming its line."""

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Deal, DealStart, Match, Reason, TableRules
from games.engine.notation import (
    BAD_RULE,
    CARD_TWICE,
    DEAL_ORDER,
    DECK_MISMATCH,
    EXPECTED,
    HAND_SIZE,
    HEADER_TAG,
    ILLEGAL_MOVE,
    MATCH_TAGS_IN_DEAL,
    MISSING_TAG,
    NOT_ONE_DEAL,
    REPEATED_TAG,
    TRICK_SIZE,
    UNKNOWN_TAG,
    UNSUPPORTED_VERSION,
    WRONG_RESULT,
    NotatedDeal,
    NotatedMatch,
    NotationError,
    read_deal,
    read_match,
    write_deal,
    write_match,
)
from games.engine.play import next_seat_table
from games.engine.shuffle import deck_from_hands, hands_from_deck

from .test_properties import table_rules

GOLDEN = Path(__file__).parent / "golden"


def random_deal(rules: TableRules, seed: int, dealer: int, steps: int | None = None) -> Deal:
    """A deal played with random legal moves, stopped after ``steps`` actions if given."""
    rng = random.Random(seed)
    deal = Deal.new(rules, dealer, rng=rng)
    while not deal.is_over and (steps is None or len(deal.log) < steps):
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    return deal


class TestRoundTrip:
    @settings(max_examples=300)
    @given(rules=table_rules(), seed=st.integers(0, 2**32), dealer=st.integers(0, 3),
           steps=st.none() | st.integers(0, 60), keep_deck=st.booleans())
    def test_a_deal_reads_back_and_prints_the_same(
        self, rules: TableRules, seed: int, dealer: int, steps: int | None, keep_deck: bool
    ) -> None:
        deal = random_deal(rules, seed, dealer, steps)
        start = deal.start if keep_deck else dataclasses.replace(deal.start, deck=None)
        text = write_deal(start, deal.log)
        notated = read_deal(text)
        assert notated == NotatedDeal(start, tuple(deal.log))
        assert write_deal(notated.start, notated.log) == text
        assert notated.replay().score == deal.score

    @settings(max_examples=60)
    @given(rules=table_rules(), seed=st.integers(0, 2**32), deal_count=st.integers(1, 4),
           names=st.none() | st.tuples(*[st.text(max_size=12)] * 4), ended=st.booleans())
    def test_a_match_reads_back_and_prints_the_same(
        self, rules: TableRules, seed: int, deal_count: int,
        names: tuple[str, str, str, str] | None, ended: bool,
    ) -> None:
        rng = random.Random(seed)
        match = Match(rules, deal_count, rng=rng)
        while not match.is_over:
            seat = match.current.to_act
            match.apply(seat, rng.choice(match.current.legal_actions(seat)))
        # A live match's notation holds its ended deals only.
        deals = match.deals if ended else match.deals[:-1]
        notated = NotatedMatch(
            rules, deal_count, match.first_dealer,
            tuple(NotatedDeal(deal.start, tuple(deal.log)) for deal in deals), names,
        )
        text = write_match(notated)
        assert read_match(text) == notated
        assert write_match(read_match(text)) == text
        if ended:
            assert read_match(text).replay().totals == match.totals

    def test_only_rules_that_differ_from_the_defaults_are_written(self) -> None:
        rules = TableRules.create("spades", spades_announcements=True)
        deal = random_deal(rules, 1, 0, steps=0)
        header = write_deal(deal.start, []).split("\n")[:4]
        assert header == ['[BDN "1"]', '[Game "spades"]', '[spades_announcements "true"]',
                          '[Deal "1"]']
        no_limit = rules.replace(spades_overtrick_limit=None)
        assert '[spades_overtrick_limit "null"]' in write_deal(
            DealStart(no_limit, 0, deal.start.hands), []
        )

    def test_hands_may_be_written_in_any_order_and_case(self) -> None:
        text = (GOLDEN / "standard_made.bdn").read_text()
        hand = next(line for line in text.split("\n") if line.startswith("[Hand0"))
        cards = hand.split('"')[1].split()
        shuffled = " ".join(card.lower().replace("t", "10") for card in reversed(cards))
        notated = read_deal(text.replace(hand, f'[Hand0 "{shuffled}"]'))
        assert write_deal(notated.start, notated.log) == text


class TestDeckFromHands:
    @settings(max_examples=200)
    @given(seed=st.integers(0, 2**32), dealer=st.integers(0, 3), clockwise=st.booleans())
    def test_the_deck_deals_the_hands(self, seed: int, dealer: int, clockwise: bool) -> None:
        rules = TableRules.create("auction", direction="clockwise" if clockwise else
                                  "anticlockwise")
        hands = DealStart.shuffle(rules, dealer, rng=random.Random(seed)).hands
        next_seat = next_seat_table(clockwise)
        deck = deck_from_hands(hands, dealer, next_seat)
        assert sorted(deck) == list(range(52))
        assert tuple(hands_from_deck(deck, dealer, next_seat)) == hands
        chosen = DealStart(rules, dealer, hands).with_deck()
        assert chosen.deck == tuple(deck) and chosen.hands == hands


# RULES.md's worked examples: the deal, and what it scores (standard_made.bdn and
# partnership_match.bdn are also the API's examples, games/api/notation_*example.bdn).
GOLDEN_SCORES = {
    # "declarer bid 6, took 7; others 3, 3, 0 → +70, +30, +30, -40"
    "standard_made.bdn": ((7, 3, 3, 0), (70, 30, 30, -40)),
    # "Bid 6 and took 5 → -60"
    "standard_down.bdn": ((5, 2, 4, 2), (-60, 20, 40, 20)),
    # "(contract): Anna bids 7, takes 8 → 71; Ben 3 → 30; Carla 2 → 20; Dan 0 → -70"
    "contract_scoring.bdn": ((8, 3, 2, 0), (71, 30, 20, -70)),
    # "Playing a card": its first trick is the worked example's.
    "trick_example.bdn": ((2, 4, 3, 4), (20, 40, 30, 40)),
    # Koz Maça with announcements: "announcing none and taking no trick scores +50".
    "spades_announcements.bdn": ((4, 0, 6, 3), (40, 50, 40, 30)),
}


class TestGolden:
    @pytest.mark.parametrize("name", sorted(GOLDEN_SCORES))
    def test_golden_deals_score_as_the_rules_say(self, name: str) -> None:
        text = (GOLDEN / name).read_text()
        deal = read_deal(text).replay()
        tricks, points = GOLDEN_SCORES[name]
        assert tuple(deal.tricks_won) == tricks
        assert deal.score is not None and deal.score.points == points
        assert write_deal(deal.start, deal.log) == text

    def test_the_worked_trick(self) -> None:
        notated = read_deal((GOLDEN / "trick_example.bdn").read_text())
        deal = Deal.replay(notated.start, notated.log[:6])  # auction, trump, Ben's 9C
        assert deal.trump is not None and deal.trump.letter == "H"
        assert {str(card) for card in deal.refusals()} >= {"4C"}
        assert deal.refusals()[next(c for c in deal.refusals() if str(c) == "4C")] == "must_beat"
        first = Deal.replay(notated.start, notated.log).completed_tricks()[0]
        assert [(seat, str(card)) for seat, card in first.plays] == [
            (1, "9C"), (2, "QC"), (3, "3H"), (0, "7H")
        ]
        assert first.winner == 0

    def test_the_apis_examples_are_golden(self) -> None:
        api = Path(__file__).parents[2] / "games" / "api"
        assert (api / "notation_example.bdn").read_text() == golden()
        assert (api / "notation_match_example.bdn").read_text() == golden(
            "partnership_match.bdn")

    def test_golden_match(self) -> None:
        text = (GOLDEN / "partnership_match.bdn").read_text()
        notated = read_match(text)
        assert notated.names == ("Ayşe", "Medium bot", 'Ben "the quick"', "Hard bot")
        match = notated.replay()
        assert match.is_over and match.totals == [-80, -60, -80, -60]
        assert [deal.phase for deal in match.deals] == ["redealt", "finished", "finished"]
        assert write_match(notated) == text


def golden(name: str = "standard_made.bdn") -> str:
    return (GOLDEN / name).read_text()


def refused(text: str, *, match: bool = False) -> NotationError:
    with pytest.raises(NotationError) as caught:
        (read_match if match else read_deal)(text)
    return caught.value


def lines_of(text: str, start: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n"), 1) if line.startswith(start)]


class TestMalformed:
    @pytest.mark.parametrize(("change", "template", "line_start"), [
        (lambda t: t.replace('[BDN "1"]\n', ""), EXPECTED, '[Game'),
        (lambda t: t.replace('[BDN "1"]', '[BDN "2"]'), UNSUPPORTED_VERSION, "[BDN"),
        (lambda t: t.replace('[Game "auction"]', '[Game "poker"]'), BAD_RULE, "[Game"),
        (lambda t: t.replace('[Game "auction"]\n', ""), MISSING_TAG, "[Deal"),
        (lambda t: t.replace('[Game "auction"]', '[Game "auction"]\n[min_bid "9"]'), BAD_RULE,
         "[min_bid"),
        (lambda t: t.replace('[Game "auction"]', '[Game "auction"]\n[colour "red"]'),
         UNKNOWN_TAG, "[colour"),
        (lambda t: t.replace('[Game "auction"]', '[Game "auction"]\n[Deals "4"]'),
         MATCH_TAGS_IN_DEAL, "[Deals"),
        (lambda t: t.replace('[Game "auction"]', '[Game "auction"]\n[Dealer "0"]'),
         EXPECTED, "[Dealer"),
        (lambda t: t.replace('[Dealer "3"]', '[Dealer "3"]\n[Game "auction"]'), HEADER_TAG,
         ("[Game", -1)),
        (lambda t: t.replace('[Dealer "3"]', '[Dealer "3"]\n[Dealer "3"]'), REPEATED_TAG,
         ("[Dealer", -1)),
        (lambda t: t.replace('[Dealer "3"]', '[Dealer "7"]'), EXPECTED, "[Dealer"),
        (lambda t: t.replace('[Dealer "3"]', "[Dealer 3]"), EXPECTED, "[Dealer"),
        (lambda t: t.replace('[Dealer "3"]', '[Dealer "3\\q"]'), EXPECTED, "[Dealer"),
        (lambda t: t.replace('[Hand1 "', '[Hand1 "XX '), EXPECTED, "[Hand1"),
        (lambda t: t.replace('[Hand1 "', '[Hand1 "AS '), CARD_TWICE, "[Hand1"),
        (lambda t: t.replace('[Result "finished"]', '[Result "redealt"]'), WRONG_RESULT,
         "[Result"),
        (lambda t: t.replace('[Points "70', '[Points "80'), WRONG_RESULT, "[Points"),
        (lambda t: t.replace("Trump: 0 H", "Trump: 0 X"), EXPECTED, "Trump"),
        (lambda t: t.replace("Trump: 0 H", "Trumps: 0 H"), EXPECTED, "Trumps"),
        (lambda t: t.replace("Trump: 0 H", "Trump: 1 H"), ILLEGAL_MOVE, "Trump"),
        (lambda t: t.replace("Auction: 0 6", "Auction: 0 3"), ILLEGAL_MOVE, "Auction"),
        (lambda t: t.replace("Trick 2:", "Trick 3:"), EXPECTED, "Trick 3"),
        (lambda t: t.replace("Trump: 0 H\n", ""), ILLEGAL_MOVE, "Trick 1"),
        (lambda t: t.replace("Trump: 0 H", "Trump: 0 H\nAuction: 1 pass"), EXPECTED,
         "Auction: 1"),
        (lambda t: t.replace("\nTrick 13:", ", 0 AS\nTrick 13:"), TRICK_SIZE, "Trick 12"),
        (lambda t: t + t[t.index('[Deal "1"]'):], NOT_ONE_DEAL, ('[Deal "1"]', -1)),
        (lambda t: t + '[Deck "AS"]\n', EXPECTED, "[Deck"),
        (lambda t: t + "\n", None, None),
    ])
    def test_each_error_names_its_line(self, change, template, line_start) -> None:  # type: ignore[no-untyped-def]
        text = change(golden())
        if template is None:
            read_deal(text)
            return
        error = refused(text)
        assert error.template == template
        start, occurrence = line_start if isinstance(line_start, tuple) else (line_start, 0)
        assert error.line == lines_of(text, start)[occurrence], error.message
        assert error.message.startswith(f"line {error.line}: ")

    def test_a_card_played_out_of_turn_or_against_the_rules(self) -> None:
        text = golden()
        trick = next(line for line in text.split("\n") if line.startswith("Trick 1:"))
        seats_and_cards = [item.split() for item in trick.split(": ")[1].split(", ")]
        swapped = ", ".join(f"{s} {c}" for s, c in [seats_and_cards[1], seats_and_cards[0],
                                                     *seats_and_cards[2:]])
        error = refused(text.replace(trick, f"Trick 1: {swapped}"))
        assert error.template == ILLEGAL_MOVE
        assert error.refusal is not None and error.refusal.reason == Reason.NOT_YOUR_TURN

    def test_a_short_hand_and_a_deck_that_deals_other_hands(self) -> None:
        text = golden()
        hand = next(line for line in text.split("\n") if line.startswith("[Hand2"))
        assert refused(text.replace(hand, hand[:-5] + '"]')).template == HAND_SIZE
        deal = read_deal(text)
        deck = deck_from_hands(deal.start.hands, 0, next_seat_table(False))  # not the dealer
        with_deck = write_deal(dataclasses.replace(deal.start, deck=tuple(deck)), deal.log)
        assert refused(with_deck).template == DECK_MISMATCH

    def test_a_match_whose_deals_break_the_dealer_order(self) -> None:
        text = golden("partnership_match.bdn")
        # The thrown-in first deal is dealt again under the same number.
        second = text.index('[Deal "1"]', text.index('[Deal "1"]') + 1)
        error = refused(text[:second] + text[second:].replace('[Deal "1"]', '[Deal "2"]', 1),
                        match=True)
        assert error.template == DEAL_ORDER
        assert error.line == lines_of(text, '[Deal "1"]')[1]
        assert refused(text.replace('[Name3 "Hard bot"]\n', ""), match=True).template == \
            MISSING_TAG
        assert refused(text.replace('[Totals "-80', '[Totals "-90'), match=True).template == \
            WRONG_RESULT
        assert refused(text.replace('[Deals "2"]\n', ""), match=True).template == MISSING_TAG

    @settings(max_examples=300)
    @given(text=st.text(max_size=300) | st.text(alphabet='[]" \\,:\n0123456789BDNGamelx',
                                                 max_size=300))
    def test_any_text_is_read_or_refused_cleanly(self, text: str) -> None:
        for read in (read_deal, read_match):
            try:
                read(text)
            except NotationError as error:
                assert error.message.startswith(f"line {error.line}: ")

    @settings(max_examples=200)
    @given(data=st.data())
    def test_a_mutated_match_is_read_or_refused_cleanly(self, data: st.DataObject) -> None:
        lines = golden("partnership_match.bdn").split("\n")
        index = data.draw(st.integers(0, len(lines) - 1))
        words = lines[index].split(" ")
        position = data.draw(st.integers(0, len(words) - 1))
        words[position] = data.draw(st.sampled_from(
            ["", "0", "3", "9", "99", "-1", "AS", "pass", '""', '"x"]', "Trick", "[Deal"]))
        lines[index] = " ".join(words)
        text = "\n".join(lines)
        try:
            match = read_match(text)
        except NotationError as error:
            assert 1 <= error.line <= len(lines)
        else:
            assert read_match(write_match(match)) == match

    def test_a_rules_value_is_refused_by_the_rule(self) -> None:
        text = golden().replace('[Game "auction"]', '[Game "auction"]\n[min_bid "123456789"]')
        error = refused(text)
        assert error.template == BAD_RULE and error.rule_error is not None
        assert error.rule_error.field == "min_bid"

    def test_an_empty_text(self) -> None:
        assert refused("").template == EXPECTED
        assert refused("\n\n").line == 1

    @settings(max_examples=500)
    @given(data=st.data())
    def test_mutated_text_is_read_or_refused_cleanly(self, data: st.DataObject) -> None:
        text = golden(data.draw(st.sampled_from(sorted(GOLDEN_SCORES))))
        for _ in range(data.draw(st.integers(1, 3))):
            position = data.draw(st.integers(0, len(text)))
            mutation = data.draw(st.sampled_from(["delete", "insert", "duplicate line"]))
            if mutation == "delete":
                text = text[:position] + text[position + 1:]
            elif mutation == "insert":
                text = text[:position] + data.draw(
                    st.sampled_from(list('[]" \\,:\n0123456789ASHDCTpass'))
                ) + text[position:]
            else:
                lines = text.split("\n")
                index = position % len(lines)
                lines.insert(index, lines[index])
                text = "\n".join(lines)
        try:
            deal = read_deal(text)
        except NotationError as error:
            assert error.message.startswith(f"line {error.line}: ")
            assert 1 <= error.line <= text.count("\n") + 1
        else:
            assert read_deal(write_deal(deal.start, deal.log)) == deal
