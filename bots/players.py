"""Computer players. A player decides from its seat's `Observation` only: the type carries the
seat's own hand, a face-up dummy and the public history, never another hand or the deck.

- Random: a uniformly random legal move (the arena's floor).
- Easy: sensible-looking but forgetful: wins a trick when it is cheap, otherwise plays low;
  bids only with a clearly strong hand.
- Medium: counts sure tricks and trump length to bid, names its strongest suit, remembers every
  card played (so it knows its masters), never overtakes a winning partner, wins cheaply.
- Hard: samples the unseen cards consistently with everything the play has revealed, reads
  them toward layouts in which the others' plays were the obvious ones (`bots.card_reading`),
  and judges each card card sense leaves (`bots.card_sense`) in every sampled world
  (perfect-information Monte Carlo): greedy play to the last tricks, then an exact search of
  its own choices against greedy opponents (`bots.solver`); bids, trumps and announcements
  from greedy play-outs.
- Expert: Hard, but its next choices after a card are one card for all the worlds it cannot
  tell apart then (`bots.joint_search`), where Hard's search may pick a different card in each.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import statistics
from collections.abc import Callable, Iterable

from games.bot_style import Style
from games.engine import (
    Action,
    ActionKind,
    Announce,
    Bid,
    ChooseTrump,
    Game,
    Observation,
    Pass,
    Phase,
    Play,
    RequestRedeal,
    Suit,
    TableRules,
    score_deal,
)
from games.engine.cards import ALL_CARDS, indices_of
from games.engine.play import PlayState, next_seat_table

from . import card_reading, card_sense
from .beliefs import auction_weight, played_by_seat
from .evaluation import best_trump, quick_tricks, sample_others, simulated_tricks
from .joint_search import JointSearch
from .knowledge import Knowledge, infer, mask
from .policy import (
    greedy_card,
    highest,
    keep_value,
    lowest,
    winning_cards,
)
from .sampling import WorldSampler
from .solver import Solver, rollout


def choose_action(
    observation: Observation, level: str, rng: random.Random, style: Style | None = None
) -> Action:
    """The move of a computer player of ``level`` for the seat ``observation`` belongs to."""
    return PLAYERS[level](observation, rng, style or DEFAULT_STYLES.get(level, Style()))


# --- shared helpers ------------------------------------------------------------------------------


def _moves(observation: Observation) -> list[Action]:
    return [a for a in observation.legal_actions if a.kind != ActionKind.REDEAL]


def _position(observation: Observation, hands: list[int]) -> PlayState:
    """The play position of ``observation`` with the given hands (a sampled world, or only the
    cards the seat knows)."""
    trick = observation.current_trick
    assert trick is not None and observation.trump is not None
    return PlayState.resume(
        hands,
        int(observation.trump),
        observation.rules,
        trick_leader=trick.leader,
        trick=[card.index for _, card in trick.plays],
        broken=observation.trump_broken,
        tricks_won=observation.tricks_won,
    )


def known_position(observation: Observation) -> tuple[PlayState, Knowledge]:
    """The position with only the seat's own (and a dummy's) cards, and what the seat knows of
    the others': enough for the legal cards, a greedy choice and card sense."""
    knowledge = infer(observation)
    hands = [0, 0, 0, 0]
    for seat, cards in knowledge.known.items():
        hands[seat] = cards
    return _position(observation, hands), knowledge


def _partnership(observation: Observation) -> bool:
    return observation.rules.game == Game.PARTNERSHIP


def _medium_card(observation: Observation) -> Action:
    return Play(ALL_CARDS[_sensible_greedy_card(observation)])


def _sensible_greedy_card(observation: Observation) -> int:
    """The greedy card, or the card that dominates it when card sense finds one."""
    state, knowledge = known_position(observation)
    partnership = _partnership(observation)
    card = greedy_card(state, knowledge.unseen, partnership)
    return card_sense.dominators(state, knowledge, partnership).get(card, card)


