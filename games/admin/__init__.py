"""Match review for staff: a read-only admin where a referee looks at whole matches and deals.

Every deal shown is rebuilt by the rules engine from its action log (`selectors.replay_deal`), so
each card on the page is one the engine accepted again just now. A log that no longer replays,
or a stored result that differs from the replay, is flagged on the page instead of breaking it.
Nothing here writes to a match except the "abandon" action, which goes through the services;
the action log (`Action`) is not registered at all, so no admin page can add, change or delete a
move: the deal pages show it, replayed.
"""

from games.admin.accounts import AccountAdmin
from games.admin.match import MatchAdmin
from games.admin.tokens import TokenAdmin

__all__ = ["AccountAdmin", "MatchAdmin", "TokenAdmin"]
