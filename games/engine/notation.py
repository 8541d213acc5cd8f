"""Batak Deal Notation (BDN): a deal or a whole match as text, in the spirit of PBN and PGN.

``write_deal(start, log)`` prints a deal (``write_deal(deal.start, deal.log)`` a `Deal`, finished
or not), ``read_deal(text)`` reads one back; ``write_match`` and ``read_match`` do the same for a
match's deals under its header. Reading replays every move through `Deal`, so a text the rules
refuse is refused with the engine's own reason, and the results a text states (tricks, points,
totals) must be the ones its moves give. Printed text reads back to the same value, and that
value prints to the same bytes. docs/notation.md is the specification.

Every refusal is a `NotationError` naming the line; its ``template`` is an English sentence marked
for translation with ``params`` to fill it in, as `RuleError`'s are.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .actions import Action, Announce, Bid, ChooseTrump, Pass, Play, RequestRedeal
from .cards import Card, CardParseError, Suit, cards_of
from .deal import Deal, DealStart
from .errors import IllegalAction, Reason, gettext_noop
from .match import MAX_DEALS, Match
from .play import next_seat_table
from .public import Phase
from .rules import RULE_NAMES, RuleError, TableRules
from .shuffle import hands_from_deck

VERSION = "1"
FORMAT_TAG = "BDN"

EXPECTED = gettext_noop("line %(line)d: expected %(expected)s")
UNSUPPORTED_VERSION = gettext_noop(
    "line %(line)d: notation version %(version)s is not one this service reads (it reads "
    "%(supported)s)"
)
UNKNOWN_TAG = gettext_noop("line %(line)d: [%(tag)s] is not a tag of this notation")
REPEATED_TAG = gettext_noop("line %(line)d: [%(tag)s] is given twice")
MISSING_TAG = gettext_noop("line %(line)d: [%(tag)s] is missing")
BAD_RULE = gettext_noop("line %(line)d: [%(tag)s] %(problem)s")
HAND_SIZE = gettext_noop("line %(line)d: [%(tag)s] holds %(count)d cards, not 13")
CARD_TWICE = gettext_noop("line %(line)d: %(card)s is dealt twice")
DECK_MISMATCH = gettext_noop("line %(line)d: this deck does not deal these hands")
TRICK_SIZE = gettext_noop(
    "line %(line)d: trick %(number)d has %(count)d cards; only the last trick of a deal still "
    "in play has fewer than 4"
)
ILLEGAL_MOVE = gettext_noop("line %(line)d: %(move)s: %(reason)s")
WRONG_RESULT = gettext_noop(
    'line %(line)d: [%(tag)s] says "%(written)s" but the moves give "%(actual)s"'
)
DEAL_ORDER = gettext_noop(
    "line %(line)d: deal %(number)d dealt by seat %(dealer)d does not follow the match's dealer "
    "order"
)
NOT_ONE_DEAL = gettext_noop("line %(line)d: a deal's notation holds one deal, not %(count)d")
MATCH_TAGS_IN_DEAL = gettext_noop(
    "line %(line)d: [%(tag)s] belongs to a match's notation, not a deal's"
)
HEADER_TAG = gettext_noop("line %(line)d: [%(tag)s] belongs to the header, before the first [Deal]")


class NotationError(ValueError):
    """Text that is not a deal (or match) of this notation, or one the rules refuse.

    ``refusal`` is the engine's when a move is refused; ``rule_error`` the rule's when a table
    rule is."""

    def __init__(
        self,
        template: str,
        *,
        line: int,
        refusal: IllegalAction | None = None,
        rule_error: RuleError | None = None,
        **params: Any,
    ) -> None:
        self.template = template
        self.params = {"line": line, **params}
        self.line = line
        self.refusal = refusal
        self.rule_error = rule_error
        self.message = template % self.params
        super().__init__(self.message)


@dataclasses.dataclass(frozen=True, slots=True)
class NotatedDeal:
    """A deal as the notation holds it: where it starts and every action, in order."""

    start: DealStart
    log: tuple[tuple[int, Action], ...] = ()

    def replay(self) -> Deal:
        return Deal.replay(self.start, self.log)


@dataclasses.dataclass(frozen=True, slots=True)
class NotatedMatch:
    """A match's header and its deals (thrown-in ones included), in the order dealt."""

    rules: TableRules
    deal_count: int
    first_dealer: int
    deals: tuple[NotatedDeal, ...] = ()
    names: tuple[str, str, str, str] | None = None

    def replay(self) -> Match:
        return Match.replay(
            self.rules, self.deal_count, self.first_dealer,
            [(deal.start, deal.log) for deal in self.deals],
        )


