"""Independent reference implementation (test oracle) of Batak card play and scoring.

Written from /work/shared/RULES.md only, without looking at the real engine in ``games/``.
It is deliberately simple and literal: cards are two-character strings (rank + suit, e.g.
``"AS"``, ``"TH"``, ``"2C"``), hands and tricks are plain lists, and every rule is a plain
loop that follows the wording of RULES.md step by step. Speed is not a goal; clarity is.

Public functions:

* ``legal_cards(hand, trick, trump, rules, trump_broken)`` -> set of playable cards
* ``trick_winner(trick, trump)`` -> index of the winning card in the trick
* ``deal_scores(rules, tricks, declarer, bid, announcements)`` -> score of each seat for one deal
* ``ranking(totals, last_deal_tricks)`` -> 1-based place of each seat

``rules`` is a plain dict with the keys: game, min_bid, trump_lead, akq_trump_lead,
must_beat_in_suit, must_beat_after_trumped, must_trump, must_overtrump,
must_trump_when_cannot_overtrump, scoring, spades_announcements, spades_overtrick_limit.
"""

from __future__ import annotations

# Highest rank first: "A K Q J 10 9 8 7 6 5 4 3 2".
RANKS = "AKQJT98765432"
SUITS = "SHDC"


# ---------------------------------------------------------------------------
# Small card helpers
# ---------------------------------------------------------------------------


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def rank_value(card: str) -> int:
    """A bigger number means a higher card: 2 -> 0, 3 -> 1, ..., A -> 12."""
    return len(RANKS) - 1 - RANKS.index(rank_of(card))


def is_higher_same_suit(card: str, other: str) -> bool:
    """True if ``card`` beats ``other``; both must be of the same suit."""
    return rank_value(card) > rank_value(other)


def cards_of_suit(cards: list[str], suit: str) -> list[str]:
    result = []
    for card in cards:
        if suit_of(card) == suit:
            result.append(card)
    return result


def cards_not_of_suit(cards: list[str], suit: str) -> list[str]:
    result = []
    for card in cards:
        if suit_of(card) != suit:
            result.append(card)
    return result


def highest_of_suit(cards: list[str], suit: str) -> str | None:
    """The highest card of ``suit`` among ``cards``, or None if there is none."""
    best = None
    for card in cards:
        if suit_of(card) != suit:
            continue
        if best is None or is_higher_same_suit(card, best):
            best = card
    return best


def cards_higher_than(cards: list[str], target: str) -> list[str]:
    """Cards of the same suit as ``target`` that beat it."""
    result = []
    for card in cards:
        if suit_of(card) == suit_of(target) and is_higher_same_suit(card, target):
            result.append(card)
    return result


# ---------------------------------------------------------------------------
# Playing a card
# ---------------------------------------------------------------------------


def _legal_leads(hand: list[str], trump: str, rules: dict, trump_broken: bool) -> set[str]:
    """The leader of a trick may play any card, except the trump_lead restriction."""
    if rules["trump_lead"] == "anytime":
        return set(hand)
    if rules["trump_lead"] != "after_broken":
        raise ValueError(f"unknown trump_lead {rules['trump_lead']!r}")

    if trump_broken:
        return set(hand)

    non_trumps = cards_not_of_suit(hand, trump)
    if not non_trumps:
        # "the only exception is a player who holds nothing but trumps"
        return set(hand)

    legal = set(non_trumps)
    if rules["akq_trump_lead"]:
        ace, king, queen = "A" + trump, "K" + trump, "Q" + trump
        if ace in hand and king in hand and queen in hand:
            legal.add(ace)
            legal.add(king)
            legal.add(queen)
    return legal


