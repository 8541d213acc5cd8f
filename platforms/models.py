"""Partner platforms: other services that put Batak inside their own apps.

A platform is registered by staff and calls the API server to server with a `PlatformKey`
(djangorestframework-api-key: a prefixed secret stored hashed, shown once, revocable, with
scopes). Its players are accounts of this service tied to the platform's own ids
(`PlatformPlayer`); the platform's matches are created by its own account (`Platform.user`),
which is what keeps each platform's data apart: everything is looked up through that account.
"""

from __future__ import annotations

import uuid
from typing import ClassVar

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone
from rest_framework_api_key.models import AbstractAPIKey, APIKeyManager

from games.quotas import Quotas


class Scope(models.TextChoices):
    PLAYERS_READ = "players:read", "Read players"
    PLAYERS_WRITE = "players:write", (
        "Create, update and erase players, issue and revoke their tokens; read players too"
    )
    MATCHES_WRITE = "matches:write", "Create matches for the platform's players"
    MATCHES_READ = "matches:read", "List the platform's matches and read their results"
    WEBHOOKS_MANAGE = "webhooks:manage", "Manage webhook subscriptions, read deliveries"


class Platform(models.Model):
    name = models.CharField(max_length=100, unique=True)
    # The platform's own account: it creates the platform's matches, and the account limits
    # below are counted on it.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="platform",
        editable=False,
    )
    max_unfinished_matches = models.PositiveIntegerField(
        default=1000, help_text="Matches waiting or in play at once."
    )
    max_bot_seat_deals = models.PositiveIntegerField(
        default=20_000, help_text="Computer players' deals in them (a computer seat counts its "
        "match's deals)."
    )
    # The platform's own quotas (games/api/quotas.py), in place of every account's: sized by
    # default for a platform that follows 1,000 matches in play, one stream each.
    requests_per_minute = models.PositiveIntegerField(
        default=6000, validators=[MinValueValidator(1)],
        help_text="Requests a minute, counted in each minute of the clock.",
    )
    requests_in_flight = models.PositiveIntegerField(
        default=16, validators=[MinValueValidator(1)],
        help_text="Requests served at once by one server process; more are refused at once.",
    )
    live_streams = models.PositiveIntegerField(
        default=1100, validators=[MinValueValidator(1)],
        help_text="Event streams open at once, across the service.",
    )
    long_polls = models.PositiveIntegerField(
        default=16, validators=[MinValueValidator(1)],
        help_text="Event-feed long polls waiting at once, across the service.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    @property
    def quotas(self) -> Quotas:
        return Quotas(
            requests=(self.requests_per_minute, 60),
            requests_in_flight=self.requests_in_flight,
            streams=self.live_streams,
            long_polls=self.long_polls,
        )


# APIKeyManager, the type AbstractAPIKey gives `objects`, adds nothing to BaseAPIKeyManager.
class PlatformKeyManager(APIKeyManager):
    def get_usable_keys(self) -> models.QuerySet[PlatformKey]:
        # The key's platform and its account come with it: every request needs both.
        return super().get_usable_keys().select_related("platform__user")


class PlatformKey(AbstractAPIKey):
    # How the games' views tell a platform's key from a person's token (`request.auth`)
    # without importing this app: games/api/base.py.
    is_platform_key: ClassVar[bool] = True

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="keys")
    scopes = models.JSONField(default=list, help_text="What the key may do (see Scope).")

    objects: ClassVar[PlatformKeyManager] = PlatformKeyManager()

    @property
    def quotas(self) -> Quotas:
        """The platform's: a request made with the key counts against them."""
        return self.platform.quotas

    def still_usable(self) -> bool:
        """Whether the key is usable now, read afresh (not revoked, expired nor deleted since it
        was checked): a stream it opened looks again while it is open (games/api/streams.py)."""
        return PlatformKey.objects.filter(pk=self.pk, revoked=False).exclude(
            expiry_date__lte=timezone.now()).exists()

    class Meta(AbstractAPIKey.Meta):
        verbose_name = "platform key"
        verbose_name_plural = "platform keys"