# --- writing -----------------------------------------------------------------------------------

_MATCH_TAGS = ("Deals", "FirstDealer", "Name0", "Name1", "Name2", "Name3", "Totals", "Ranking")
_DEAL_TAGS = (
    "Dealer", "Hand0", "Hand1", "Hand2", "Hand3", "Deck", "Result", "Tricks", "Points",
)
_RESULTS = {Phase.FINISHED: "finished", Phase.REDEALT: "redealt"}
IN_PLAY = "*"


def write_deal(start: DealStart, log: Sequence[tuple[int, Action]]) -> str:
    """The notation of one deal: its header (version, game, rules that differ from the game's
    defaults), its tags and its moves."""
    header = _header_lines(start.rules)
    tags, moves = _deal_lines(start, log)
    return _join([header + tags, moves])


def write_match(match: NotatedMatch) -> str:
    """The notation of a match: its header, then each of its deals."""
    header = _header_lines(match.rules)
    header.append(_tag("Deals", str(match.deal_count)))
    header.append(_tag("FirstDealer", str(match.first_dealer)))
    for seat, name in enumerate(match.names or ()):
        header.append(_tag(f"Name{seat}", name))
    replayed = match.replay()
    header.append(_tag("Totals", _numbers(replayed.totals)))
    if replayed.is_over:
        header.append(_tag("Ranking", _numbers(replayed.ranking())))
    sections = [header]
    for deal in match.deals:
        sections.extend(_deal_lines(deal.start, deal.log))
    return _join(sections)


def _join(sections: list[list[str]]) -> str:
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _header_lines(rules: TableRules) -> list[str]:
    lines = [_tag(FORMAT_TAG, VERSION), _tag("Game", rules.game.value)]
    lines.extend(_tag(name, _rule_text(value)) for name, value in _changed_rules(rules).items())
    return lines


def _changed_rules(rules: TableRules) -> dict[str, Any]:
    """The rules that differ from what `TableRules.create` makes of the game and of the rules
    written before them (turning announcements on brings their default overtrick limit)."""
    values = rules.to_dict()
    changed: dict[str, Any] = {}
    for name in RULE_NAMES:  # in order: announcements come before their overtrick limit
        if TableRules.create(rules.game, **changed).to_dict()[name] != values[name]:
            changed[name] = values[name]
    return changed


def _rule_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _deal_lines(start: DealStart, log: Sequence[tuple[int, Action]]) -> list[list[str]]:
    """A deal's tag lines and its move lines."""
    deal = Deal(start)
    moves = _Moves()
    for seat, action in log:
        owner = deal.turn if isinstance(action, Play) else seat
        trick = len(deal.completed_tricks()) + 1
        deal.apply(seat, action)
        assert owner is not None
        moves.add(owner, action, trick)
    tags = [_tag("Deal", str(start.number)), _tag("Dealer", str(start.dealer))]
    tags.extend(
        _tag(f"Hand{seat}", " ".join(map(str, cards_of(hand))))
        for seat, hand in enumerate(start.hands)
    )
    if start.deck is not None:
        tags.append(_tag("Deck", " ".join(str(Card(index)) for index in start.deck)))
    tags.append(_tag("Result", _RESULTS.get(deal.phase, IN_PLAY)))
    if deal.score is not None:
        tags.append(_tag("Tricks", _numbers(deal.tricks_won)))
        tags.append(_tag("Points", _numbers(deal.score.points)))
    return [tags, moves.lines]


