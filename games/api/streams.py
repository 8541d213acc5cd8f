"""The live stream of a match (Server-Sent Events): its event feed, pushed as it is committed.

A stream is the feed's cursor kept by the server: it sends every action after the caller's
cursor (`after`, or the `Last-Event-ID` a reconnecting client sends), each as an SSE event with
the version as its id (an action that ended a deal is followed by the deal's result, and the
id goes with the last event of the version, so a client that resumes never misses the result),
then waits for the next announcement (games/notify.py). Besides, events without an id tell the
state: the turn clock when it changes, and the seats (who left, who is on autopilot) when they
change; each stream sends them as it finds them changed since what it last sent, so a client
that resumes gets the current state, never a stale one. An announcement
carries the committed action, so a listener that has heard every version up to it sends it
without a look at the database; one that missed a version reads the feed instead. Announcements
are only hints, as for the long poll: after STREAM_HEARTBEAT_SECONDS with nothing heard a
listener looks at the database anyway, so a lost one delays an event, never loses it. When the
match has ended and everything is sent, an `end` event tells it. The stream of a match that
ended unfinished then closes; that of a finished match stays open STREAM_AFTER_END_SECONDS more
(and while a rematch offer of it is open), for what comes after the finish: its people's
`rating_changed` (heard from its announcement only: games never reads the ratings), and its
rematch, read like the seats (`rematch_offered` as the offer changes, `rematch_started`, then
it closes; a declined or expired offer closes it too). A stream outlives its
request, so it checks again every heartbeat interval that its caller may still read the match,
and at once when a person leaves the match (their stream then ends: games/notify.py).

The stream's logic is one reader for both servers (`_reader`), which asks its server to look,
wait and check; its pages are games/api/stream_pages.py's. On an ASGI server
(batak_api/asgi.py) the stream waits on the event loop, no thread held; its reads of the
database go to a small pool of threads shared by all streams. On a WSGI server it holds its
thread like a long poll, so it ends after MAX_WSGI_SECONDS and the client resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Q
from django.http import StreamingHttpResponse
from django.utils import timezone, translation
from knox.models import AuthToken

from games import access, notify, seating, selectors
from games.api import slots, stream_pages
from games.engine import Reason
from games.errors import reason_message
from games.models import Match, MatchStatus, RematchStatus, Seat, Visibility

T = TypeVar("T")

logger = logging.getLogger(__name__)

CONTENT_TYPE = "text/event-stream"
# How long a client waits before it reconnects after the stream ends (the SSE `retry` field).
RETRY_MILLISECONDS = 1000

@runtime_checkable
class Revocable(Protocol):
    """A credential of another app's that can be revoked while a stream it opened is live (a
    partner platform's key: platforms/models.py)."""

    pk: Any

    def still_usable(self) -> bool: ...


@dataclass(frozen=True)
class Credential:
    """What a stream's request was let in with, looked up again while the stream is open:
    ``identity`` names it among the checks kept, ``still_valid`` reads it afresh."""

    identity: str
    still_valid: Callable[[], bool]


def credential_of(auth: object) -> Credential | None:
    """The credential to look up again of a request's ``auth``: a person's token or a
    platform's key (None for a browser's session: the account's own check covers it)."""
    if isinstance(auth, AuthToken):
        digest = auth.digest
        return Credential(f"token:{digest}", lambda: _token_valid(digest))
    if isinstance(auth, Revocable):
        return Credential(f"key:{auth.pk}", auth.still_usable)
    return None


def _token_valid(digest: str) -> bool:
    valid = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return AuthToken.objects.filter(valid, digest=digest).exists()