def _legal_follows_in_suit(
    hand: list[str], trick: list[str], trump: str, rules: dict
) -> set[str]:
    """Step 1 (follow suit) and step 2 (beat in suit): the player holds the led suit."""
    led_suit = suit_of(trick[0])
    in_suit = cards_of_suit(hand, led_suit)

    if not rules["must_beat_in_suit"]:
        return set(in_suit)

    # "once the trick has been trumped": a trump lies in the trick, and the led suit is not trumps.
    trick_trumped = led_suit != trump and len(cards_of_suit(trick, trump)) > 0
    if trick_trumped and not rules["must_beat_after_trumped"]:
        return set(in_suit)

    highest_led = highest_of_suit(trick, led_suit)
    beaters = cards_higher_than(in_suit, highest_led)
    if beaters:
        return set(beaters)
    return set(in_suit)


def _legal_follows_void(hand: list[str], trick: list[str], trump: str, rules: dict) -> set[str]:
    """Steps 3-5: the player holds no card of the led suit."""
    my_trumps = cards_of_suit(hand, trump)
    if not my_trumps:
        # Step 5: holding neither the led suit nor a trump, play any card.
        return set(hand)

    trump_in_trick = len(cards_of_suit(trick, trump)) > 0
    higher_trumps: list[str] = []
    if trump_in_trick:
        highest_trump = highest_of_suit(trick, trump)
        higher_trumps = cards_higher_than(my_trumps, highest_trump)

    if trump_in_trick and rules["must_overtrump"]:
        # Step 4 applies whenever a trump is already in the trick, whatever must_trump says.
        if higher_trumps:
            return set(higher_trumps)
        if rules["must_trump_when_cannot_overtrump"]:
            return set(my_trumps)
        return set(hand)

    # No trump in the trick yet, or must_overtrump is off: step 3 decides.
    if rules["must_trump"]:
        return set(my_trumps)
    return set(hand)


def legal_cards(
    hand: list[str], trick: list[str], trump: str, rules: dict, trump_broken: bool
) -> set[str]:
    """Cards of ``hand`` that may be played to ``trick`` (cards already played, in order).

    ``trump_broken`` means a trump was played in an EARLIER trick of this deal.
    """
    if not hand:
        return set()
    if len(trick) == 0:
        return _legal_leads(hand, trump, rules, trump_broken)
    if len(trick) >= 4:
        raise ValueError("the trick is already complete")

    led_suit = suit_of(trick[0])
    if len(cards_of_suit(hand, led_suit)) > 0:
        return _legal_follows_in_suit(hand, trick, trump, rules)
    return _legal_follows_void(hand, trick, trump, rules)


def trick_winner(trick: list[str], trump: str) -> int:
    """Index of the winning card: the highest trump, or else the highest card of the led suit."""
    if not trick:
        raise ValueError("empty trick")
    winner = 0
    for index in range(1, len(trick)):
        card = trick[index]
        best = trick[winner]
        if suit_of(card) == suit_of(best):
            if is_higher_same_suit(card, best):
                winner = index
        elif suit_of(card) == trump:
            # A trump beats any card of another suit (best is not a trump here).
            winner = index
        # Otherwise: a card of another non-trump suit never wins.
    return winner


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def _declarer_score(scoring: str, tricks: int, bid: int) -> int:
    makes = tricks >= bid
    if scoring == "standard":
        return tricks * 10 if makes else -bid * 10
    if scoring == "bonus":
        return bid * 15 + (tricks - bid) * 10 if makes else -bid * 10
    if scoring == "simple":
        return tricks * 1 if makes else -bid
    if scoring == "contract":
        return bid * 10 + (tricks - bid) if makes else -bid * 10
    raise ValueError(f"unknown scoring {scoring!r}")


def _defender_score(scoring: str, tricks: int, min_bid: int, bid: int) -> int:
    """``bid`` is only used by the contract scheme's zero-trick penalty."""
    if tricks >= 1:
        if scoring in ("standard", "bonus", "contract"):
            return tricks * 10
        if scoring == "simple":
            return tricks * 1
        raise ValueError(f"unknown scoring {scoring!r}")
    # No trick: goes batak.
    if scoring == "standard":
        return -min_bid * 10
    if scoring == "bonus":
        return -50
    if scoring == "simple":
        return -min_bid
    if scoring == "contract":
        return -bid * 10
    raise ValueError(f"unknown scoring {scoring!r}")