class _Moves:
    """Move lines as actions are added: one line per phase, one per trick."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._label = ""

    def add(self, seat: int, action: Action, trick: int) -> None:
        match action:
            case RequestRedeal():
                label, item = "Redeal", str(seat)
            case Bid(tricks=tricks):
                label, item = "Auction", f"{seat} {tricks}"
            case Pass():
                label, item = "Auction", f"{seat} pass"
            case ChooseTrump(suit=suit):
                label, item = "Trump", f"{seat} {suit.letter}"
            case Announce(tricks=tricks):
                label, item = "Announcements", f"{seat} {tricks}"
            case Play(card=card):
                label, item = f"Trick {trick}", f"{seat} {card}"
        if label == self._label:
            self.lines[-1] += f", {item}"
        else:
            self.lines.append(f"{label}: {item}")
            self._label = label


def _tag(name: str, value: str) -> str:
    return f'[{name} "{value.translate(_ESCAPED)}"]'


def _numbers(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


# --- reading -----------------------------------------------------------------------------------

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]')
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r"}
_ESCAPED = str.maketrans({char: f"\\{letter}" for letter, char in _ESCAPES.items()})
_MOVE = re.compile(r"(Redeal|Auction|Trump|Announcements|Trick ([0-9]{1,2})):(.*)")
_SEAT = re.compile(r"[0-3]")
_NUMBER = re.compile(r"[0-9]{1,2}")
# A rule's whole number: long enough for any rule to refuse it by value, short enough for int().
_RULE_NUMBER = re.compile(r"-?[0-9]{1,9}")
_LABEL_ORDER = ("Redeal", "Auction", "Trump", "Announcements", "Trick")


@dataclasses.dataclass
class _Tags:
    values: dict[str, str] = dataclasses.field(default_factory=dict)
    lines: dict[str, int] = dataclasses.field(default_factory=dict)
    end: int = 0  # the block's last line

    def add(self, name: str, value: str, line: int) -> None:
        if name in self.values:
            raise NotationError(REPEATED_TAG, line=line, tag=name)
        self.values[name] = value
        self.lines[name] = line

    def line(self, name: str) -> int:
        return self.lines.get(name, self.end)

    def required(self, name: str) -> str:
        if name not in self.values:
            raise NotationError(MISSING_TAG, line=self.end, tag=name)
        return self.values[name]


@dataclasses.dataclass
class _DealBlock:
    tags: _Tags
    moves: list[tuple[int, str]] = dataclasses.field(default_factory=list)


def read_deal(text: str) -> NotatedDeal:
    """Inverse of `write_deal`; `NotationError` names the first line it cannot accept."""
    header, blocks = _blocks(text)
    for name in _MATCH_TAGS:
        if name in header.values:
            raise NotationError(MATCH_TAGS_IN_DEAL, line=header.line(name), tag=name)
    if len(blocks) != 1:
        line = blocks[1].tags.line("Deal") if blocks else header.end
        raise NotationError(NOT_ONE_DEAL, line=line, count=len(blocks))
    deal, _ = _read_deal(_rules(header), blocks[0])
    return NotatedDeal(deal.start, tuple(deal.log))


def read_match(text: str) -> NotatedMatch:
    """Inverse of `write_match`; `NotationError` names the first line it cannot accept."""
    header, blocks = _blocks(text)
    rules = _rules(header)
    deal_count = _whole(header, "Deals", range(1, MAX_DEALS + 1))
    first_dealer = _whole(header, "FirstDealer", range(4))
    names = tuple(header.values.get(f"Name{seat}") for seat in range(4))
    if any(name is None for name in names) and any(name is not None for name in names):
        missing = next(seat for seat, name in enumerate(names) if name is None)
        raise NotationError(MISSING_TAG, line=header.end, tag=f"Name{missing}")
    match = Match(rules, deal_count, first_dealer=first_dealer, start=False)
    deals = []
    for block in blocks:
        deal, line = _read_deal(rules, block)
        if match.next_deal_parameters() != (deal.dealer, deal.number):
            raise NotationError(DEAL_ORDER, line=line, number=deal.number, dealer=deal.dealer)
        match.deals.append(deal)
        deals.append(NotatedDeal(deal.start, tuple(deal.log)))
    _check(header, "Totals", _numbers(match.totals))
    _check(header, "Ranking", _numbers(match.ranking()) if match.is_over else None)
    return NotatedMatch(
        rules, deal_count, first_dealer, tuple(deals),
        None if names[0] is None else names,  # type: ignore[arg-type]
    )


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line


def _blocks(text: str) -> tuple[_Tags, list[_DealBlock]]:
    """The header's tags and each deal's tags and move lines."""
    header = _Tags()
    blocks: list[_DealBlock] = []
    lines = list(_lines(text))
    first = _TAG.fullmatch(lines[0][1].strip()) if lines else None
    if first is None or first.group(1) != FORMAT_TAG:
        raise NotationError(EXPECTED, line=lines[0][0] if lines else 1,
                            expected=f'[{FORMAT_TAG} "{VERSION}"]')
    for line, content in lines:
        tag = _TAG.fullmatch(content.strip())
        if tag is None and content.lstrip().startswith("["):
            raise NotationError(EXPECTED, line=line, expected='[Name "value"]')
        if tag is None:
            if not blocks:
                raise NotationError(EXPECTED, line=line, expected='[Deal "1"]')
            blocks[-1].moves.append((line, content.strip()))
            continue
        name, value = tag.group(1), _unescape(tag.group(2), line)
        if name == FORMAT_TAG and value != VERSION:
            raise NotationError(UNSUPPORTED_VERSION, line=line, version=value, supported=VERSION)
        if name == "Deal":
            blocks.append(_DealBlock(_Tags()))
        if blocks and blocks[-1].moves:
            raise NotationError(EXPECTED, line=line, expected='[Deal "1"]')
        (blocks[-1].tags if blocks else header).add(name, value, line)
    header.end = blocks[0].tags.line("Deal") if blocks else lines[-1][0]
    for index, block in enumerate(blocks):
        following = blocks[index + 1].tags.line("Deal") if index + 1 < len(blocks) else None
        block.tags.end = following - 1 if following else lines[-1][0]
    return header, blocks


def _unescape(value: str, line: int) -> str:
    def replace(found: re.Match[str]) -> str:
        escaped = _ESCAPES.get(found.group(1))
        if escaped is None:
            raise NotationError(EXPECTED, line=line, expected='\\\\, \\", \\n or \\r')
        return escaped

    return re.sub(r"\\(.)", replace, value)


def _rules(header: _Tags) -> TableRules:
    game = header.required("Game")
    overrides: dict[str, Any] = {}
    for name, value in header.values.items():
        if name in (FORMAT_TAG, "Game", *_MATCH_TAGS):
            continue
        if name == "Deal" or name in _DEAL_TAGS:
            raise NotationError(EXPECTED, line=header.line(name), expected='[Deal "1"]')
        if name not in RULE_NAMES:
            raise NotationError(UNKNOWN_TAG, line=header.line(name), tag=name)
        overrides[name] = _rule_value(value)
    try:
        return TableRules.create(game, **overrides)
    except RuleError as error:
        tag = "Game" if error.field == "game" else error.field
        raise NotationError(BAD_RULE, line=header.line(tag), tag=tag, problem=error.message,
                            rule_error=error) from None


def _rule_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    return int(text) if _RULE_NUMBER.fullmatch(text) else text


def _whole(tags: _Tags, name: str, allowed: range) -> int:
    value = tags.required(name)
    if not _NUMBER.fullmatch(value) or int(value) not in allowed:
        raise NotationError(EXPECTED, line=tags.line(name),
                            expected=f'[{name} "{allowed[0]}".."{allowed[-1]}"]')
    return int(value)


def _read_deal(rules: TableRules, block: _DealBlock) -> tuple[Deal, int]:
    """The deal of ``block``, replayed, and the line of its [Deal] tag."""
    tags = block.tags
    for name in tags.values:
        if name != "Deal" and name not in _DEAL_TAGS:
            in_header = name in (FORMAT_TAG, "Game", *RULE_NAMES, *_MATCH_TAGS)
            raise NotationError(HEADER_TAG if in_header else UNKNOWN_TAG,
                                line=tags.line(name), tag=name)
    number = _whole(tags, "Deal", range(1, MAX_DEALS + 1))
    dealer = _whole(tags, "Dealer", range(4))
    hands = _hands(tags)
    deck = _deck(tags, rules, dealer, hands) if "Deck" in tags.values else None
    start = DealStart(rules, dealer, hands, number, deck)
    deal = Deal(start)
    _play_moves(deal, block.moves)
    _check(tags, "Result", _RESULTS.get(deal.phase, IN_PLAY))
    _check(tags, "Tricks", _numbers(deal.tricks_won) if deal.score is not None else None)
    _check(tags, "Points", _numbers(deal.score.points) if deal.score is not None else None)
    return deal, tags.line("Deal")


def _hands(tags: _Tags) -> tuple[int, int, int, int]:
    masks: list[int] = []
    dealt = 0
    for seat in range(4):
        name = f"Hand{seat}"
        line = tags.line(name)
        mask = 0
        for card in _cards(tags.required(name), line):
            if (dealt | mask) & card.bit:
                raise NotationError(CARD_TWICE, line=line, card=str(card))
            mask |= card.bit
        if mask.bit_count() != 13:
            raise NotationError(HAND_SIZE, line=line, tag=name, count=mask.bit_count())
        dealt |= mask
        masks.append(mask)
    return (masks[0], masks[1], masks[2], masks[3])


def _cards(text: str, line: int) -> list[Card]:
    try:
        return [Card.parse(word) for word in text.split()]
    except CardParseError:
        raise NotationError(EXPECTED, line=line, expected="cards such as AS TH 2C") from None


def _deck(
    tags: _Tags, rules: TableRules, dealer: int, hands: tuple[int, ...]
) -> tuple[int, ...]:
    line = tags.line("Deck")
    deck = [card.index for card in _cards(tags.values["Deck"], line)]
    next_seat = next_seat_table(rules.direction == "clockwise")
    if sorted(deck) != list(range(52)) or tuple(hands_from_deck(deck, dealer, next_seat)) != hands:
        raise NotationError(DECK_MISMATCH, line=line)
    return tuple(deck)


def _check(tags: _Tags, name: str, actual: str | None) -> None:
    """A result the text states must be what its moves give; it may be left out."""
    written = tags.values.get(name)
    if written is not None and written != actual:
        raise NotationError(WRONG_RESULT, line=tags.line(name), tag=name, written=written,
                            actual=IN_PLAY if actual is None else actual)


def _play_moves(deal: Deal, moves: list[tuple[int, str]]) -> None:
    """Apply each move line's actions in turn, in the order of `_LABEL_ORDER`."""
    position = -1
    for index, (line, content) in enumerate(moves):
        found = _MOVE.fullmatch(content)
        label = found.group(1).split()[0] if found else ""
        expected_trick = len(deal.completed_tricks()) + 1
        if (
            found is None
            or _LABEL_ORDER.index(label) < position
            or (label != "Trick" and _LABEL_ORDER.index(label) == position)
            or (label == "Trick" and int(found.group(2)) != expected_trick)
        ):
            allowed = [f"{name}:" for name in _LABEL_ORDER[max(position + 1, 0):-1]]
            raise NotationError(EXPECTED, line=line,
                                expected=" ".join([*allowed, f"Trick {expected_trick}:"]))
        position = _LABEL_ORDER.index(label)
        items = [item.strip() for item in found.group(3).split(",")]
        if label == "Trick" and len(items) > 4:
            raise NotationError(TRICK_SIZE, line=line, number=expected_trick, count=len(items))
        for item in items:
            seat, action = _item(label, item, line)
            _apply(deal, seat, action, item, line)
        last = index == len(moves) - 1
        if label == "Trick" and len(items) < 4 and (deal.is_over or not last):
            raise NotationError(TRICK_SIZE, line=line, number=expected_trick, count=len(items))


