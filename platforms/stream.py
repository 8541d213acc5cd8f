"""A platform's stream: every event of every match of the platform (and of its players), in one
Server-Sent Events stream with one cursor across matches — the platform's log of events
(games/event_log.py), written by `platforms.events.emit` in the follow-up transaction that
writes the webhooks, announced on the platform's own channel."""

from __future__ import annotations

from games.event_log import Log
from platforms.models import PlatformStreamEvent

LOG = Log(PlatformStreamEvent, "platform_id", "platform", "PLATFORM_STREAM_RETENTION_HOURS")