def _auction_call(observation: Observation, estimate: float, style: Style) -> Action:
    """Bid the minimum raise when ``estimate`` (tricks this seat, or team, expects as
    declarer) clears it by the style's margin; otherwise pass."""
    rules = observation.rules
    required = max(rules.min_bid, (observation.high_bid or 0) + 1)
    partner_leads = (
        rules.game == Game.PARTNERSHIP
        and observation.auction
        and _high_bidder(observation) == (observation.seat + 2) % 4
    )
    margin = style.margin + (1.5 if partner_leads else 0.0)
    if required <= 13 and estimate + style.boldness - margin >= required:
        return Bid(required)
    return Pass()


def _high_bidder(observation: Observation) -> int | None:
    bids = [(seat, bid) for seat, bid in observation.auction if bid is not None]
    return bids[-1][0] if bids else None


def _team_estimate(observation: Observation, own: float) -> float:
    """In the partnership game a bid binds the team: add what the partner should bring."""
    if observation.rules.game != Game.PARTNERSHIP:
        return own
    partner = (observation.seat + 2) % 4
    partner_bids = [bid for seat, bid in observation.auction if seat == partner and bid]
    support = 3.0
    if partner_bids:
        support = max(support, partner_bids[-1] - 3.0)
    return own + support


# --- the levels --------------------------------------------------------------------------------


def random_player(observation: Observation, rng: random.Random, style: Style) -> Action:
    return rng.choice(_moves(observation))


def easy_player(observation: Observation, rng: random.Random, style: Style) -> Action:
    return _rule_based(observation, rng, style, forgetful=True)


def medium_player(observation: Observation, rng: random.Random, style: Style) -> Action:
    return _rule_based(observation, rng, style, forgetful=False)


def _rule_based(
    observation: Observation, rng: random.Random, style: Style, forgetful: bool
) -> Action:
    if RequestRedeal() in observation.legal_actions:
        return RequestRedeal()
    hand = mask(observation.hand)
    match observation.phase:
        case Phase.AUCTION:
            _, tricks = best_trump(hand)
            return _auction_call(observation, _team_estimate(observation, tricks), style)
        case Phase.TRUMP:
            suit, _ = best_trump(hand)
            return ChooseTrump(Suit(suit))
        case Phase.ANNOUNCEMENTS:
            expected = quick_tricks(hand, int(Suit.SPADES)) + style.boldness
            return Announce(max(0, min(13, round(expected - (1 if forgetful else 0.5)))))
        case Phase.PLAY:
            if forgetful:
                return _easy_card(observation, rng)
            return _medium_card(observation)
    return rng.choice(_moves(observation))


def _easy_card(observation: Observation, rng: random.Random) -> Action:
    """A beginner's card: goes for every trick it can win with its highest winner, throws its
    lowest card when it cannot, and leads a high card of any side suit."""
    state, _ = known_position(observation)
    legal = state.legal_mask()
    trump = state.trump
    if not state.trick:
        side = legal & ~state.trump_mask or legal
        suits = [suit for suit in range(4) if side >> (13 * suit) & 0x1FFF]
        suit_cards = side & (0x1FFF << (13 * rng.choice(suits)))
        return Play(ALL_CARDS[max(indices_of(suit_cards))])
    wins = winning_cards(state, legal)
    return Play(ALL_CARDS[highest(wins, trump) if wins else lowest(legal, trump)])


# --- Hard ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How Hard (and Expert) judge cards and calls."""

    worlds: int = 40
    # The player's choices (its own cards or its dummy's) after the card it decides that are
    # made once for all the worlds it cannot tell apart (`bots.joint_search`); 0 searches each
    # world on its own (perfect-information Monte Carlo).
    joint_moves: int = 0
    # From this many tricks before the end, each world is searched exactly instead of played
    # out greedily (see `bots.solver`).
    endgame_tricks: int = 9
    bidding_layouts: int = 64
    # Card reading (`bots.card_reading`): a layout is this much less plausible for each card
    # another seat played in it that the greedy player would not have; swaps tried per world.
    surprise: float = 0.1
    reading_steps: int = 400


HARD = SearchSettings()
# Expert: Hard's calls and worlds; its next two choices after a card joint.
EXPERT = SearchSettings(joint_moves=2)


@functools.cache
def endgame_solver() -> Solver:
    # Made on first use: its position table is 12 MB, and web processes never need it.
    return Solver()


