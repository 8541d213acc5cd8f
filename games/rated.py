"""Rated tables: which tables may be rated, and whether one still is as it starts.

A table is rated only when its creator asks for it, with the game's default rules (the rules
people's ratings compare) and seats for at least two people. It starts rated only with at least
two people with named accounts (a guest is created in one call, so a guest's result is never
rated) who have not already started `RATED_MATCHES_PER_PAIR_PER_DAY` rated matches together
in the last 24 hours, however those ended (nobody farms a rating off a friend's losses, nor
gets another try by having one abandoned); otherwise it is played as a casual match and says
so. A rated match that started ends rated (games/seating.py: its people leaving finishes it);
the ratings themselves are written by `ratings/` as it finishes."""

from __future__ import annotations

import itertools
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine
from games.accounts import GUEST_PREFIX
from games.errors import ServiceError
from games.models import Match, MatchStatus

# A match that started, however it ended: a rated table still waiting, or cancelled before its
# start, is not yet (never) one of the pair's.
STARTED = (MatchStatus.ACTIVE, MatchStatus.FINISHED, MatchStatus.ABANDONED)


class RatedTableRefused(ServiceError):
    status = 400
    code = "rated_table_refused"
    default_detail = _(
        "A rated table needs the game's default rules and seats for at least two people."
    )


class HintsNotRated(ServiceError):
    status = 400
    code = "hints_not_rated"
    default_detail = _("A rated table never offers hints: ask for one or the other.")


def check_rated_table(table: engine.TableRules, people: int, *, hints: bool = False) -> None:
    """RatedTableRefused unless a table of these rules, with seats for ``people``, may be
    rated; HintsNotRated if it would offer ``hints`` (games/hints.py)."""
    if hints:
        raise HintsNotRated(field="hints")
    if table.to_dict() != engine.PRESETS[table.game].to_dict() or people < 2:
        raise RatedTableRefused(field="rated")


def still_rated(match: Match) -> bool:
    """Whether a rated table starts rated, its seats as they are now."""
    user_ids = [seat.user_id for seat in match.seats.all() if seat.user_id is not None]
    named = list(
        get_user_model().objects.filter(pk__in=user_ids)
        .exclude(username__startswith=GUEST_PREFIX).values_list("pk", flat=True)
    )
    if len(named) < 2:
        return False
    since = timezone.now() - timedelta(days=1)
    bound = settings.RATED_MATCHES_PER_PAIR_PER_DAY
    for first, second in itertools.combinations(sorted(named), 2):
        together = (
            Match.objects.filter(
                rated=True, created_at__gte=since, status__in=STARTED, seats__user_id=first,
            )
            .filter(seats__user_id=second).exclude(pk=match.pk)
        )
        if together.count() >= bound:
            return False
    return True
