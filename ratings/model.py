"""The rating model, pure: four players each for themselves (the auction game, Koz Maça) or two
teams of two (the partnership game), ranked with shared places, rated by the Bradley-Terry model
with full pairing of the `openskill` package (Weng and Lin, 2011): every two seats of a table are
one comparison, won, lost or drawn (a shared place is a draw), and each player's uncertainty
shrinks as they play; two-player Elo or Glicko would have to split a table of four into pairs
by hand. openskill's Plackett-Luce model was the first choice and was measured to mishandle
shared places (1, 1, 3, 4): the third place gained as much as the two winners.

Shown on a scale people know: `rating` = 1500 + 48 (mu - 25) and `deviation` = 48 sigma. 48 is
200 / beta: in both models a difference of beta (openskill) or of 200 (Elo) is about a 76 %
chance of finishing ahead, so 200 rating points mean here what they mean in chess. A new
player starts at 1500 ± 200."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from openskill.models import BradleyTerryFull, BradleyTerryFullRating

# A new player's doubt: half openskill's default (25 / 3). Batak's results carry much luck,
# and the default let one first match move a new player by up to 490 points (last at a table
# of another new person, an Easy and a Medium computer player: 1500 to 1011); from 1500 ± 200
# that match moves 183, about a first Glicko game's change. Measured: tests/ratings/test_model.py.
MODEL = BradleyTerryFull(sigma=25 / 6)
SCALE = 48.0
CENTRE = 1500
# Provisional for a player's first rated matches of a game: until then the rating moves fast
# and the leaderboards leave the player out (as lichess does while a rating is provisional).
PROVISIONAL_MATCHES = 10


@dataclasses.dataclass(frozen=True, slots=True)
class Skill:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def rating(self) -> int:
        return round(CENTRE + SCALE * (self.mu - MODEL.mu))

    @property
    def deviation(self) -> int:
        return round(SCALE * self.sigma)

    @classmethod
    def shown(cls, rating: int, deviation: int) -> Skill:
        """The skill a rating and deviation on the shown scale stand for."""
        return cls(MODEL.mu + (rating - CENTRE) / SCALE, deviation / SCALE)


@dataclasses.dataclass(frozen=True, slots=True)
class Player:
    skill: Skill
    place: int  # 1-based, shared on a tie
    fixed: bool = False  # a computer player: its skill is published, never changed by play


def rate(players: Sequence[Player], *, partnership: bool) -> list[Skill]:
    """Each player's skill after a match whose four seats (in seat order) finished at their
    places. In the partnership game seats 0 and 2 are one team, 1 and 3 the other, and each
    seat's place is its team's; a player whose own place is worse than its team's (one who left)
    is rated as if the team had finished last, the partner as the team did. Fixed players
    keep their skill."""
    assert len(players) == 4
    if not partnership:
        return _rate_teams([[0], [1], [2], [3]], players, [p.place for p in players])
    team_place = [min(players[s].place, players[(s + 2) % 4].place) for s in range(4)]
    result = _rate_teams([[0, 2], [1, 3]], players, [team_place[0], team_place[1]])
    for seat in range(4):
        if players[seat].place > team_place[seat] and not players[seat].fixed:
            # Rated on its own result: its team's skill as it was, its side last.
            alone = _rate_teams([[0, 2], [1, 3]], players, [2, 1] if seat % 2 == 0 else [1, 2])
            result[seat] = alone[seat]
    return result


def _rate_teams(teams: list[list[int]], players: Sequence[Player], ranks: list[int]) -> list[Skill]:
    ratings = [
        [MODEL.rating(mu=players[s].skill.mu, sigma=players[s].skill.sigma) for s in team]
        for team in teams
    ]
    rated: list[list[BradleyTerryFullRating]] = MODEL.rate(ratings, ranks=[float(r) for r in ranks])
    after = [players[s].skill for s in range(4)]
    for team, new in zip(teams, rated, strict=True):
        for seat, skill in zip(team, new, strict=True):
            if not players[seat].fixed:
                after[seat] = Skill(skill.mu, skill.sigma)
    return after
