"""What ratings tell the apps that follow them (the partner platforms' webhooks)."""

from __future__ import annotations

from django.dispatch import Signal

# A finished rated match was rated: sent at the end of `services.rate_match`, in the
# transaction that finished the match (under its lock), so a receiver's writes commit or roll
# back with it. Arguments:
#   match    the match row (seats prefetched);
#   changes  its `RatingChange` rows, one per rated person.
ratings_changed = Signal()
