"""Matches, seats, deals and the append-only action log.

The log is the source of truth for play: a deal's state is its start (stored on `Deal`) replayed
through its `Action` rows. Everything else here (totals, trick counts, scores) is a record of
what the engine computed, kept for listing and review.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import Game


class GameChoice(models.TextChoices):
    AUCTION = Game.AUCTION.value, _("Auction (İhaleli)")
    PARTNERSHIP = Game.PARTNERSHIP.value, _("Partnership (Eşli)")
    SPADES = Game.SPADES.value, _("Spades (Koz Maça)")


class MatchStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting for players")
    ACTIVE = "active", _("In play")
    FINISHED = "finished", _("Finished")
    ABANDONED = "abandoned", _("Abandoned")
    CANCELLED = "cancelled", _("Cancelled before the start")


# A match not over yet (its people may still play), and one over, whichever way it ended.
UNFINISHED = (MatchStatus.WAITING, MatchStatus.ACTIVE)
OVER = (MatchStatus.FINISHED, MatchStatus.ABANDONED, MatchStatus.CANCELLED)


class Visibility(models.TextChoices):
    PUBLIC = "public", _("Public: listed in the lobby, open to spectators")
    PRIVATE = "private", _("Private: joined with an invitation code")


class ActionOrigin(models.TextChoices):
    """Who made a move at its seat: the seat's own player (a person or a computer seat), or a
    computer player standing in for a person."""

    PLAYER = "player", _("The seat's player")
    TIMEOUT = "timeout", _("A computer player, as the turn clock ran out")
    AUTOPILOT = "autopilot", _("A computer player, while the seat is on autopilot")
    STAND_IN = "stand_in", _("A computer player, after the person left")


class BotLevel(models.TextChoices):
    EASY = "easy", _("Easy")
    MEDIUM = "medium", _("Medium")
    HARD = "hard", _("Hard")
    EXPERT = "expert", _("Expert")


class Match(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=16, choices=GameChoice.choices)
    rules = models.JSONField(help_text="The full table rules (engine `TableRules.to_dict`).")
    deal_count = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=16, choices=MatchStatus.choices, default=MatchStatus.WAITING, db_index=True
    )
    first_dealer = models.PositiveSmallIntegerField()
    # Increases by one with every applied action: clients send it back as `expected_version`.
    version = models.PositiveIntegerField(default=0)
    totals = models.JSONField(default=list)
    ranking = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_matches"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    # Lets its holder join a private match; null once revoked (and for public matches).
    invitation_code = models.CharField(max_length=32, null=True, blank=True, unique=True)
    # Kept with every seat change, so that the lobby filters on a column, not a join.
    open_seats = models.PositiveSmallIntegerField(default=0)
    # Game, rules and deals as one short digest: what "a compatible table" means to quick match.
    table_key = models.CharField(max_length=16, blank=True, db_index=True)
    clock = models.JSONField(
        null=True, blank=True, help_text="Seconds per action: {bid, card}; null for no clock."
    )
    # When the person to act runs out of time; null when nobody is on the clock.
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # Since when a computer player has been to act (the change that made it their turn); null
    # when a person is, or the match is not in play. The bots' sweep reads only these rows
    # (`match_computer_turn`), however many tables wait for their people.
    computer_turn_since = models.DateTimeField(null=True, blank=True, editable=False)
    # A quick-match table still waiting then gets computer players in its open seats.
    fill_bots_at = models.DateTimeField(null=True, blank=True, db_index=True)
    fill_bots_level = models.CharField(max_length=8, choices=BotLevel.choices, blank=True)
    # A quick-match table: once full, it waits for its people who are not looking at it then
    # (not seen for PRESENCE_SECONDS) until their first view or stream of it, and at most
    # QUICK_MATCH_ARRIVAL_SECONDS (`ready_by`): nobody's clock runs before they see the table.
    waits_for_arrivals = models.BooleanField(default=False, editable=False)
    # Tour of Tables: a person who leaves forfeits the match instead of handing the seat over.
    leave_forfeits = models.BooleanField(default=False)
    # A rated table (ratings/): its people's ratings change when it finishes.
    rated = models.BooleanField(default=False)
    # A table for learners: a seated person may ask for a hint on their turn (games/hints.py).
    # Never a rated table.
    hints = models.BooleanField(default=False)
    # The first deal's hands when they were chosen (a deal's notation), card strings per seat;
    # null when the first deal is shuffled. Such a match is never rated.
    imported_hands = models.JSONField(null=True, blank=True)
    # Seeds the computer players' choices (with what their seat sees) so that the same plays
    # meet the same answers at every table of a deal set; empty: fresh randomness.
    bot_seed = models.CharField(max_length=64, blank=True, editable=False)
    # A deal set's table: its cards are the set's, which others have still to play, so they
    # stay sealed until the set closes (`games.access.cards_sealed`); null: never sealed.
    cards_sealed_until = models.DateTimeField(null=True, blank=True, editable=False)
    # A match that waits for its people to say they are ready (`Seat.ready`) starts anyway
    # then; null for one that starts as its last seat is taken. Kept once it started.
    ready_by = models.DateTimeField(null=True, blank=True, db_index=True)
    # A scheduled match starts at this time, not before (its `ready_by` too, so that the wait
    # for people's readiness is over then): its seats are ready from the first.
    starts_at = models.DateTimeField(null=True, blank=True)
    # Only the people of this circle sit here (games/circles.py); null: anyone may.
    circle = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="circle_matches",
    )

    class Meta:
        ordering = ("-created_at",)
        verbose_name_plural = "matches"
        indexes = (
            # The lobby's queries: only the public tables with a seat to take are indexed,
            # in the lobby's order, and by game.
            models.Index(
                fields=["created_at", "id"],
                condition=models.Q(visibility="public", status="waiting", open_seats__gt=0),
                name="match_lobby",
            ),
            models.Index(
                fields=["game", "created_at", "id"],
                condition=models.Q(visibility="public", status="waiting", open_seats__gt=0),
                name="match_lobby_game",
            ),
            models.Index(
                fields=["computer_turn_since"],
                condition=models.Q(computer_turn_since__isnull=False),
                name="match_computer_turn",
            ),
        )
        permissions = (
            # Without it a match needs a person's seat: a table of computer players alone is
            # minutes of search that nobody waits for.
            ("play_bot_only_matches", "May create matches of computer players only"),
        )

    def __str__(self) -> str:
        return f"{self.get_game_display()} match {self.id}"


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, blank=True)
    display_name = models.CharField(max_length=64, blank=True)
    # A story-mode character (a slug of `tour.content`) at a computer seat: the bot then plays
    # with that character's style rather than its level's default one.
    character = models.CharField(max_length=32, blank=True)
    # A person's presence: their last request about this match (or an open wait on its feed).
    last_seen = models.DateTimeField(null=True, blank=True)
    # A person who left an active match: a computer player plays the seat to the end.
    left_at = models.DateTimeField(null=True, blank=True)
    # After AUTOPILOT_AFTER_TIMEOUTS timeouts in a row a computer player plays the seat until
    # the person acts again (or says they are back).
    autopilot = models.BooleanField(default=False)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    # False only for a person a match still waits for (`Match.ready_by`).
    ready = models.BooleanField(default=True)

    class Meta:
        ordering = ("match_id", "index")
        constraints = (
            models.UniqueConstraint(fields=["match", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="seat_one_per_user",
            ),
            models.CheckConstraint(condition=models.Q(index__lte=3), name="seat_index_0_3"),
            models.CheckConstraint(
                condition=models.Q(user__isnull=True) | models.Q(bot_level=""),
                name="seat_person_or_bot",
            ),
        )

    def __str__(self) -> str:
        return f"seat {self.index} of {self.match_id}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def is_open(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def is_person(self) -> bool:
        return self.user_id is not None

    @property
    def computer_plays(self) -> bool:
        """A computer player makes this seat's moves: a computer seat, or a person's seat
        after they left or while it is on autopilot."""
        return self.is_bot or (self.is_person and (self.left_at is not None or self.autopilot))

    @property
    def origin(self) -> str:
        """What a computer move at this seat is recorded as."""
        if self.is_bot:
            return ActionOrigin.PLAYER
        return ActionOrigin.STAND_IN if self.left_at is not None else ActionOrigin.AUTOPILOT


class DealStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", _("In progress")
    FINISHED = "finished", _("Finished")
    REDEALT = "redealt", _("Thrown in and dealt again")


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    # Counts every shuffle of the match; `number` repeats when a deal is thrown in.
    sequence = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=16, choices=DealStatus.choices, default=DealStatus.IN_PROGRESS
    )
    deck = models.JSONField(help_text="Shuffled deck order, card strings; revealed at the end.")
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the deck order and salt.")
    hands = models.JSONField(help_text="Initial hands per seat, card strings.")
    declarer = models.PositiveSmallIntegerField(null=True, blank=True)
    bid = models.PositiveSmallIntegerField(null=True, blank=True)
    trump = models.CharField(max_length=1, blank=True)
    announcements = models.JSONField(null=True, blank=True)
    tricks = models.JSONField(null=True, blank=True, help_text="Tricks won per seat.")
    scores = models.JSONField(null=True, blank=True, help_text="Points per seat.")
    outcomes = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("match_id", "sequence")
        constraints = (
            models.UniqueConstraint(fields=["match", "sequence"], name="deal_unique_sequence"),
        )

    def __str__(self) -> str:
        return f"deal {self.number} of {self.match_id}"


class Action(models.Model):
    """One applied action; rows are only ever appended."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="actions")
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="actions")
    sequence = models.PositiveSmallIntegerField(help_text="Position in the deal's log, from 1.")
    version = models.PositiveIntegerField(help_text="The match version this action produced.")
    seat = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16)
    payload = models.JSONField(default=dict)
    origin = models.CharField(
        max_length=12, choices=ActionOrigin.choices, default=ActionOrigin.PLAYER
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("match_id", "version")
        constraints = (
            models.UniqueConstraint(fields=["deal", "sequence"], name="action_unique_sequence"),
            models.UniqueConstraint(fields=["match", "version"], name="action_unique_version"),
        )

    def __str__(self) -> str:
        return f"{self.kind} by seat {self.seat} (v{self.version})"


class IdempotencyRecord(models.Model):
    """The first response to a POST with an `Idempotency-Key`, returned again on retries."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of method, path and body.")
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)  # retention purges by age

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_key"),
        )

    def __str__(self) -> str:
        return f"idempotency key {self.key}"


class Spectator(models.Model):
    """A signed-in user watching a public match; counted while seen in the last
    PRESENCE_SECONDS."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="spectator_rows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    last_seen = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["match", "user"], name="spectator_unique_user"),
        )
        indexes = (models.Index(fields=["match", "last_seen"], name="spectator_recent"),)

    def __str__(self) -> str:
        return f"spectator {self.user_id} of {self.match_id}"


