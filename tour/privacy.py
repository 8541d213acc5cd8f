"""What the Tour of Tables keeps of a person, for their export (games/privacy.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from tour.models import TableProgress, TourMatch


def personal_data(sender: Any, *, user: User, **kwargs: Any) -> dict[str, Any]:
    return {
        "tour_tables": list(TableProgress.objects.filter(user=user).order_by("table").values(
            "table", "played", "won", "best_place", "best_total", "updated_at")),
        "tour_matches": list(TourMatch.objects.filter(user=user).order_by("created_at").values(
            "table", "match_id", "created_at")),
    }
