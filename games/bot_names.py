"""The names computer players sit at a table under: each a character of its level, and no two
alike at one table, so that everyone can tell who bid, who led and who won.

The first names of each level are the Tour of Tables' characters at that level
(`tour/content.py`; `tests/tour/test_content.py` holds the two together), the rest are more of
the same town. Names are Turkish in every language, as the tour's are. A name is only a name: a
computer player of a match plays its level's own way; a tour character's style is a seat's
`character`, which only the tour sets.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from games.models import BotLevel

ROSTER: dict[str, tuple[str, ...]] = {
    BotLevel.EASY: ("Rıfat Amca", "Nermin Teyze", "Kaan", "Emine Nine", "Simitçi Rüstem"),
    BotLevel.MEDIUM: ("Berber Selim", "Zeynep", "Kaptan Cemal", "Hülya", "Terzi Nuri"),
    BotLevel.HARD: ("Doktor Orhan", "Leyla Hanım", "Tahsin Usta", "Avukat Sevda", "Hakan"),
    BotLevel.EXPERT: ("Profesör Nihat", "Defne", "Hoca Kemal", "Mimar Aslı", "Koç Mete"),
}


def pick(levels: Sequence[str], taken: Collection[str] = (), seed: object = None) -> list[str]:
    """A name for each computer player of ``levels`` (seat by seat), none of them in ``taken``
    (the names already at the table) nor alike. Each level's names are taken in the roster's
    order from a start drawn with ``seed`` (a match's id: the same table names the same), so
    tables differ. A level whose names are all taken falls back to another level's: a table of
    four Expert players still has four names."""
    rng = random.Random(None if seed is None else str(seed))
    used = set(taken)
    names: list[str] = []
    for level in levels:
        name = _first_free(ROSTER[level], rng.randrange(len(ROSTER[level])), used)
        if name is None:
            name = next(name for roster in ROSTER.values()
                        for name in roster if name not in used)
        used.add(name)
        names.append(name)
    return names


def _first_free(roster: tuple[str, ...], start: int, used: set[str]) -> str | None:
    for offset in range(len(roster)):
        name = roster[(start + offset) % len(roster)]
        if name not in used:
            return name
    return None