class QuickMatchQueue(models.Model):
    """One row per kind of table (`Match.table_key`): quick-match requests for the same kind
    take its row lock in turn, so two of them never open two half-empty tables at once."""

    table_key = models.CharField(max_length=16, unique=True)
    touched_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"quick-match queue {self.table_key}"


class RematchStatus(models.TextChoices):
    OPEN = "open", _("Waiting for answers")
    ACCEPTED = "accepted", _("Accepted by everyone: the new match started")
    DECLINED = "declined", _("Declined")
    # Never stored: an open offer past its `expires_at` reads as expired (games/rematch.py).
    EXPIRED = "expired", _("Expired unanswered")


class RematchOffer(models.Model):
    """A finished match's offer of a rematch: one per match (an expired one is replaced by the
    next offer). ``answers`` holds one entry per seat of the finished match, in seat order:
    ``{"user_id": the person asked, or None for a computer player, "answer": "accepted",
    "declined" or None while waited for}``."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="rematch_offer")
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(
        max_length=8, choices=RematchStatus.choices, default=RematchStatus.OPEN
    )
    answers = models.JSONField()
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    # The rematch, once everyone accepted; unique: one finished match starts one rematch.
    new_match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )

    def __str__(self) -> str:
        return f"rematch offer of {self.match_id}"


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", _("Waiting for a worker")
    DONE = "done", _("Analysed")


class DealAnalysis(models.Model):
    """The post-deal analysis of a scored deal (bots/analysis.py): made `queued` in the
    transaction that ends the deal, filled in by the analysis worker."""

    deal = models.OneToOneField(Deal, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=8, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.QUEUED)
    # `bots.analysis.DealReview.to_dict`: each move's judgements and mark, per seat a summary.
    result = models.JSONField(null=True, blank=True)
    # Its CPU budget ran out (ANALYSIS_SECONDS_PER_DEAL) before every move was judged.
    partial = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # When it was last sent to be analysed: the sweeper sends one still queued
    # ANALYSIS_STALE_AFTER_SECONDS later again (its task was lost).
    sent_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deal analyses"
        indexes = (models.Index(fields=["status", "sent_at"], name="analysis_waiting"),)

    def __str__(self) -> str:
        return f"analysis of {self.deal}"


class FollowUp(models.Model):
    """Events of a match's change that a kept handler has still to run (games/follow_ups.py):
    written in the change's transaction, removed in the handler's."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    handler = models.CharField(max_length=32)
    events = models.JSONField(encoder=DjangoJSONEncoder)
    attempts = models.PositiveIntegerField(default=0)
    # When the sweep takes it up, if its handler has not by then.
    due_at = models.DateTimeField()

    class Meta:
        indexes = (
            models.Index(fields=["due_at"], name="follow_up_due"),
            models.Index(fields=["match", "handler"], name="follow_up_of_match"),
        )

    def __str__(self) -> str:
        return f"{self.handler} of {self.match_id}"


