"""The service's one error type. Every refusal a client can get is a `ServiceError` with an HTTP
status, a stable ``code`` and a localised sentence; the API turns it into problem+json."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engine import IllegalAction, Reason, RuleError
from games.engine.errors import MESSAGES
from games.engine.notation import NotationError


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    default_detail: Any = _("The request could not be processed.")

    def __init__(
        self, detail: str | None = None, *, retry_after: int | None = None, **extra: Any
    ) -> None:
        self.detail = str(detail if detail is not None else self.default_detail)
        self.retry_after = retry_after  # seconds, sent as the Retry-After header
        self.extra = extra
        super().__init__(self.detail)


class MatchNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such match.")


class DealNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such finished deal in this match.")


class NoAnalysis(ServiceError):
    status = 404
    code = "no_analysis"
    default_detail = _("This deal has no analysis: it was thrown in, or the service did not "
                       "analyse deals when it ended.")


class InvalidCursor(ServiceError):
    status = 400
    code = "invalid_cursor"
    default_detail = _("This cursor is not one this list gave; start again without it.")


class NotYourSeat(ServiceError):
    status = 403
    code = "not_your_seat"
    default_detail = _("You do not have a seat at this match.")


class OtherSeat(ServiceError):
    """A seated player asking for another seat's view: they have a seat, just not that one."""

    status = 403
    code = "other_seat"
    default_detail = _("You can see only your own seat's view.")

    def __init__(self, seat: int) -> None:
        super().__init__(
            gettext("You can see only your own seat's view; you sit at seat %(seat)d.")
            % {"seat": seat}
        )


class HandInPlay(ServiceError):
    status = 403
    code = "hand_in_play"
    default_detail = _(
        "A seat's cards are its own while the deal is in play; staff may read them once the "
        "match is over."
    )


class CardsSealed(ServiceError):
    status = 403
    code = "cards_sealed"
    default_detail = _(
        "This table's cards are a deal set's, sealed until the set closes: nobody reads its "
        "hands laid out, its notation or its analysis before then."
    )


class PersonSeatRequired(ServiceError):
    status = 403
    code = "person_seat_required"
    default_detail = _("A match needs at least one seat for a person (`me` or `open`).")


class TooManyMatches(ServiceError):
    status = 409
    code = "too_many_matches"
    default_detail = _(
        "You have as many unfinished matches as an account may have; finish one first."
    )


class TooManyBotDeals(ServiceError):
    status = 409
    code = "too_many_bot_deals"
    default_detail = _(
        "Your unfinished matches already hold as many computer players' deals as an account "
        "may have; finish one first."
    )


class TooManyStreams(ServiceError):
    status = 429
    code = "too_many_streams"
    default_detail = _(
        "You already have as many live streams open as an account may have; close one first."
    )


class TooManyLongPolls(ServiceError):
    status = 429
    code = "too_many_long_polls"
    default_detail = _(
        "You already have as many waits on the event feed open as an account may have; wait "
        "for one to end."
    )


class ServerBusy(ServiceError):
    """A server process holds as many waiting requests as it may (games/api/slots.py), so that
    its threads stay free for every other request."""

    status = 429
    code = "server_busy"
    default_detail = _("The server holds as many waiting requests as it can; retry shortly.")


class InvalidLastEventId(ServiceError):
    status = 400
    code = "invalid_last_event_id"
    default_detail = _("Last-Event-ID must be the id of an event: a version, 0 or more.")


class InvalidStreamCursor(ServiceError):
    """Of a stream whose cursor runs across matches (games/event_log.py)."""

    status = 400
    code = "invalid_last_event_id"
    default_detail = _(
        "Last-Event-ID (or after) must be the id of an event of this stream: two numbers "
        "joined by a dot."
    )


class CursorAhead(ServiceError):
    status = 400
    code = "cursor_ahead"
    default_detail = _(
        "The match has no version this far: start from 0, or from a page's next_after."
    )


class SeatUnavailable(ServiceError):
    status = 409
    code = "seat_unavailable"
    default_detail = _("That seat is not open.")


class ClosedTable(ServiceError):
    status = 403
    code = "closed_table"
    default_detail = _(
        "This table is not open to you: a partner platform's tables are for its own players, "
        "and its players sit only at its tables."
    )


class AlreadySeated(ServiceError):
    status = 409
    code = "already_seated"
    default_detail = _("You already have a seat at this match.")


class InvitationRequired(ServiceError):
    status = 403
    code = "invitation_required"
    default_detail = _(
        "This match is private: join it with its invitation code (ask its creator for it)."
    )


class InvitationNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("No such invitation: it may have been revoked or the match is full.")


class NotMatchCreator(ServiceError):
    status = 403
    code = "not_match_creator"
    default_detail = _("Only the match's creator may do this.")


class MatchNotPublic(ServiceError):
    status = 403
    code = "match_not_public"
    default_detail = _("Only public matches can be watched.")


class MatchNotPrivate(ServiceError):
    status = 409
    code = "match_not_private"
    default_detail = _("Only private matches have invitations.")


class MatchStarted(ServiceError):
    status = 409
    code = "match_started"
    default_detail = _("The match has already started.")


class NotWaitingForReady(ServiceError):
    status = 409
    code = "not_waiting_for_ready"
    default_detail = _(
        "This match is not waiting for its players to be ready: it has started (without "
        "you, if you were not ready in time: your move or `return` takes your seat back), "
        "ended, or never waited."
    )


class MatchNotActive(ServiceError):
    status = 409
    code = "match_not_active"
    default_detail = _("The match is not in play.")


class RematchNotFinished(ServiceError):
    status = 409
    code = "rematch_not_finished"
    default_detail = _("A rematch can only be offered once the match has finished.")