def warm_up() -> None:
    """Compile Hard's and Expert's card reading and search now rather than during their first
    card."""
    one_card_each = [1 << (13 * seat) for seat in range(4)]
    position = PlayState(one_card_each, 0, 0, TableRules.create(Game.SPADES))
    endgame_solver().best_response(position, (0,), (0,), [0] * 14, False)
    rollout(position, False)
    joint_search().mean_scores(position, [one_card_each], [1.0], [0], controlled=(0,),
                               side=(0,), values=[0] * 14, partnership=False, joint_moves=1,
                               endgame_tricks=9)
    card_reading.warm_up()


def hard_player(observation: Observation, rng: random.Random, style: Style) -> Action:
    if RequestRedeal() in observation.legal_actions:
        return RequestRedeal()
    match observation.phase:
        case Phase.AUCTION:
            return _hard_call(observation, rng, style)
        case Phase.TRUMP:
            return _hard_trump(observation, rng)
        case Phase.ANNOUNCEMENTS:
            return _hard_announcement(observation, rng, style)
        case Phase.PLAY:
            return _hard_card(observation, rng)
    return rng.choice(_moves(observation))


def _own_score(observation: Observation, tricks: list[int], declarer: int | None,
               bid: int | None, announcements: list[int | None] | None) -> int:
    rules = observation.rules
    return score_deal(
        rules, tricks, declarer=declarer, bid=bid, announcements=announcements
    ).points[observation.seat]


def _hard_call(observation: Observation, rng: random.Random, style: Style) -> Action:
    """Bid the minimum raise when declaring is worth more than defending (`call_values`)."""
    rules = observation.rules
    required = max(rules.min_bid, (observation.high_bid or 0) + 1)
    partner = (observation.seat + 2) % 4
    if required > 13 or (rules.game == Game.PARTNERSHIP and _high_bidder(observation) == partner):
        return Pass()
    declarer_value, pass_value = call_values(observation, rng, required)
    if declarer_value + style.boldness * 10 > pass_value:
        return Bid(required)
    return Pass()


@dataclasses.dataclass(frozen=True)
class AuctionLayouts:
    """The tricks a seat (its team, in the partnership game) takes in greedy play-outs of random
    layouts, each weighted by how plausible it makes the calls so far: declaring with each
    trump, and defending against the strongest other hand declaring its best suit."""

    declaring: dict[int, list[int]]
    defending: list[int]
    weights: list[float]

    def mean(self, values: Iterable[float]) -> float:
        return sum(w * v for w, v in zip(self.weights, values, strict=True)) / sum(self.weights)

    @property
    def best_trump(self) -> int:
        return max(self.declaring, key=lambda suit: self.mean(self.declaring[suit]))

    def declaring_value(self, bid: int) -> float:
        """The expected score declaring at ``bid`` with the best trump."""
        return self.mean(t * 10 if t >= bid else -bid * 10
                         for t in self.declaring[self.best_trump])

    def passing_value(self, rules: TableRules) -> float:
        zero_penalty = -rules.min_bid * 10
        return self.mean(t * 10 if t else zero_penalty for t in self.defending)


def auction_layouts(observation: Observation, rng: random.Random) -> AuctionLayouts:
    """`AuctionLayouts` of `HARD.bidding_layouts` random layouts: in the partnership game a
    partner's bid makes its strong hands likely, and the team's tricks count."""
    rules = observation.rules
    seat = observation.seat
    partnership = rules.game == Game.PARTNERSHIP
    partner = (seat + 2) % 4
    hand = mask(observation.hand)
    declaring: dict[int, list[int]] = {suit: [] for suit in range(4)}
    defending: list[int] = []
    weights: list[float] = []
    hidden = tuple(s for s in range(4) if s != seat)
    for _ in range(HARD.bidding_layouts):
        hands = sample_others(hand, rng, seat)
        weights.append(auction_weight(observation, hands, hidden, [0, 0, 0, 0]))
        for suit in range(4):
            tricks = rollout(PlayState(hands, suit, seat, rules), partnership)
            declaring[suit].append(tricks[seat] + (tricks[partner] if partnership else 0))
        rivals = [s for s in range(4) if s != seat and not (partnership and s == partner)]
        rival = max(rivals, key=lambda s: best_trump(hands[s])[1])
        suit, _ = best_trump(hands[rival])
        tricks = rollout(PlayState(hands, suit, rival, rules), partnership)
        defending.append(tricks[seat] + (tricks[partner] if partnership else 0))
    return AuctionLayouts(declaring, defending, weights)


