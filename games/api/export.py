"""A match in the API's documented formats, for staff to review elsewhere (the admin's export)."""

from __future__ import annotations

from typing import Any

from games import presenters, selectors
from games.api.serializers.feed import DealRecordSerializer
from games.api.serializers.matches import MatchSerializer
from games.models import Match


def match_export(match: Match) -> dict[str, Any]:
    """A match in the API's documented formats: its summary (`Match`) plus ``deals``, the record
    (`DealRecord`) of every ended deal, as a reader with no seat reads it. Staff export it from
    the admin for review elsewhere."""
    return {
        **MatchSerializer(presenters.match_summary(match)).data,
        "deals": [
            DealRecordSerializer(presenters.deal_record(match, deal, None)).data
            for deal in selectors.ended_deals(match)
        ],
    }
