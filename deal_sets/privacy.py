"""What deal sets keep of a person, for their export (games/privacy.py): the sets they played
and their results, and the sets they made."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from deal_sets.models import DealSet, DealSetEntry


def personal_data(sender: Any, *, user: User, **kwargs: Any) -> dict[str, Any]:
    return {
        "deal_set_entries": list(DealSetEntry.objects.filter(user=user).order_by(
            "created_at").values("deal_set_id", "deal_set__kind", "deal_set__game",
                                 "deal_set__day", "match_id", "points", "tricks",
                                 "finished_at")),
        "deal_sets_made": list(DealSet.objects.filter(created_by=user).order_by(
            "created_at").values("id", "kind", "game", "created_at", "closes_at")),
    }