def _announcement_score(announced: int, tricks: int, limit: int | None) -> int:
    if announced == 0:
        return 50 if tricks == 0 else -50
    made = tricks >= announced
    too_many = limit is not None and tricks - announced >= limit
    if made and not too_many:
        return 10 * announced
    return -10 * announced


def deal_scores(
    rules: dict,
    tricks: list[int],
    declarer: int | None,
    bid: int | None,
    announcements: list[int] | None,
) -> list[int]:
    """Score of each seat 0..3 for one deal; ``tricks`` is each seat's trick count (sum 13)."""
    if len(tricks) != 4 or sum(tricks) != 13:
        raise ValueError(f"bad trick counts {tricks!r}")
    game = rules["game"]
    if game not in _SCORES_BY_GAME:
        raise ValueError(f"unknown game {game!r}")
    return _SCORES_BY_GAME[game](rules, tricks, declarer, bid, announcements)


def _auction_scores(
    rules: dict,
    tricks: list[int],
    declarer: int | None,
    bid: int | None,
    announcements: list[int] | None,
) -> list[int]:
    scoring = rules["scoring"]
    scores = []
    for seat in range(4):
        if seat == declarer:
            scores.append(_declarer_score(scoring, tricks[seat], bid))
        else:
            scores.append(_defender_score(scoring, tricks[seat], rules["min_bid"], bid))
    return scores


def _partnership_scores(
    rules: dict,
    tricks: list[int],
    declarer: int | None,
    bid: int | None,
    announcements: list[int] | None,
) -> list[int]:
    scoring = rules["scoring"]
    team_tricks = [tricks[0] + tricks[2], tricks[1] + tricks[3]]
    declaring_team = declarer % 2
    team_scores = []
    for team in range(2):
        if team == declaring_team:
            team_scores.append(_declarer_score(scoring, team_tricks[team], bid))
        else:
            team_scores.append(_defender_score(scoring, team_tricks[team], rules["min_bid"], bid))
    scores = []
    for seat in range(4):
        scores.append(team_scores[seat % 2])
    return scores


def _spades_scores(
    rules: dict,
    tricks: list[int],
    declarer: int | None,
    bid: int | None,
    announcements: list[int] | None,
) -> list[int]:
    if rules["spades_announcements"]:
        if announcements is None or len(announcements) != 4:
            raise ValueError("spades with announcements needs four announcements")
        limit = rules["spades_overtrick_limit"]
        scores = []
        for seat in range(4):
            scores.append(_announcement_score(announcements[seat], tricks[seat], limit))
        return scores
    # No auction: everybody is scored like a defender; contract uses min_bid as the bid.
    min_bid = rules["min_bid"]
    scores = []
    for seat in range(4):
        scores.append(_defender_score(rules["scoring"], tricks[seat], min_bid, min_bid))
    return scores


# Each game's scoring, with the arguments of `deal_scores`.
_SCORES_BY_GAME = {
    "auction": _auction_scores,
    "partnership": _partnership_scores,
    "spades": _spades_scores,
}


# ---------------------------------------------------------------------------
# Match ranking
# ---------------------------------------------------------------------------


def ranking(totals: list[int], last_deal_tricks: list[int]) -> list[int]:
    """1-based place of each seat (standard competition ranking, e.g. [1, 2, 2, 4]).

    Higher total first; equal totals: more tricks in the last deal first; still equal: shared.
    """
    places = []
    for seat in range(len(totals)):
        ahead = 0
        for other in range(len(totals)):
            if other == seat:
                continue
            if totals[other] > totals[seat] or (
                totals[other] == totals[seat]
                and last_deal_tricks[other] > last_deal_tricks[seat]
            ):
                ahead += 1
        places.append(ahead + 1)
    return places
