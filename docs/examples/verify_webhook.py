"""Verify a webhook delivery (Standard Webhooks, HMAC-SHA256) with the standard library alone."""

import base64
import hashlib
import hmac
import time

TOLERANCE_SECONDS = 5 * 60  # refuse deliveries signed longer ago (replays)


def verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """True when `body` was signed with your subscription's `secret` (`whsec_…`)."""
    message_id = headers["webhook-id"]
    timestamp = headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # The header holds one or more space-separated "v1,<base64>" signatures.
    return any(
        hmac.compare_digest(signature.removeprefix("v1,"), expected)
        for signature in headers["webhook-signature"].split()
        if signature.startswith("v1,")
    )