def call_values(observation: Observation, rng: random.Random,
                required: int) -> tuple[float, float]:
    """The seat's expected score declaring at ``required`` with its best trump, and passing
    (`auction_layouts`)."""
    layouts = auction_layouts(observation, rng)
    return layouts.declaring_value(required), layouts.passing_value(observation.rules)


def _hard_trump(observation: Observation, rng: random.Random) -> Action:
    values = trump_values(observation, rng)
    return ChooseTrump(Suit(max(values, key=lambda suit: values[suit][0])))


def trump_values(observation: Observation, rng: random.Random) -> dict[int, tuple[float, float]]:
    """For each trump the declarer may name, its expected score and tricks, from greedy
    play-outs of random layouts."""
    simulated = simulated_tricks(mask(observation.hand), observation.seat, observation.rules,
                                 leader=observation.seat, worlds=32, rng=rng)
    bid = observation.bid or 0
    return {suit: (statistics.fmean(t * 10 if t >= bid else -bid * 10 for t in tricks),
                   statistics.fmean(tricks))
            for suit, tricks in simulated.items()}


def _hard_announcement(observation: Observation, rng: random.Random, style: Style) -> Action:
    values = announcement_values(observation, rng)
    return Announce(max(values, key=lambda number: values[number][0]))


def announcement_values(observation: Observation, rng: random.Random
                        ) -> dict[int, tuple[float, float]]:
    """For each number of tricks the seat may announce (Koz Maça with announcements), its
    expected score and the seat's expected tricks, from greedy play-outs of random layouts."""
    rules = observation.rules
    leader = next_seat_table(rules.direction == "clockwise")[observation.dealer]
    hand = mask(observation.hand)
    tricks = simulated_tricks(hand, observation.seat, rules, leader=leader, worlds=32,
                              rng=rng, trumps=(int(Suit.SPADES),))[int(Suit.SPADES)]
    limit = rules.spades_overtrick_limit
    expected_tricks = statistics.fmean(tricks)

    def value(number: int) -> float:
        def line(taken: int) -> int:
            if number == 0:
                return 50 if taken == 0 else -50
            made = taken >= number and (limit is None or taken - number < limit)
            return number * 10 if made else -number * 10

        return statistics.fmean(line(t) for t in tricks)

    return {number: (value(number), expected_tricks) for number in range(14)}


def controlled_seats(observation: Observation) -> tuple[int, ...]:
    """The seats whose cards the deciding player chooses: its own and a dummy's."""
    seat = observation.seat
    return (seat,) if observation.dummy is None else (seat, observation.dummy)


def scoring_side(observation: Observation) -> tuple[tuple[int, ...], list[int]]:
    """Whose tricks count for the deciding seat (its team's in the partnership game) and its
    score for each number of them."""
    seat = observation.seat
    side = (seat, (seat + 2) % 4) if observation.rules.game == Game.PARTNERSHIP else (seat,)
    rival = (seat + 1) % 4
    announcements = (list(observation.announcements)
                     if observation.rules.spades_announcements else None)
    values = []
    for taken in range(14):
        tricks = [0, 0, 0, 0]
        tricks[seat] = taken
        tricks[rival] = 13 - taken
        values.append(_own_score(observation, tricks, observation.declarer, observation.bid,
                                 announcements))
    return side, values


def _hard_card(observation: Observation, rng: random.Random) -> Action:
    return searched_card(observation, rng, HARD)


def searched_card(observation: Observation, rng: random.Random,
                  settings: SearchSettings) -> Action:
    """The card with the best mean score over the player's plausible worlds, among those card
    sense leaves (`preferred_card`)."""
    moves = worth_searching(observation)
    if len(moves) == 1:
        return moves[0]
    worlds = plausible_worlds(observation, rng, settings)
    return preferred_card(observation, card_means(observation, moves, worlds, settings))


def worth_searching(observation: Observation) -> list[Action]:
    """The cards card sense leaves to search (`card_sense.candidates`)."""
    state, knowledge = known_position(observation)
    cards = card_sense.candidates(state, knowledge, _partnership(observation),
                                  _sensible_greedy_card(observation))
    return [Play(ALL_CARDS[card]) for card in cards]


