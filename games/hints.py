"""Hints for learners: at a table with the `hints` rule, a seated person may ask on their turn
what the computer players would do, with what each legal choice is expected to bring and one
sentence why.

A hint is worked out from the seat's own view only (`engine.Observation`): the values come from
`bots.advice` through the computer players' seam, seeded by that view, so two layouts the seat
cannot tell apart get the same hint and nothing of the hidden cards leaks. Each is a search of
the seat's possible layouts, so an account's hints are bounded as its computer players' work
is: the same view's hint is answered again from the cache without a new search, an account
has at most HINT_RATE worked out in a window, and one at a time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import formats
from django.utils.translation import gettext, gettext_noop

from games import engine, selectors
from games.computer_players import ChoiceValue, computer_players
from games.errors import (
    ActionRefused,
    HintInProgress,
    HintsOff,
    MatchNotActive,
    TooManyHints,
)
from games.models import Match, MatchStatus
from runtime import windows

# A view's hint stays in the cache this long: a turn rarely lasts longer, and a hint given
# again after it is only worked out again (the same one: it is seeded by the view).
CACHE_SECONDS = 15 * 60
# Longer than any hint takes: an account's hint in progress is forgotten after this even if
# its process died before it said it was done.
IN_PROGRESS_SECONDS = 60
# Choices within this many points count as equally good.
EQUAL_POINTS = 0.05

# The reasons a hint gives, by code; each sentence is filled with the hint's figures.
REASONS: dict[str, str] = {
    "only_choice": gettext_noop("It is your only legal choice."),
    "bid": gettext_noop(
        "Your hand should take about %(tricks)s tricks with its best trump: a bid of "
        "%(bid)s is expected to score best."
    ),
    "pass": gettext_noop(
        "With about %(tricks)s tricks expected from your hand, passing is expected to score "
        "more than any bid."
    ),
    "trump": gettext_noop(
        "With %(suit)s as trumps your hand should take about %(tricks)s tricks, more than "
        "with any other suit."
    ),
    "announce": gettext_noop(
        "You should take about %(tricks)s tricks: announcing %(announce)s is expected to "
        "score best."
    ),
    "card": gettext_noop(
        "%(card)s is expected to score %(margin)s points more than the next best card, "
        "%(next)s."
    ),
    "cards_equal": gettext_noop(
        "Every card you may play is expected to score about the same here; %(card)s is as "
        "good as any."
    ),
}


@dataclasses.dataclass(frozen=True)
class Hint:
    """A hint as worked out (what the cache keeps): the choices, best first, and the reason's
    code and figures. ``sentence`` gives the reason in the active language."""

    choices: list[dict[str, Any]]
    reason: str
    figures: dict[str, Any]

    def sentence(self) -> str:
        return gettext(REASONS[self.reason]) % {
            name: _shown(value) for name, value in self.figures.items()
        }

    def to_dict(self, version: int, team: bool) -> dict[str, Any]:
        return {
            "version": version,
            "action": self.choices[0]["action"],
            "reason_code": self.reason,
            "reason": self.sentence(),
            "choices": self.choices,
            "team": team,
        }


def _aid_allowed(match: Match, offered: bool = True) -> None:
    """A computer's aid (a hint, a bid estimate) is given only at a match in play, never at a
    rated table (docs/ratings.md), and only where the table offers it (``offered``)."""
    if match.rated or not offered:
        raise HintsOff()
    if match.status != MatchStatus.ACTIVE:
        raise MatchNotActive()


def bid_estimate(match: Match, seat: int) -> dict[str, Any]:
    """How many tricks ``seat``'s hand should take with each trump, before play starts: an
    aid, refused as a hint is (except that every unrated table offers it)."""
    _aid_allowed(match)
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    if deal.phase not in (engine.Phase.AUCTION, engine.Phase.TRUMP, engine.Phase.ANNOUNCEMENTS):
        raise engine.IllegalAction(engine.Reason.WRONG_PHASE)
    rules = deal.rules
    leader = seat if rules.has_auction else deal.next_seat[deal.dealer]
    estimates = computer_players().bid_estimate(deal.hand_mask(seat), rules, seat, leader)
    return {
        "hand": [str(card) for card in deal.hand(seat)],
        "estimates": [{"trump": suit, "tricks": tricks} for suit, tricks in estimates.items()],
        "best_trump": max(estimates, key=lambda suit: estimates[suit]),
        "team": rules.is_partnership,
    }


def hint(match: Match, seat: int, account: int) -> dict[str, Any]:
    """The hint for ``seat`` (``account``'s) at ``match`` now: refused unless the table offers
    hints, the match is in play and it is the seat's turn; bounded per account (see above)."""
    _aid_allowed(match, offered=match.hints)
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    if deal.to_act != seat:
        raise ActionRefused(engine.IllegalAction(engine.Reason.NOT_YOUR_TURN))
    observation = deal.observation(seat)
    key = f"hints:view:{match.pk}:{_digest(observation)}"
    found = cache.get(key)
    if found is None:
        with _one_at_a_time(account):
            limit, seconds = windows.parse_rate(settings.HINT_RATE)
            wait = windows.take(f"hints:rate:{windows.account_key(account)}", limit, seconds)
            if wait is not None:
                raise TooManyHints(retry_after=wait)
            found = dataclasses.asdict(
                worked_out(computer_players().choice_values(observation))
            )
        cache.set(key, found, CACHE_SECONDS)
    return Hint(**found).to_dict(match.version, observation.rules.is_partnership)


def worked_out(values: Sequence[ChoiceValue]) -> Hint:
    """The hint of a seat's ``values`` (best first)."""
    choices = [
        {"action": value.action.to_dict(), "points": round(value.points, 2),
         "tricks": None if value.tricks is None else round(value.tricks, 2)}
        for value in values
    ]
    reason, figures = _reason(values)
    return Hint(choices, reason, figures)


def _reason(values: Sequence[ChoiceValue]) -> tuple[str, dict[str, Any]]:
    best = values[0]
    action = best.action
    if len(values) == 1:
        return "only_choice", {}
    tricks = best.tricks if best.tricks is not None else 0.0
    match action:
        case engine.Bid():
            return "bid", {"tricks": tricks, "bid": action.tricks}
        case engine.Pass():
            bid_tricks = next(value.tricks for value in values
                              if isinstance(value.action, engine.Bid))
            return "pass", {"tricks": bid_tricks}
        case engine.ChooseTrump():
            return "trump", {"suit": action.suit.symbol, "tricks": tricks}
        case engine.Announce():
            return "announce", {"tricks": tricks, "announce": action.tricks}
        case engine.Play():
            runner_up = values[1]
            margin = best.points - runner_up.points
            if margin < EQUAL_POINTS:
                return "cards_equal", {"card": _card(action.card)}
            assert isinstance(runner_up.action, engine.Play)
            return "card", {"card": _card(action.card), "margin": margin,
                            "next": _card(runner_up.action.card)}
    raise AssertionError(f"no hint for {action}")  # choice_values values no other action


def _card(card: engine.Card) -> str:
    """A card as a person reads it: rank and suit symbol (``10♥``, ``Q♣``)."""
    return f"{str(card)[:-1].replace('T', '10')}{card.suit.symbol}"


def _shown(value: Any) -> Any:
    """Figures with one decimal, as the active language writes numbers."""
    # Rounded first: number_format cuts the digits beyond (1.3999… would read 1.3).
    return formats.number_format(round(value, 1), 1) if isinstance(value, float) else value


def _digest(observation: engine.Observation) -> str:
    view = json.dumps(observation.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(view.encode()).hexdigest()


@contextmanager
def _one_at_a_time(account: int) -> Iterator[None]:
    """The account's one hint in progress (atomic in the cache, so across processes when
    scaled out); HintInProgress while another is."""
    key, token = f"hints:busy:{windows.account_key(account)}", uuid.uuid4().hex
    if not cache.add(key, token, IN_PROGRESS_SECONDS):
        raise HintInProgress(retry_after=1)
    try:
        yield
    finally:
        if cache.get(key) == token:
            cache.delete(key)
