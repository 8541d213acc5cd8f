// Follows a match's live stream (GET /api/v1/matches/{id}/stream, Server-Sent Events) with the
// types openapi-typescript generates from openapi/schema.yaml:
//
//   for await (const message of follow(baseUrl, matchId, { headers })) {
//     if (message.type === "action" && message.event.kind === "play") use(message.event.card);
//     if (message.type === "deal_ended") console.log(message.result.totals);
//     if (message.type === "hand") console.log(message.hand.hand);  // your own stream only
//     if (message.type === "turn") act(message.turn.legal_actions[0], message.turn.version);
//     if (message.type === "end") console.log(message.end.status);
//     if (message.type === "analysis_ready") console.log(message.ready.deal_sequence);
//   }
//   for await (const message of follow(baseUrl, matchId, { headers, afterEnd: true })) {
//     if (message.type === "rating_changed") console.log(message.ratings.changes);
//     if (message.type === "rematch_offered") console.log(message.offer.status);
//     if (message.type === "rematch_started") console.log(message.started.new_match_id);
//   }
//
// The schema names each event's data (`x-sse-events` on the stream's answer): `action` is an
// `Event` (its `id:` the version, or the `deal_ended` after it carries it), `deal_ended` a
// `DealEndedEvent`, `clock` a `ClockEvent`, `seats` a `SeatsEvent`, `end` a `StreamEnd`, on a
// seat's own stream `hand` a `HandEvent` (its cards when a deal is dealt, or the stream starts
// in one) and `turn` a `TurnEvent` (its move: the legal actions, at the version to send back),
// `rating_changed` a `RatingChangedEvent`, `rematch_offered` a `RematchOffer`,
// `rematch_started` a `RematchStartedEvent`, `analysis_ready` an `AnalysisReadyEvent` (a scored
// deal's analysis is ready: getDealAnalysis reads it). The server may add events: those come as
// `type: "other"`, raw. A stream the server closes before `end` (a WSGI server after 30 s) is
// resumed with `Last-Event-ID`, so nothing is missed or seen twice; 204 (the match is over and
// nothing is after the cursor) ends it, and 429 waits `Retry-After`. `follow` stops at `end`
// unless `afterEnd`: a finished match's stream stays open a while after it
// (STREAM_AFTER_END_SECONDS, and while a rematch offer is open) for `rating_changed`,
// `rematch_offered`, `rematch_started` and the last deal's `analysis_ready`, state events
// without an id; with `afterEnd` they are read until the server closes the stream (or answers
// 204), which is not resumed. `analysis_ready` goes only to the streams open when the analysis
// is recorded: one missed is read with getDealAnalysis, 202 until it is ready. Node 18+ or a
// browser (fetch with a streamed body); EventSource would do too, but sends no Authorization
// header.
import type { components } from "./generated/schema.js";

type Schemas = components["schemas"];

export type StreamMessage =
  | { type: "action"; version: number; event: Schemas["Event"] }
  | { type: "deal_ended"; result: Schemas["DealEndedEvent"] }
  | { type: "clock"; clock: Schemas["ClockEvent"] }
  | { type: "hand"; hand: Schemas["HandEvent"] }
  | { type: "turn"; turn: Schemas["TurnEvent"] }
  | { type: "seats"; seats: Schemas["SeatsEvent"] }
  | { type: "end"; end: Schemas["StreamEnd"] }
  | { type: "rating_changed"; ratings: Schemas["RatingChangedEvent"] }
  | { type: "rematch_offered"; offer: Schemas["RematchOffer"] }
  | { type: "rematch_started"; started: Schemas["RematchStartedEvent"] }
  | { type: "analysis_ready"; ready: Schemas["AnalysisReadyEvent"] }
  | { type: "other"; name: string; id: string | undefined; data: string };

export class StreamError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`stream refused: HTTP ${status} ${body.slice(0, 300)}`);
  }
}

export interface FollowOptions {
  headers: Record<string, string>; // the Authorization header, as for the other requests
  after?: number; // the version to follow from (0: the match's first action)
  signal?: AbortSignal;
  afterEnd?: boolean; // on after `end`, until the server closes the stream (default: stop at `end`)
}