class PlatformPlayer(models.Model):
    """A player of a platform, by the platform's own id, and the account that plays for it."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="players")
    external_id = models.CharField(max_length=128)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="platform_player"
    )
    language = models.CharField(max_length=8, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("platform_id", "external_id")
        constraints = (
            models.UniqueConstraint(
                fields=["platform", "external_id"], name="platform_player_unique_id"
            ),
        )

    def __str__(self) -> str:
        return f"{self.external_id} of {self.platform}"


class EventType(models.TextChoices):
    MATCH_STARTED = "match.started", "A match started: its first deal is dealt"
    TURN_STARTED = "turn.started", "A platform's player is to act"
    DEAL_ENDED = "deal.ended", "A deal was scored"
    MATCH_FINISHED = "match.finished", "A match ended, with its ranking"
    MATCH_CANCELLED = "match.cancelled", "A match was called off before its start"
    MATCH_ABANDONED = "match.abandoned", "A match in play was stopped unfinished"
    SEAT_TIMED_OUT = "seat.timed_out", "A player's turn clock ran out"
    SEAT_TAKEN = "seat.taken", "A player took an open seat"
    SEAT_LEFT = "seat.left", "A player left their seat"
    AUTOPILOT_ON = "seat.autopilot_on", "A player's seat went on autopilot"
    AUTOPILOT_OFF = "seat.autopilot_off", "A player is back: their seat is off autopilot"
    REMATCH_OFFERED = "rematch.offered", "A rematch of a finished match was offered"
    REMATCH_STARTED = "rematch.started", "Everyone accepted: the rematch started"
    RATING_CHANGED = "rating.changed", "A rated match's players' ratings changed"
    PLAYER_ERASED = "player.erased", "A player was erased: their data is gone, their id free"
    DEAL_ANALYSED = "deal.analysed", "A scored deal's analysis is ready"


# A subscription's event type that stands for every type, those to come included.
EVERY_EVENT_TYPE = "*"


class WebhookSubscription(models.Model):
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    event_types = models.JSONField(
        help_text="The `EventType`s sent to this URL, or `*` for every type.")
    # The Standard Webhooks signing secret, `whsec_` and base64; shown to the platform once.
    secret = models.CharField(max_length=100, editable=False)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Deleted by the platform: nothing more is sent, but its delivery log stays readable until
    # WEBHOOK_LOG_RETENTION_DAYS after this (the purge then removes it).
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Since when its receiver has failed an attempt without answering one since (null: it
    # answers). The first attempt it answers after that makes every delivery waiting out a
    # backoff for it due at once (platforms/webhooks.py `_note_receiver`).
    failing_since = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ("platform_id", "created_at")

    def __str__(self) -> str:
        return f"{self.platform}: {self.url}"

    def wanted_types(self) -> set[str]:
        """The event types sent to it: all of them for `*`, those to come included."""
        if EVERY_EVENT_TYPE in self.event_types:
            return set(EventType.values)
        return set(self.event_types)


class WebhookEvent(models.Model):
    """One event of a platform, sent to each subscription that wants its type. Its ``id`` is
    the `webhook-id` of every delivery and retry: receivers deduplicate on it."""

    id = models.CharField(primary_key=True, max_length=40, editable=False)
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=32, choices=EventType.choices)
    payload = models.JSONField(help_text="The body sent: {type, timestamp, sequence, data}.")
    # An event of a match (`data.match_id`) has its deliveries to a subscription sent in
    # `sequence` order, which increases with each event of the match (several events may
    # share one match version). Null on a player's events (`player.erased`), which are of no
    # match, and on events from before sequences.
    match_id = models.UUIDField(null=True, blank=True)
    sequence = models.PositiveIntegerField(null=True, blank=True)
    # The W3C traceparent of the change that made the event (runtime/traces.py): its deliveries
    # are traced in that trace, wherever and whenever they are attempted. Empty when tracing
    # is off.
    traceparent = models.CharField(max_length=55, blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ("created_at",)
        constraints = (
            # Also the index of a match's events in order (`webhooks._waiting_for_an_earlier`).
            models.UniqueConstraint(fields=["match_id", "sequence"],
                                    condition=models.Q(match_id__isnull=False),
                                    name="webhook_event_sequence_once"),
        )

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class MatchBatch(models.Model):
    """Matches a platform made in one call (`createPlatformMatchBatch`), each optionally
    starting at ``starts_at``: listed, followed and cancelled together."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="batches")
    starts_at = models.DateTimeField(null=True, blank=True)
    # The batch's matches, in the order they were asked for (a match may be purged later,
    # with its history: its id stays here).
    match_ids = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "match batches"
        indexes = (models.Index(fields=["platform", "created_at"],
                                name="platform_batches_newest"),)

    def __str__(self) -> str:
        return f"{self.platform}: {len(self.match_ids)} matches"


