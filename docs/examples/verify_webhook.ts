// Verify a webhook delivery (Standard Webhooks, HMAC-SHA256) with Node's crypto alone.
import { createHmac, timingSafeEqual } from "node:crypto";

const TOLERANCE_SECONDS = 5 * 60; // refuse deliveries signed longer ago (replays)

/** True when `body` (the raw bytes received) was signed with your subscription's `secret`. */
export function verify(secret: string, headers: Record<string, string>, body: Buffer): boolean {
  const id = headers["webhook-id"] ?? "";
  const timestamp = headers["webhook-timestamp"] ?? "";
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key)
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest();
  // The header holds one or more space-separated "v1,<base64>" signatures.
  return (headers["webhook-signature"] ?? "")
    .split(" ")
    .filter((signature) => signature.startsWith("v1,"))
    .map((signature) => Buffer.from(signature.slice(3), "base64"))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
