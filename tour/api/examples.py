"""Response examples for the tour's API documentation. The tables come from the tour's content,
so the examples cannot drift from it; a test checks each against the schema."""

from typing import Any

from games.api import examples as games_examples
from tour import content, selectors

TABLE: dict[str, Any] = {
    **selectors.table_summary(content.TABLES[0], number=1, is_open=True, progress=None),
    "progress": {"played": 3, "won": 1, "best_place": 1, "best_total": 180},
}

MATCH: dict[str, Any] = {
    **games_examples.MATCH,
    "deal_count": 4,
    "version": 3,
    "seats": [
        games_examples.SEATS[0],
        *(
            {"index": seat, "kind": "bot", "display_name": character.name,
             "bot_level": character.level.value, **games_examples.BOT_SEAT}
            for seat, character in enumerate(content.TABLES[0].characters, start=1)
        ),
    ],
}

RESULT: dict[str, Any] = {
    "table": content.TABLES[0].slug,
    "match": {**MATCH, "status": "finished", "deals_played": 4, "version": 214,
              "totals": [180, 30, -40, 110], "ranking": [1, 3, 4, 2],
              "finished_at": "2026-11-29T20:41:02.118204+00:00"},
    "place": 1,
    "won": True,
    "next_table": content.TABLES[1].slug,
}