def card_means(observation: Observation, moves: list[Action],
               worlds: list[tuple[list[int], float]],
               settings: SearchSettings | None = None) -> dict[Action, float]:
    """Each move's weighted mean score over ``worlds`` (hands, weight): in each, greedy play
    to the last tricks, then the search of the seat's own choices against greedy others; the
    seat's next ``settings.joint_moves`` choices one card for the worlds it cannot tell apart
    (`bots.joint_search`)."""
    settings = settings or HARD
    side, values = scoring_side(observation)
    start, _ = known_position(observation)
    means = joint_search().mean_scores(
        start, [world for world, _ in worlds], [weight for _, weight in worlds],
        [move.card.index for move in moves],  # type: ignore[union-attr]
        controlled=controlled_seats(observation), side=side, values=values,
        partnership=_partnership(observation), joint_moves=settings.joint_moves,
        endgame_tricks=settings.endgame_tricks,
    )
    return dict(zip(moves, means, strict=True))


# Points a deal (mean over the worlds) a card must gain over the best sure winner of the trick
# for Hard to give that trick up: less is within the noise of a few dozen worlds.
SURE_TRICK_MARGIN = 1.0
# Means closer than this are equal: the same scores, summed in another order.
TIE = 1e-9


def preferred_card(observation: Observation, means: dict[Action, float]) -> Action:
    """The card with the best mean score, unless it gives up a sure trick for less than
    `SURE_TRICK_MARGIN`. Among cards the search cannot tell apart (equal in every world, where
    every hand is known) a player who cannot see the cards still can: the cheapest sure
    winner, else Medium's card, else the least useful card (the lowest loser)."""
    state, knowledge = known_position(observation)
    sure = card_sense.sure_winners(state, knowledge, _partnership(observation))
    obvious = _medium_card(observation)
    trump = int(observation.trump)  # type: ignore[arg-type]

    def is_sure(move: Action) -> bool:
        return bool(sure >> move.card.index & 1)  # type: ignore[union-attr]

    best = max(means.values())
    sure_best = max((means[move] for move in means if is_sure(move)), default=None)
    if sure_best is not None and sure_best >= best - SURE_TRICK_MARGIN:
        tied = [move for move in means if is_sure(move) and means[move] >= sure_best - TIE]
    else:
        tied = [move for move in means if means[move] >= best - TIE]

    def preference(move: Action) -> tuple[bool, bool, int]:
        card = move.card.index  # type: ignore[union-attr]
        return is_sure(move), move == obvious, -keep_value(card, trump)

    return max(tied, key=preference)


@functools.cache
def joint_search() -> JointSearch:
    # Made on first use, as the solver: its own 12 MB position table.
    return JointSearch()


def expert_player(observation: Observation, rng: random.Random, style: Style) -> Action:
    """Hard's calls and worlds; its cards judged with its next choices joint."""
    if observation.phase != Phase.PLAY or RequestRedeal() in observation.legal_actions:
        return hard_player(observation, rng, style)
    return searched_card(observation, rng, EXPERT)


def plausible_worlds(observation: Observation, rng: random.Random,
                     settings: SearchSettings | None = None) -> list[tuple[list[int], float]]:
    """``settings.worlds`` layouts (Hard's by default) that respect every inference, read
    toward the plays so far (`bots.card_reading`), each with its plausibility given the
    auction."""
    settings = settings or HARD
    knowledge = infer(observation)
    sampler = WorldSampler(knowledge)
    worlds = [sampler.sample(rng) for _ in range(settings.worlds)]
    card_reading.refine(observation, knowledge, worlds, settings.surprise,
                        settings.reading_steps, rng)
    played = played_by_seat(observation)
    return [(world, auction_weight(observation, world, knowledge.hidden, played))
            for world in worlds]


PLAYERS: dict[str, Callable[[Observation, random.Random, Style], Action]] = {
    "random": random_player,
    "easy": easy_player,
    "medium": medium_player,
    "hard": hard_player,
    "expert": expert_player,
}

# Hard leans half a trick bold: its play makes more tricks than the play-outs judging its bids.
DEFAULT_STYLES = {
    "easy": Style(boldness=-0.5, margin=1.0),
    "medium": Style(),
    "hard": Style(boldness=0.5),
}