class PlatformStreamEvent(models.Model):
    """One event of a platform as its stream (platforms/stream.py) sends it: every event of
    every type, whether or not a subscription wants it, kept PLATFORM_STREAM_RETENTION_HOURS.
    Its ``event_id`` is its webhook event's id when one was written (the same `webhook-id`).

    A stream's cursor is (``txid``, ``id``): on PostgreSQL ``txid`` is the id of the transaction
    that wrote the row, and a stream reads only rows of transactions finished before every
    transaction still running began, so that a row committed late can never fall behind a
    cursor already past it; on SQLite, which commits one writer at a time in the order of its
    rows' ids, it is 0."""

    id = models.BigAutoField(primary_key=True)
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE,
                                 related_name="stream_events", db_index=False)
    txid = models.BigIntegerField(default=0)
    event_id = models.CharField(max_length=40)
    type = models.CharField(max_length=32, choices=EventType.choices)
    match_id = models.UUIDField(null=True, blank=True)
    payload = models.JSONField(help_text="As a webhook's body: {type, timestamp, sequence, data}.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = (models.Index(fields=["platform", "txid", "id"],
                                name="platform_stream_cursor"),)

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class WebhookMatchSequence(models.Model):
    """The last `sequence` given to an event of a match. Kept apart from the events, which
    the purge removes, so that a match idle past the retention does not start again at 1
    (receivers keep the newest sequence they have); removed only once the match has ended
    and none of its events is left."""

    match_id = models.UUIDField(primary_key=True)
    last = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.match_id}: {self.last}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending (sending or waiting to retry)"
    SUCCEEDED = "succeeded", "Delivered"
    FAILED = "failed", "Gave up after every retry"
    CANCELLED = "cancelled", "Not sent: the subscription was deleted"


class WebhookDelivery(models.Model):
    # Indexed with its log's order (`webhook_delivery_log`), not on its own: an index of the
    # subscription alone is what the planner took, on a table it had not analysed yet, to
    # look for an earlier delivery of a match, one row of the subscription's at a time.
    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries",
        db_index=False,
    )
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    # The event's match and sequence, copied: whether an earlier one of its match holds it
    # back is then one probe of an index (`webhooks._waiting_for_an_earlier`), where through
    # the event it was one per earlier event of the match, and a backlog cost its square.
    # Null on a player's event (of no match) and on one sent again (`resent`: outside the
    # order).
    match_id = models.UUIDField(null=True, blank=True, editable=False)
    sequence = models.PositiveIntegerField(null=True, blank=True, editable=False)
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices,
                              default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When the next attempt is due (while one is under way: the one after it, if it fails).
    next_attempt_at = models.DateTimeField(db_index=True)
    # While an attempt is under way: its deadline, with a margin (None otherwise). Counts the
    # platform's attempts in flight.
    in_flight_until = models.DateTimeField(null=True, blank=True, editable=False)
    # Made pending again by `redeliver` or `replay` (an old event again): it neither holds back
    # the later events of its match nor waits for earlier ones, so a match in play goes on.
    resent = models.BooleanField(default=False, editable=False)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_latency_ms = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name_plural = "webhook deliveries"
        constraints = (
            models.UniqueConstraint(fields=["subscription", "event"],
                                    name="webhook_delivery_once"),
        )
        indexes = (
            models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due"),
            # A subscription's log, newest first (`listPlatformWebhookDeliveries`).
            models.Index(fields=["subscription", "-created_at", "-id"],
                         name="webhook_delivery_log"),
            # The deliveries that hold back later ones of their match (`_waiting_for_an_earlier`
            # probes it once): only those pending and live.
            models.Index(fields=["subscription", "match_id", "sequence"],
                         name="webhook_delivery_holding_match",
                         condition=models.Q(status="pending", resent=False)),
            # Few rows are in flight at any time: the index holds only those.
            models.Index(fields=["in_flight_until"], name="webhook_delivery_in_flight",
                         condition=models.Q(in_flight_until__isnull=False)),
        )

    def __str__(self) -> str:
        return f"{self.event} to {self.subscription.url}"