class Follower:
    """One listener's place in a match's feed, and who it is: a stream outlives its request, so
    it looks again now and then whether its listener may still follow it (see ``check``)."""

    def __init__(
        self, match: Match, after: int, user: User, credential: Credential | None
    ) -> None:
        self.match_id = match.pk
        self.after = after
        self.user_id = user.pk
        self.credential = credential
        found = access.access(match, user)
        # Whether the listener may read the deals' records, and so their analyses (a
        # spectator may not: an analysis is judged from every hand).
        self.reads_records = found.allows(access.Permission.READ)
        # The listener's own seat, whose own news (its hand, its turns) the stream tells it.
        self.seat: int | None = None if found.seat is None else found.seat.index
        # The version up to which the seat's own news was sent (None: none yet).
        self.own_at: int | None = None
        # The language of the request, for the sentences of the seat's own news.
        self.language = translation.get_language()
        self.ended = False
        # The state last sent (`clock`, `seats`): sent again only when it changed.
        self.deadline: str | None = None
        self.seats: list[dict[str, Any]] | None = None
        self.rematch: dict[str, Any] | None = None
        # Once a finished match's end is sent: until when (monotonic) the stream stays open.
        self.open_until: float | None = None

    @property
    def done(self) -> bool:
        """Whether the stream has sent all it will."""
        return self.ended and (self.open_until is None or time.monotonic() >= self.open_until)

    def take(self, page: stream_pages.Page) -> bytes:
        """The page's frames, the seat's own news at each version among them, and the state
        events that changed since the last sent."""
        self.after = page.next_after
        if page.ended and self.ended:  # after the end: only the rematch may still change
            return self._after_end(page)
        self.ended = page.ended
        frames = [self._version_frames(version) for version in page.versions]
        if self.own_at is not None and not page.read:
            self.own_at = page.next_after  # the announcements carry the seat's own news
        if page.ended:  # the state of a match that ended tells nothing more
            if page.status == MatchStatus.FINISHED:
                # Open for what follows the finish, counted from the finish: a stream that
                # replays a match finished long ago has nothing to wait for.
                since = (0.0 if page.finished_at is None
                         else (timezone.now() - page.finished_at).total_seconds())
                self.open_until = time.monotonic() + max(
                    0.0, settings.STREAM_AFTER_END_SECONDS - since)
            return b"".join((*frames, page.end, self._after_end(page)))
        if page.knows_deadline and page.deadline != self.deadline:
            self.deadline = page.deadline
            frames.append(stream_pages.frame(None, "clock", {"version": page.next_after,
                                                 "deadline": page.deadline}))
        if page.seats is not None and page.seats != self.seats:
            self.seats = page.seats
            frames.append(stream_pages.frame(None, "seats", {"seats": page.seats}))
        return b"".join(frames)

    def _version_frames(self, version: stream_pages.Version) -> bytes:
        """A version's frames, followed by the seat's own news at it (announced with it),
        the version the id of the last frame."""
        own: list[tuple[str, dict[str, Any]]] = []
        if self.seat is not None and self.own_at is not None:
            dealt = version.dealt
            if dealt is not None:
                own.append(self._hand(version.version, dealt["number"], dealt["sequence"],
                                      dealt["hands"][self.seat],
                                      dealt["legal_actions"][self.seat]))
            if version.turn is not None and version.turn["seat"] == self.seat:
                own.append(self._turn(version.version, version.turn))
        if not own:
            return version.closed
        return version.open + stream_pages.frames(version.version, own)

    def wants_own(self, page: stream_pages.Page, seats_changed: bool) -> bool:
        """Whether the seat's own news is to be read after ``page``: first, after a change
        at the seats (a person back from autopilot is to act at once), and after a page
        read from the database (its versions carry none)."""
        return (
            self.seat is not None and not self.ended and not page.more
            and (self.own_at is None or seats_changed
                 or (page.read and self.own_at != page.next_after))
        )

    def take_own(self, news: dict[str, Any] | None) -> bytes:
        """The seat's own news as read (`stream_pages.read_own`): its hand and, on its
        person's move, its turn; nothing when the match has moved on since the page (the
        versions in between bring it)."""
        if news is None or news["version"] != self.after:
            return b""
        self.own_at = news["version"]
        deal = news["deal"]
        if deal is None:
            return b""
        own = [self._hand(news["version"], deal["number"], deal["sequence"], deal["hand"],
                          deal["legal_actions"])]
        if news["turn"] is not None:
            own.append(self._turn(news["version"], news["turn"]))
        return stream_pages.frames(news["version"], own)

    @staticmethod
    def _hand(version: int, number: int, sequence: int, hand: list[str],
              legal_actions: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        return ("hand", {
            "version": version, "deal_number": number, "deal_sequence": sequence,
            "hand": hand, "legal_actions": legal_actions,
        })

    def _turn(self, version: int, turn: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        legal = turn["legal_actions"]
        with translation.override(self.language):
            refusals = [
                {"card": card, "reason": reason, "message": reason_message(Reason(reason))}
                for card, reason in turn["refusals"]
            ]
        return ("turn", {
            "version": version, "legal_actions": legal,
            "legal_cards": [action["card"] for action in legal if action["kind"] == "play"],
            "refusals": refusals,
        })

    def _after_end(self, page: stream_pages.Page) -> bytes:
        """The rematch's events, if its offer changed since last sent; the stream stays open
        while the offer is, and closes once it is answered or expired."""
        offer = page.rematch
        if offer is None or offer == self.rematch or self.open_until is None:
            return b""
        self.rematch = offer
        if offer["status"] == RematchStatus.OPEN:
            left = (
                datetime.fromisoformat(offer["expires_at"]) - timezone.now()
            ).total_seconds()
            self.open_until = max(self.open_until, time.monotonic() + left)
            return stream_pages.frame(None, "rematch_offered", offer)
        self.open_until = time.monotonic()  # answered or expired: nothing more will come
        if offer["status"] == RematchStatus.ACCEPTED:
            return stream_pages.frame(None, "rematch_offered", offer) + stream_pages.frame(
                None, "rematch_started",
                {"match_id": offer["match_id"], "new_match_id": offer["new_match_id"]},
            )
        return stream_pages.frame(None, "rematch_offered", offer)

    def check(self, fresh: bool = False) -> bool:
        """Whether the listener would still be let in (its account active, its token or key valid,
        the match still its to read, as on every request to the feed), noting its presence as
        such a request would. Looked up once per STREAM_HEARTBEAT_SECONDS for all the streams
        of one token and match in this process, unless ``fresh`` (someone left the match); a
        failure to look keeps the stream."""
        key = (self.user_id, self.credential and self.credential.identity, self.match_id)
        now = time.monotonic()
        with _checks_lock:
            recent = _checks.get(key)
        if (
            not fresh and recent is not None
            and now - recent[0] < settings.STREAM_HEARTBEAT_SECONDS
        ):
            return recent[1]
        try:
            allowed = stream_pages.on_a_live_connection(self._allowed)
        except Exception:
            logger.exception("stream check failed", extra={"match_id": str(self.match_id)})
            return True
        with _checks_lock:
            _checks[key] = (now, allowed)
            if len(_checks) > CHECKS_KEPT:
                for stale in [k for k, (at, _) in _checks.items()
                              if now - at > settings.STREAM_HEARTBEAT_SECONDS]:
                    del _checks[stale]
        return allowed

    def _allowed(self) -> bool:
        with selectors.reading_together():
            allowed, looking = self._allowed_now()
        if looking is not None:
            # After the reads' transaction: a first look may start the match (its locks).
            seating.present(*looking)
        return allowed

    def _allowed_now(self) -> tuple[bool, tuple[Match, Seat, User] | None]:
        """Whether the stream may go on, and the seat whose person it shows at the table."""
        user = get_user_model().objects.filter(pk=self.user_id, is_active=True).first()
        if user is None:
            return False, None
        if self.credential is not None and not self.credential.still_valid():
            return False, None
        match = Match.objects.prefetch_related("seats").filter(pk=self.match_id).first()
        if match is None:
            return False, None
        found = access.access(match, user)
        if found.seat is None and match.visibility == Visibility.PUBLIC:
            seating.watching(match, user)
        looking = None if found.seat is None else (match, found.seat, user)
        return found.allows(access.Permission.WATCH), looking


# The latest check of each token's streams of a match in this process: when, and its verdict.
CHECKS_KEPT = 10_000
_checks: dict[tuple[Any, ...], tuple[float, bool]] = {}
_checks_lock = threading.Lock()


HEARTBEAT = b": heartbeat\n\n"


def _retry() -> bytes:
    return f"retry: {RETRY_MILLISECONDS}\n\n".encode()


# What the stream's reader asks of its server (`_reader`): whether the seats changed (True or
# False), a look at the actions after the cursor (a `Page`), what was told besides the actions
# (bytes), whether the listener may still follow (True or False), a wait until a moment for
# news (whether to look then).
_SEATS_CHANGED = "seats changed"
_TOLD = "told"
_OWN = "own"  # the seat's own news, read (`stream_pages.read_own`)


@dataclass(frozen=True)
class _Look:
    seats_changed: bool


@dataclass(frozen=True)
class _Check:
    fresh: bool


@dataclass(frozen=True)
class _Wait:
    until: float  # monotonic


_Step = bytes | str | _Look | _Check | _Wait


def _reader(follower: Follower, seconds: float) -> Generator[_Step, Any, None]:
    """The stream, for ``seconds`` at most, for either server: what it sends (bytes) and what
    it asks of its server, which answers each question (`sync_events`, `async_events`)."""
    every = settings.STREAM_HEARTBEAT_SECONDS
    yield _retry()
    deadline = time.monotonic() + seconds
    next_check = sent_at = time.monotonic()
    next_check += every
    look = True  # whether to look for actions
    while True:
        more = False
        seats_changed: bool = yield _SEATS_CHANGED
        if look or seats_changed:
            frames, more = yield from _looked(follower, seats_changed)
            if frames:
                yield frames
                sent_at = time.monotonic()
        told: bytes = yield _TOLD
        if told:
            yield told
            sent_at = time.monotonic()
        now = time.monotonic()
        if follower.done or now >= deadline:
            return
        # A person who left may no longer follow the match: looked at at once.
        if seats_changed or now >= next_check:
            if not (yield _Check(seats_changed)):
                return
            next_check = now + every
        if more:
            continue
        look = yield _Wait(min(deadline, next_check, sent_at + every,
                               follower.open_until or deadline))
        if time.monotonic() - sent_at >= every:
            yield HEARTBEAT
            sent_at = time.monotonic()


def _looked(follower: Follower, seats_changed: bool) -> Generator[_Step, Any, tuple[bytes, bool]]:
    """A look at the actions after the follower's cursor, and the seat's own news when it
    wants it: the frames to send, and whether more actions already wait."""
    page: stream_pages.Page = yield _Look(seats_changed)
    frames = follower.take(page)
    if follower.wants_own(page, seats_changed):
        frames += follower.take_own((yield _OWN))
    return frames, page.more


def sync_events(follower: Follower, seconds: float) -> Generator[bytes, None, None]:
    """The stream for a WSGI server, in the request's thread: it reads the database at every
    wake (its thread's waiters hear that a version was announced, not what it holds), and
    tells nothing besides the actions."""
    reader = _reader(follower, seconds)
    answer: Any = None
    while True:
        try:
            step = reader.send(answer)
        except StopIteration:
            return
        answer = None
        if isinstance(step, bytes):
            yield step
        elif step == _SEATS_CHANGED:
            answer = False
        elif isinstance(step, _Look):
            answer = stream_pages.read_page(follower.match_id, follower.after)
        elif step == _OWN:
            assert follower.seat is not None
            answer = stream_pages.read_own(follower.match_id, follower.seat)
        elif step == _TOLD:
            answer = b""
        elif isinstance(step, _Check):
            answer = follower.check(step.fresh)
        elif isinstance(step, _Wait):
            selectors.wait_for_move(Match(pk=follower.match_id), follower.after,
                                    max(0.0, step.until - time.monotonic()))
            answer = True


async def _look(
    follower: Follower, moves: Any, shared: stream_pages.SharedReads, quiet_since: float | None,
    *, seats_changed: bool,
) -> stream_pages.Page:
    """The actions after the follower's cursor: from the announcements heard, or read (always
    when the seats changed, and at a stream's first look: only a read tells them)."""
    since = moves.clear()  # before the look: an announcement after it sets it again
    heard, gap = moves.news_after(follower.after)
    if heard and not gap and not seats_changed and follower.seats is not None:
        # Every version up to the latest announced was announced with its action (the
        # process's hub may have heard them for another listener before this one's first
        # look, which still owes the seats' state).
        return stream_pages.page_heard(follower.match_id, heard)
    # A version missed, or nothing heard for a while (one may have been lost): read, sharing
    # a read begun since with the match's other listeners.
    return await shared.read(follower.match_id, follower.after, quiet_since or since)


async def _wait_for_news(
    moves: Any, until: float, heard_at: float, quiet_since: float | None
) -> tuple[bool, float | None, float]:
    """Wait for an announcement until ``until`` (monotonic). Returns whether to look for
    actions, since when it has been quiet (None: news came), and when news was last heard or
    a look was made for want of it (every STREAM_HEARTBEAT_SECONDS, in case one was lost)."""
    waited_from = time.monotonic()
    if await moves.wait(max(0.0, until - waited_from)):
        return True, None, time.monotonic()
    if time.monotonic() - heard_at >= settings.STREAM_HEARTBEAT_SECONDS:
        return True, waited_from, time.monotonic()
    return False, quiet_since, heard_at


def _told(follower: Follower, moves: notify.Moves) -> bytes:
    """What was announced outside the actions since last asked: deals' analyses ready (to those
    who may read them), and after the match's end its ratings' changes."""
    analyses = moves.analyses()  # taken either way: what is not sent is not kept
    frames = ([stream_pages.frame(None, "analysis_ready", ready) for ready in analyses]
              if follower.reads_records else [])
    if follower.ended:
        frames += [stream_pages.frame(None, "rating_changed", {"changes": changes})
                   for changes in moves.ratings()]
    return b"".join(frames)


async def async_events(follower: Follower, seconds: float) -> AsyncGenerator[bytes, None]:
    """The stream for an ASGI server, on its event loop: it sends what the announcements it
    hears hold (reading the database, a read shared with the match's other listeners, when it
    missed one or heard nothing for a while), and what was told besides the actions."""
    loop = asyncio.get_running_loop()
    shared = stream_pages.shared_reads.setdefault(loop, stream_pages.SharedReads())
    every = settings.STREAM_HEARTBEAT_SECONDS
    heard_at = time.monotonic()
    quiet_since: float | None = None  # since when nothing was heard (None: news came)
    reader = _reader(follower, seconds)
    answer: Any = None
    async with notify.listen(follower.match_id) as moves:
        while True:
            try:
                step = reader.send(answer)
            except StopIteration:
                return
            answer = None
            if isinstance(step, bytes):
                yield step
            elif step == _SEATS_CHANGED:
                answer = moves.seats_changed()
            elif isinstance(step, _Look):
                answer = await _look(follower, moves, shared, quiet_since,
                                     seats_changed=step.seats_changed)
            elif step == _OWN:
                assert follower.seat is not None
                answer = await loop.run_in_executor(stream_pages.readers,
                                                    stream_pages.read_own, follower.match_id,
                                                    follower.seat)
            elif step == _TOLD:
                answer = _told(follower, moves)
            elif isinstance(step, _Check):
                answer = await loop.run_in_executor(stream_pages.readers, follower.check,
                                                    step.fresh)
            elif isinstance(step, _Wait):
                answer, quiet_since, heard_at = await _wait_for_news(
                    moves, min(step.until, heard_at + every), heard_at, quiet_since)


def open_streams(user_id: int) -> int:
    """The account's streams open in this process."""
    return slots.held(slots.STREAMS, user_id)


class EventStreamResponse(StreamingHttpResponse):
    """An open stream of ``events`` (an async generator on a server that holds no thread per
    stream, else a generator), holding its account's slot (games/api/slots.py) until it ends:
    given back when its content is closed (its end, or the server cancelling it when the
    client left), when the server closes the response, or when the response is dropped,
    whichever comes first. A match's stream (`match_stream`) and a platform's
    (platforms/stream.py) are both one."""

    def __init__(
        self, user_id: int,
        events: AsyncGenerator[bytes, None] | Generator[bytes, None, None], *, per_account: int,
    ) -> None:
        asynchronous = isinstance(events, AsyncGenerator)
        # A WSGI server gives each stream one of its few threads: there, an account may hold
        # only MAX_WSGI_PER_ACCOUNT of them, so that no account can take the threads others need.
        slot = slots.stream(
            user_id, per_account=per_account,
            thread_per_stream=None if asynchronous else MAX_WSGI_PER_ACCOUNT,
        )
        self._events: AsyncIterator[bytes] | None = None
        if isinstance(events, AsyncGenerator):
            self._events = _released(events, slot)
            content: Any = self._events
        else:
            content = _released_sync(events, slot)
        super().__init__(content, content_type=CONTENT_TYPE)
        if not asynchronous:
            self["X-Stream-Notice"] = WSGI_NOTICE.format(seconds=MAX_WSGI_SECONDS)
        self["Cache-Control"] = "no-cache"
        # Tells nginx (and proxies that follow it) to pass each event on at once.
        self["X-Accel-Buffering"] = "no"
        self._slot = slot
        weakref.finalize(self, slot.release)

    def __aiter__(self) -> AsyncIterator[bytes]:
        # Our own generator, not Django's wrapper around it: the ASGI handler closes what it
        # iterates when the client leaves, and only closing ours ends its wait and frees its
        # place at once.
        if self._events is None:
            return super().__aiter__()
        return self._events

    def close(self) -> None:
        self._slot.release()
        super().close()


async def _released(
    events: AsyncGenerator[bytes, None], slot: slots.Slot
) -> AsyncIterator[bytes]:
    try:
        async with contextlib.aclosing(events):
            async for frames in events:
                slot.keep()
                yield frames
    finally:
        slot.release()


def match_stream(follower: Follower, *, asynchronous: bool, per_account: int
                 ) -> EventStreamResponse:
    """A match's live stream for ``follower``: on an event loop (``asynchronous``) for up to
    STREAM_MAX_SECONDS, else in a thread for up to MAX_WSGI_SECONDS."""
    events: AsyncGenerator[bytes, None] | Generator[bytes, None, None] = (
        async_events(follower, settings.STREAM_MAX_SECONDS) if asynchronous
        else sync_events(follower, MAX_WSGI_SECONDS))
    return EventStreamResponse(follower.user_id, events, per_account=per_account)


# What a stream served in a thread says in a header: it ends soon, and where a stream is held
# longer.
WSGI_NOTICE = (
    "This server ends a stream after {seconds} s (reconnect with Last-Event-ID: nothing is "
    "lost); the stream server, where the front door routes /stream paths, keeps it open far "
    "longer."
)


def _released_sync(events: Generator[bytes, None, None], slot: slots.Slot) -> Iterator[bytes]:
    try:
        with contextlib.closing(events):
            for frames in events:
                slot.keep()
                yield frames
    finally:
        slot.release()


# A WSGI server's stream holds a thread: as long as a long poll at most, and only a few of them
# per account and process.
MAX_WSGI_SECONDS = 30
MAX_WSGI_PER_ACCOUNT = 2