interface Frame {
  name: string;
  data: string[];
  id: string | undefined;
}

const DEFAULT_RETRY_MS = 1000;

function message(frame: Frame): StreamMessage {
  const data = frame.data.join("\n");
  if (frame.name === "action") {
    const event: Schemas["Event"] = JSON.parse(data);
    return { type: "action", version: event.version, event };
  }
  if (frame.name === "deal_ended") {
    const result: Schemas["DealEndedEvent"] = JSON.parse(data);
    return { type: "deal_ended", result };
  }
  if (frame.name === "clock") {
    const clock: Schemas["ClockEvent"] = JSON.parse(data);
    return { type: "clock", clock };
  }
  if (frame.name === "hand") {
    const hand: Schemas["HandEvent"] = JSON.parse(data);
    return { type: "hand", hand };
  }
  if (frame.name === "turn") {
    const turn: Schemas["TurnEvent"] = JSON.parse(data);
    return { type: "turn", turn };
  }
  if (frame.name === "seats") {
    const seats: Schemas["SeatsEvent"] = JSON.parse(data);
    return { type: "seats", seats };
  }
  if (frame.name === "end") {
    const end: Schemas["StreamEnd"] = JSON.parse(data);
    return { type: "end", end };
  }
  if (frame.name === "rating_changed") {
    const ratings: Schemas["RatingChangedEvent"] = JSON.parse(data);
    return { type: "rating_changed", ratings };
  }
  if (frame.name === "rematch_offered") {
    const offer: Schemas["RematchOffer"] = JSON.parse(data);
    return { type: "rematch_offered", offer };
  }
  if (frame.name === "rematch_started") {
    const started: Schemas["RematchStartedEvent"] = JSON.parse(data);
    return { type: "rematch_started", started };
  }
  if (frame.name === "analysis_ready") {
    const ready: Schemas["AnalysisReadyEvent"] = JSON.parse(data);
    return { type: "analysis_ready", ready };
  }
  return { type: "other", name: frame.name, id: frame.id, data };
}

async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.search(/\r\n|\r|\n/)) >= 0) {
      const newline = buffered.startsWith("\r\n", end) ? 2 : 1;
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + newline);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every message of the match's stream after `after`, until `end` (or 204); with `afterEnd`,
 * on after `end` until the server closes the stream (or answers 204). */
export async function* follow(
  baseUrl: string,
  matchId: string,
  options: FollowOptions,
): AsyncGenerator<StreamMessage> {
  let lastId: string | undefined;
  let retryMs = DEFAULT_RETRY_MS;
  let ended = false;
  const url = `${baseUrl}/api/v1/matches/${matchId}/stream?after=${options.after ?? 0}`;
  for (;;) {
    const headers: Record<string, string> = { ...options.headers, Accept: "text/event-stream" };
    if (lastId !== undefined) headers["Last-Event-ID"] = lastId;
    const response = await fetch(url, { headers, signal: options.signal ?? null });
    if (response.status === 204) return;
    if (response.status === 429) {
      await sleep(Number(response.headers.get("Retry-After") ?? 1) * 1000);
      continue;
    }
    if (response.status !== 200 || response.body === null) {
      throw new StreamError(response.status, await response.text());
    }
    let frame: Frame = { name: "message", data: [], id: undefined };
    for await (const line of lines(response.body)) {
      if (line === "") {
        // A blank line ends a frame.
        if (frame.data.length > 0) {
          const next = message(frame);
          yield next;
          if (next.type === "end") {
            if (options.afterEnd !== true) return;
            ended = true;
          }
        }
        frame = { name: "message", data: [], id: undefined };
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") frame.name = value;
      else if (field === "data") frame.data.push(value);
      else if (field === "id") frame.id = lastId = value;
      else if (field === "retry" && /^[0-9]+$/.test(value)) retryMs = Number(value);
      // Anything else, a `: heartbeat` comment among them, is no part of a message.
    }
    if (ended) return; // closed after `end`: all is sent
    await sleep(retryMs);
  }
}