class AccountEventType(models.TextChoices):
    """What a person's own stream tells them (games/account_stream.py)."""

    MATCH_SEATED = "match.seated", "You were given a seat at a match someone else made"
    MATCH_STARTED = "match.started", "A match of yours started: its first deal is dealt"
    TURN_STARTED = "turn.started", "You are to act"
    MATCH_FINISHED = "match.finished", "A match of yours ended, with its ranking"
    MATCH_CANCELLED = "match.cancelled", "A match of yours was called off before its start"
    MATCH_ABANDONED = "match.abandoned", "A match of yours in play was stopped unfinished"
    SEAT_TIMED_OUT = "seat.timed_out", "Your turn clock ran out"
    SEAT_TAKEN = "seat.taken", "A seat at a table of yours was taken (yours included)"
    SEAT_LEFT = "seat.left", "A seat at a table of yours was left (yours included)"
    AUTOPILOT_ON = "seat.autopilot_on", "Your seat went on autopilot"
    AUTOPILOT_OFF = "seat.autopilot_off", "You are back: your seat is off autopilot"
    REMATCH_OFFERED = "rematch.offered", "A rematch of a match you played was offered to you"
    REMATCH_STARTED = "rematch.started", "Everyone accepted: the rematch started"
    RATING_CHANGED = "rating.changed", "A rated match changed your rating"


class AccountStreamEvent(models.Model):
    """One event of a person's own stream (games/account_stream.py): about their matches and
    the offers made to them, kept ACCOUNT_STREAM_RETENTION_HOURS. The cursor is (``txid``,
    ``id``), as a platform's stream's (games/event_log.py)."""

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+", db_index=False)
    txid = models.BigIntegerField(default=0)
    type = models.CharField(max_length=32, choices=AccountEventType.choices)
    match_id = models.UUIDField(null=True, blank=True)
    payload = models.JSONField(help_text="{type, timestamp, data}.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = (models.Index(fields=["user", "txid", "id"], name="account_stream_cursor"),)

    def __str__(self) -> str:
        return f"{self.type} of {self.user_id}"