_ITEM_SYNTAX = {
    "Redeal": "<seat>",
    "Auction": "<seat> <tricks> or <seat> pass",
    "Trump": "<seat> S, H, D or C",
    "Announcements": "<seat> <tricks>",
    "Trick": "<seat> <card>",
}


def _item(label: str, item: str, line: int) -> tuple[int, Action]:
    words = item.split()
    action: Action | None = None
    if words and _SEAT.fullmatch(words[0]):
        argument = words[1] if len(words) == 2 else None
        action = _action(label, argument, len(words))
    if action is None:
        raise NotationError(EXPECTED, line=line, expected=_ITEM_SYNTAX[label])
    return int(words[0]), action


def _action(label: str, argument: str | None, words: int) -> Action | None:
    """The action an item's word after the seat names, None when it names none."""
    if label == "Redeal":
        return RequestRedeal() if words == 1 else None
    if argument is None:
        return None
    try:
        match label:
            case "Auction":
                return Pass() if argument == "pass" else _number(argument, Bid)
            case "Trump":
                return ChooseTrump(Suit.parse(argument)) if len(argument) == 1 else None
            case "Announcements":
                return _number(argument, Announce)
            case _:
                return Play(Card.parse(argument))
    except CardParseError:
        return None


def _number(text: str, kind: type[Bid] | type[Announce]) -> Action | None:
    return kind(int(text)) if _NUMBER.fullmatch(text) else None


def _apply(deal: Deal, seat: int, action: Action, item: str, line: int) -> None:
    """Apply ``action``; a card is written with the seat whose hand it leaves, and the declarer
    plays a face-up dummy's."""
    playing = isinstance(action, Play) and deal.phase == Phase.PLAY
    try:
        if playing and seat != deal.turn:
            raise IllegalAction(Reason.NOT_YOUR_TURN, deal.legal_actions(seat))
        deal.apply(deal.to_act if playing else seat, action)  # type: ignore[arg-type]
    except IllegalAction as error:
        raise NotationError(ILLEGAL_MOVE, line=line, move=item, reason=error.detail,
                            refusal=error) from None