class RematchNotFound(ServiceError):
    status = 404
    code = "not_found"
    default_detail = _("Nobody has offered a rematch of this match.")


class RematchAlreadyOffered(ServiceError):
    status = 409
    code = "rematch_already_offered"
    default_detail = _("A rematch of this match is already offered: accept or decline it.")


class RematchDeclined(ServiceError):
    status = 409
    code = "rematch_declined"
    default_detail = _("The rematch of this match was declined.")


class RematchStarted(ServiceError):
    status = 409
    code = "rematch_started"
    default_detail = _("The rematch of this match has already started.")


class RematchExpired(ServiceError):
    status = 409
    code = "rematch_expired"
    default_detail = _("The rematch offer has expired: offer a new one.")


class RematchAlreadyAnswered(ServiceError):
    status = 409
    code = "rematch_already_answered"
    default_detail = _("You have already answered this rematch offer.")


class StaleVersion(ServiceError):
    status = 409
    code = "stale_version"
    default_detail = _("The match has changed since the version you sent; reload and retry.")


class TurnTimedOut(ServiceError):
    status = 409
    code = "turn_timed_out"
    default_detail = _(
        "Your time for this turn ran out before your move arrived: a computer player moved for "
        "you. Reload and play on."
    )


class InvalidRules(ServiceError):
    status = 400
    code = "invalid_rules"
    default_detail = _("The table rules are not valid.")

    @classmethod
    def from_rule_error(cls, error: RuleError) -> InvalidRules:
        """The engine's refusal of a rule, its sentence in the request's language."""
        sentence = gettext(error.template) % error.params
        return cls(f"{error.field}: {sentence}", field=error.field, allowed=error.allowed)


class InvalidDealNotation(ServiceError):
    status = 400
    code = "invalid_deal"
    default_detail = _("The deal is not valid Batak Deal Notation.")

    @classmethod
    def from_notation_error(cls, error: NotationError) -> InvalidDealNotation:
        """The notation's refusal, naming its line, in the request's language (with the
        engine's reason for a refused move, the rule's for a refused rule)."""
        params = dict(error.params)
        if error.refusal is not None:
            params["reason"] = reason_message(error.refusal.reason)
        if error.rule_error is not None:
            params["problem"] = gettext(error.rule_error.template) % error.rule_error.params
        return cls(gettext(error.template) % params, field="deal", line=error.line)


class DealRulesDiffer(ServiceError):
    status = 400
    code = "deal_rules_differ"
    default_detail = _(
        "The deal's game and rules differ from the match's: leave out `game` and `rules`, or "
        "give the deal's."
    )


class ImportedDealNotRated(ServiceError):
    status = 400
    code = "imported_deal_not_rated"
    default_detail = _("A match dealt from chosen cards is never rated.")


class HintsOff(ServiceError):
    status = 403
    code = "hints_off"
    default_detail = _("This table does not offer hints (its `hints` rule is off).")


class HintInProgress(ServiceError):
    """One hint at a time per account: each is a search of the seat's possible layouts."""

    status = 429
    code = "hint_in_progress"
    default_detail = _("Your previous hint is still being worked out; wait for it.")


class TooManyHints(ServiceError):
    status = 429
    code = "too_many_hints"
    default_detail = _(
        "You have asked for as many hints as an account may in a while; wait a moment."
    )


class ServerTimeExhausted(ServiceError):
    """The account (or its platform) used more server time than its budget allows for now
    (games/server_time.py)."""

    status = 429
    code = "server_time_exhausted"
    default_detail = _(
        "Your account has used more of the server's time than it may in a minute; wait the "
        "Retry-After seconds."
    )


class InvalidMatch(ServiceError):
    status = 400
    code = "invalid_input"
    default_detail = _("The match settings are not valid.")


class IdempotencyKeyReused(ServiceError):
    status = 422
    code = "idempotency_key_reused"
    default_detail = _("This Idempotency-Key was already used for a different request.")


class IdempotencyKeyInUse(ServiceError):
    status = 409
    code = "idempotency_key_in_use"
    default_detail = _(
        "Another request with this Idempotency-Key is being processed; retry it in a moment."
    )


class InvalidIdempotencyKey(ServiceError):
    status = 400
    code = "invalid_idempotency_key"
    default_detail = _(
        "An Idempotency-Key is 1 to 255 printable ASCII characters (a UUID, for instance)."
    )


# Timing conflicts (the same request may be right at another moment) are 409; a move the rules
# forbid in this position is 422.
_CONFLICT_REASONS = {Reason.NOT_YOUR_TURN, Reason.WRONG_PHASE}


class ActionRefused(ServiceError):
    """The engine refused the action; ``code`` is the engine's reason code."""

    def __init__(self, error: IllegalAction) -> None:
        self.reason = error.reason
        self.status = 409 if error.reason in _CONFLICT_REASONS else 422
        self.code = error.reason.value
        super().__init__(
            reason_message(error.reason),
            reason=error.reason.value,
            legal_actions=[action.to_dict() for action in error.legal],
            legal_cards=[str(card) for card in error.legal_cards],
        )


def reason_message(reason: Reason) -> str:
    """The engine's sentence for ``reason`` in the active language."""
    return gettext(MESSAGES[reason])

class ClosingNotConfirmed(ServiceError):
    status = 400
    code = "closing_not_confirmed"
    default_detail = _(
        "Closing an account cannot be undone: send your password, or, for an account without "
        "one, \"confirm\": true."
    )


class PlatformAccount(ServiceError):
    status = 409
    code = "platform_account"
    default_detail = _(
        "This is a partner platform's own account: its matches and keys depend on it, so it "
        "is never erased."
    )


class WrongPassword(ServiceError):
    status = 403
    code = "wrong_password"
    default_detail = _("That is not your account's password.")
