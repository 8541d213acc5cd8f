"""Who may do what with a match: the one policy every entry point asks.

The API's views, the move path under the match lock, the live stream, the admin's pages and
the platforms' API all decide access here, from the caller's role at the match:

- `Role.PLAYER`: a person seated at it;
- `Role.LEAVER`: a person who left a private match (their seat is a computer player's now);
- `Role.CREATOR`: the account that made it (a platform's account for a platform's match);
- `Role.STAFF`: staff;
- `Role.SPECTATOR`: anyone signed in, when the match is public (a person who left it too);
- `Role.STRANGER`: anyone else signed in.

A person's seat decides before anything else: a seated creator or staff member is a player
and reads their own seat only, and once they leave they read what an outsider reads (a
leaver is no creator nor staff of that match any more): nothing but the public facts of a
private match, what any spectator sees of a public one, never the seat's hand they handed on.
Hidden cards are a separate rule (`cards_visible`, `may_view_seat`): while a deal is in play
nobody, staff included, sees a hand but their own. A deal set's table is sealed until the set
closes (`cards_sealed`): its deals keep that rule once they end.
"""

from __future__ import annotations

import dataclasses
import enum

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.utils import timezone

from games import selectors
from games.errors import CardsSealed, NotYourSeat
from games.models import Deal, DealStatus, Match, MatchStatus, Seat, Visibility


class Role(enum.StrEnum):
    PLAYER = "player"
    LEAVER = "leaver"
    CREATOR = "creator"
    STAFF = "staff"
    SPECTATOR = "spectator"
    STRANGER = "stranger"


class Permission(enum.StrEnum):
    # What anyone may ask of any match: joining an open seat, the creator's invitation and
    # cancelling (the service's own checks answer: 403 `invitation_required`,
    # `not_match_creator`).
    FACTS = "facts"
    # The match's summary (seats, names, presence, totals): the table's own and, of a public
    # match, anyone's.
    SUMMARY = "summary"
    # What only the table sees: the ended deals' records; a seat's view (staff read any seat
    # once the match is over: `may_view_seat`).
    READ = "read"
    # Every hand of the ended deals, or what is worked out from them: a deal's and the match's
    # notation, a deal's analysis. Refused to everyone while the match's cards are sealed.
    HANDS = "hands"
    # A seat's own reads: the bid estimate of its hand.
    SEAT = "seat"
    # The history as it happens: the event feed and the live stream.
    WATCH = "watch"
    # Moves, leaving and coming back.
    ACT = "act"
    # The platform's own reads of its matches.
    MANAGE = "manage"


POLICY: dict[Permission, frozenset[Role]] = {
    Permission.FACTS: frozenset(Role),
    Permission.SUMMARY: frozenset({Role.PLAYER, Role.CREATOR, Role.STAFF, Role.SPECTATOR}),
    Permission.READ: frozenset({Role.PLAYER, Role.CREATOR, Role.STAFF}),
    Permission.HANDS: frozenset({Role.PLAYER, Role.CREATOR, Role.STAFF}),
    Permission.SEAT: frozenset({Role.PLAYER}),
    Permission.WATCH: frozenset({Role.PLAYER, Role.CREATOR, Role.STAFF, Role.SPECTATOR}),
    Permission.ACT: frozenset({Role.PLAYER}),
    Permission.MANAGE: frozenset({Role.CREATOR}),
}


@dataclasses.dataclass(frozen=True)
class Access:
    """The caller's standing at a match: their role and, if they sit at it, their seat (none
    once they left: nothing of it is theirs to read)."""

    role: Role
    seat: Seat | None

    def allows(self, permission: Permission) -> bool:
        return self.role in POLICY[permission]


def access(match: Match, user: User | AnonymousUser) -> Access:
    """The role of ``user`` at ``match`` (its seats loaded or not)."""
    seat = selectors.seat_of(match, user) if user.is_authenticated else None
    if seat is not None and seat.left_at is None:
        return Access(Role.PLAYER, seat)
    public = match.visibility == Visibility.PUBLIC
    if seat is not None:
        return Access(Role.SPECTATOR if public else Role.LEAVER, None)
    # A platform's account has a creator's say over every match of its circle: those it made,
    # and those its players opened (quick match, open seats, a rematch).
    if match.created_by_id == user.pk or (match.circle_id is not None
                                          and match.circle_id == user.pk):
        return Access(Role.CREATOR, None)
    if user.is_staff:
        return Access(Role.STAFF, None)
    if public:
        return Access(Role.SPECTATOR, None)
    return Access(Role.STRANGER, None)


def require(
    match: Match, user: User | AnonymousUser, permission: Permission
) -> Access:
    """`access`, refused with 403 `not_your_seat` unless it allows ``permission`` (and
    `Permission.HANDS` with 403 `cards_sealed` while the match's cards are sealed)."""
    found = access(match, user)
    if not found.allows(permission):
        raise NotYourSeat()
    if permission == Permission.HANDS and cards_sealed(match):
        raise CardsSealed()
    return found


def summaries_for(matches: QuerySet[Match], user: User) -> QuerySet[Match]:
    """``matches`` less those whose summary ``user`` may not read (`Permission.SUMMARY`):
    of the matches one sits at or created, the private ones they left."""
    left = Seat.objects.filter(user=user, left_at__isnull=False,
                               match__visibility=Visibility.PRIVATE)
    return matches.exclude(pk__in=left.values("match_id"))


def acting_seat(match: Match, user: User) -> Seat:
    """The seat ``user`` acts at (under the match lock): their own, still taken."""
    found = require(match, user, Permission.ACT)
    assert found.seat is not None
    return found.seat


def cards_sealed(match: Match) -> bool:
    """Whether ``match``'s cards are sealed: a deal set's table until the set closes (its
    cards are the set's, which others have still to play). Until then its deals keep their
    hidden cards once they end, from everyone, staff included: a reader sees the hand of their
    own seat and the cards played, as at the table, never the hands laid out, the deck, the
    notation nor the analysis (worked out from every hand)."""
    return match.cards_sealed_until is not None and timezone.now() < match.cards_sealed_until


def cards_visible(match: Match, deal: Deal) -> bool:
    """A deal's hidden cards are shown once nobody can still play it: it ended, or its match
    did, and its cards are not sealed. Until then even staff must not see them, or they could
    tell a player."""
    return ((deal.status != DealStatus.IN_PROGRESS or match.status != MatchStatus.ACTIVE)
            and not cards_sealed(match))


def hands_shown(match: Match, hands: list[list[str]], seat: int | None) -> list[list[str] | None]:
    """An ended deal's ``hands`` as a reader at ``seat`` (None: no seat) may read them laid
    out: every one, but while the match's cards are sealed only their own (None for the
    others)."""
    sealed = cards_sealed(match)
    return [hand if not sealed or index == seat else None for index, hand in enumerate(hands)]


def may_view_seat(match: Match, found: Access, seat: int, *, is_staff: bool) -> bool:
    """Whether a caller of standing ``found`` may read ``seat``'s view: their own seat; staff
    any seat once the match is over and its cards are not sealed."""
    if found.seat is not None and found.seat.index == seat:
        return True
    return is_staff and match.status != MatchStatus.ACTIVE and not cards_sealed(match)
