"""The tour's content keeps the story mode's promises: five tables from the corner café to the
city final, ten characters, opponents growing stronger, every table playable."""

import pytest

from games import bot_names
from games.bot_style import Style
from games.engine import RuleError, TableRules
from games.models import BotLevel, GameChoice
from tour import content

STRENGTH = {BotLevel.EASY: 1, BotLevel.MEDIUM: 2, BotLevel.HARD: 3}


def test_five_tables_and_ten_characters_with_stable_unique_slugs() -> None:
    assert len(content.TABLES) == 5
    assert len(content.CHARACTERS) == 10
    assert len({table.slug for table in content.TABLES}) == 5
    seated = {slug for table in content.TABLES for slug in table.seats}
    assert seated == set(content.CHARACTERS), "every character sits at a table"
    for table in content.TABLES:
        assert len(set(table.seats)) == 3, table.slug
        assert table.name and table.place and table.intro


def test_from_the_corner_cafe_to_the_city_final() -> None:
    assert content.TABLES[0].slug == "kose-kahvesi"
    assert content.TABLES[-1].slug == "sehir-finali"
    assert content.previous_table(content.TABLES[0]) is None
    assert content.next_table(content.TABLES[-1]) is None
    assert content.next_table(content.TABLES[1]) == content.TABLES[2]


def test_opponents_grow_stronger_and_the_final_is_hard() -> None:
    strengths = [sum(STRENGTH[c.level] for c in table.characters) for table in content.TABLES]
    assert strengths == sorted(set(strengths)), strengths
    assert {c.level for c in content.TABLES[-1].characters} == {BotLevel.HARD}
    assert {c.level for c in content.TABLES[0].characters} == {BotLevel.EASY}


def test_early_tables_use_the_default_rules_and_every_table_is_valid() -> None:
    assert [table.rules for table in content.TABLES[:2]] == [{}, {}]
    assert {table.game for table in content.TABLES[:2]} == {GameChoice.AUCTION}
    for table in content.TABLES:
        try:
            TableRules.create(table.game.value, **table.rules)
        except RuleError as error:
            pytest.fail(f"{table.slug}: {error}")
    assert len({(table.game, tuple(table.rules.items())) for table in content.TABLES[2:]}) == 3


def test_every_style_counts_where_its_character_sits() -> None:
    """Hard ignores the style when announcing in Koz Maça, where no auction is held: a Hard
    character there would play exactly like any other Hard player."""
    for table in content.TABLES:
        if table.game == GameChoice.SPADES:
            assert BotLevel.HARD not in {c.level for c in table.characters}, table.slug


def test_style_for_a_seat() -> None:
    assert content.style_for("kaan") == content.CHARACTERS["kaan"].style
    assert isinstance(content.style_for("tahsin"), Style)
    assert content.style_for("") is None
    assert content.style_for("nobody") is None


def test_the_tours_characters_lead_their_levels_names_at_every_table() -> None:
    """Computer players at any table are named as the tour's characters of their level first
    (games/bot_names.py), then more of the same town."""
    for level, names in bot_names.ROSTER.items():
        characters = [c.name for c in content.CHARACTERS.values() if c.level == level]
        assert list(names[:len(characters)]) == characters, level
        assert len(names) >= 4, level  # a table of four computer players of one level
