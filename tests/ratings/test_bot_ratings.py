"""The computer players' ratings measurement (`loadtest.bot_ratings`) on scripted results: no
Hard or Expert search is played here."""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter

from games.models import BotLevel
from loadtest import bot_ratings
from loadtest.bot_ratings import LEVELS, MatchResult


def scripted(matches: int, strongest_first: tuple[str, ...]) -> list[MatchResult]:
    """Matches on the real schedule in which the levels always finish in the given order."""
    return [
        MatchResult(levels, tuple(1 + strongest_first.index(level) for level in levels))
        for levels in bot_ratings.schedule(matches)
    ]


EXPERT_WINS = ("expert", "hard", "medium", "easy")


def test_the_levels_are_the_bot_levels() -> None:
    assert tuple(BotLevel.values) == LEVELS


def test_every_level_sits_in_every_seat_equally_often() -> None:
    seatings = bot_ratings.schedule(48)
    for seat in range(4):
        assert Counter(levels[seat] for levels in seatings) == {level: 12 for level in LEVELS}
    assert all(sorted(levels) == sorted(LEVELS) for levels in seatings)


def test_a_level_that_always_wins_is_rated_highest_and_the_mean_is_1500() -> None:
    results = scripted(48, EXPERT_WINS)
    fits = bot_ratings.summary(results, 3, random.Random(1), partnership=False)
    ratings = [fits[level].rating for level in LEVELS]
    assert ratings == sorted(ratings) and len(set(ratings)) == 4
    assert abs(statistics.fmean(ratings) - 1500) <= 1
    assert fits["expert"].wins == 48 and fits["easy"].wins == 0
    assert fits["hard"].average_place == 2 and fits["hard"].matches == 48


def test_shared_places_in_the_partnership_game() -> None:
    # Seats 0 and 2 are a team: the team holding Expert always wins.
    results = [MatchResult(levels, (1, 2, 1, 2) if "expert" in levels[0::2] else (2, 1, 2, 1))
               for levels in bot_ratings.schedule(48)]
    fits = bot_ratings.summary(results, 1, random.Random(1), partnership=True)
    assert max(LEVELS, key=lambda level: fits[level].rating) == "expert"
    assert fits["expert"].wins == 48 and fits["expert"].average_place == 1


def test_the_bootstrap_is_sure_of_a_clear_order_and_unsure_of_a_coin_toss() -> None:
    clear = bot_ratings.bootstrap(scripted(48, EXPERT_WINS), 20, 1, random.Random(1),
                                  partnership=False)
    assert all(share == 1 for share in bot_ratings.ahead_shares(clear).values())
    rng = random.Random(2)
    coin = [MatchResult(levels, tuple(rng.sample(range(1, 5), 4)))
            for levels in bot_ratings.schedule(48)]
    shares = bot_ratings.ahead_shares(bot_ratings.bootstrap(coin, 20, 1, rng, partnership=False))
    assert any(0 < share < 1 for share in shares.values())


def test_published_ratings_are_rounded() -> None:
    fits = bot_ratings.summary(scripted(24, EXPERT_WINS), 1, random.Random(1),
                               partnership=False)
    spread = dict(zip(LEVELS, (0.4, 12.0, 17.6, 40.0), strict=True))
    proposed = bot_ratings.published(fits, spread)
    assert [deviation for _, deviation in proposed.values()] == [5, 15, 20, 40]
    assert all(rating % 10 == 0 for rating, _ in proposed.values())


def test_the_command_rates_saved_results(tmp_path, capsys) -> None:
    saved = tmp_path / "results.jsonl"
    saved.write_text("".join(json.dumps({"levels": r.levels, "places": r.places}) + "\n"
                             for r in scripted(24, EXPERT_WINS)))
    assert bot_ratings.main(["--results", str(saved), "--bootstrap", "3", "--orders", "2"]) == 0
    out = capsys.readouterr().out
    assert "expert over easy" in out and "BOT_RATINGS = {'easy': (" in out


def test_a_match_of_the_quick_levels_is_played_to_its_ranking() -> None:
    levels = ("easy", "medium", "easy", "medium")
    result = bot_ratings.play_match(("auction", levels, 1, 5))
    assert result.levels == levels and sorted(result.places)[0] == 1
    assert all(1 <= place <= 4 for place in result.places)
