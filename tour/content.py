"""Tour of Tables, the story mode: five tables from the corner café to the city final, and the
ten characters who sit at them. Plain data, so the tables can be reworded or rebalanced without
touching a service or a view; `tests/tour/test_content.py` holds them to the tour's promises.

A character plays at its ``level`` with its own `Style`. What a style moves differs by level:
Easy and Medium add ``boldness`` to their trick estimate and bid only when the estimate clears
the bid by ``margin``; Hard weighs declaring against defending by play-outs, so only
``boldness`` moves it, and it ignores the style when announcing in Koz Maça. The tables are laid
out so that every character's style counts wherever it sits: no Hard character at the Koz Maça
table.

Slugs are stored with every player's progress and on match seats: never change one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.bot_style import Style
from games.models import BotLevel, GameChoice

# Every table of the tour is played over this many deals.
DEALS = 4
# The person always sits in seat 0 and the table's characters in seats 1, 2 and 3, so at the
# partnership table the character in seat 2 is the person's partner.
PERSON_SEAT = 0
PARTNER_SEAT = 2


@dataclasses.dataclass(frozen=True)
class Character:
    slug: str
    name: str
    personality: Promise  # translated when shown
    level: BotLevel
    style: Style


@dataclasses.dataclass(frozen=True)
class Table:
    slug: str
    name: str  # Turkish in every language
    place: Promise  # translated when shown, as the intro
    intro: Promise
    game: GameChoice
    # Changes from the game's preset (see `games.engine.TableRules.create`).
    rules: dict[str, Any]
    # The characters' slugs for seats 1, 2 and 3.
    seats: tuple[str, str, str]

    @property
    def characters(self) -> tuple[Character, ...]:
        return tuple(CHARACTERS[slug] for slug in self.seats)


_CHARACTERS = (
    Character(
        "rifat", "Rıfat Amca",
        _("Owns the corner café; pours the tea, then bids only on a hand he could win asleep."),
        BotLevel.EASY, Style(boldness=-1.0, margin=1.5),
    ),
    Character(
        "nermin", "Nermin Teyze",
        _("Comes for the gossip and stays for the cards; bids the way the street always has."),
        BotLevel.EASY, Style(boldness=-0.5, margin=1.0),
    ),
    Character(
        "kaan", "Kaan",
        _("A student skipping lectures for cards, who bids every hand as if it were his last."),
        BotLevel.EASY, Style(boldness=1.5, margin=0.0),
    ),
    Character(
        "selim", "Berber Selim",
        _("The barber: talks through every trick and still counts every card."),
        BotLevel.MEDIUM, Style(boldness=0.0, margin=0.5),
    ),
    Character(
        "zeynep", "Zeynep",
        _("An accountant who never bids a trick she cannot show on paper."),
        BotLevel.MEDIUM, Style(boldness=-0.75, margin=1.25),
    ),
    Character(
        "cemal", "Kaptan Cemal",
        _("A retired ferry captain who takes every auction like a stormy crossing: full steam."),
        BotLevel.MEDIUM, Style(boldness=1.25, margin=0.25),
    ),
    Character(
        "hulya", "Hülya",
        _("Quiet all evening until the auction, then raises the moment her hand comes close."),
        BotLevel.MEDIUM, Style(boldness=0.5, margin=0.0),
    ),
    Character(
        "orhan", "Doktor Orhan",
        _("A retired surgeon who plays out every layout in his head and declares only when it "
          "pays."),
        BotLevel.HARD, Style(boldness=-0.5),
    ),
    Character(
        "leyla", "Leyla Hanım",
        _("Last year's runner-up; she takes the contract whenever it is anywhere near worth it."),
        BotLevel.HARD, Style(boldness=1.0),
    ),
    Character(
        "tahsin", "Tahsin Usta",
        _("The reigning city champion: patient, precise, and a shade braver than the odds."),
        BotLevel.HARD, Style(boldness=0.25),
    ),
)
CHARACTERS: dict[str, Character] = {character.slug: character for character in _CHARACTERS}

TABLES: tuple[Table, ...] = (
    Table(
        "kose-kahvesi", "Köşe Kahvesi", _("The corner café of your street"),
        _("Tea glasses clink and the cards are worn soft: the table where everyone learned."),
        GameChoice.AUCTION, {}, ("rifat", "nermin", "kaan"),
    ),
    Table(
        "cay-bahcesi", "Çay Bahçesi", _("A tea garden on the Üsküdar shore"),
        _("Regulars under the plane trees, and the first players who count the cards."),
        GameChoice.AUCTION, {}, ("kaan", "selim", "zeynep"),
    ),
    Table(
        "iskele-kiraathanesi", "İskele Kıraathanesi", _("The coffee house by the ferry pier"),
        _("No auction here: spades are always trumps, and everyone says up front how many "
          "tricks they will take."),
        GameChoice.SPADES, {"spades_announcements": True}, ("zeynep", "cemal", "hulya"),
    ),
    Table(
        "esnaf-lokali", "Esnaf Lokali", _("The tradesmen's club above the bazaar"),
        _("Partners sit opposite: Berber Selim plays with you against the doctor and Leyla Hanım."),
        GameChoice.PARTNERSHIP, {}, ("orhan", "selim", "leyla"),
    ),
    Table(
        "sehir-finali", "Şehir Finali", _("The city final in the grand hall"),
        _("The best of the city with the champion among them, and no bid below five."),
        GameChoice.AUCTION, {"min_bid": 5}, ("orhan", "leyla", "tahsin"),
    ),
)
_TABLES = {table.slug: table for table in TABLES}


def table(slug: str) -> Table | None:
    return _TABLES.get(slug)


def previous_table(of: Table) -> Table | None:
    index = TABLES.index(of)
    return TABLES[index - 1] if index else None


def next_table(of: Table) -> Table | None:
    index = TABLES.index(of)
    return TABLES[index + 1] if index + 1 < len(TABLES) else None


def style_for(character_slug: str) -> Style | None:
    """The style a computer seat plays with: its character's, or None (the level's default)
    for a seat without a character or with one the tour no longer has."""
    character = CHARACTERS.get(character_slug)
    return character.style if character is not None else None
