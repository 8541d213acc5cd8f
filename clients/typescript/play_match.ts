// A whole match through the TypeScript client generated from openapi/schema.yaml
// (openapi-typescript types, openapi-fetch calls), as an app would play it: a guest against three
// computer players, played from the live stream alone (sse.ts): each `turn` it tells is answered
// with one POST. Once over, the event feed read by its cursor matches the stream. On the way it sends one card the rules refuse and one action with a stale
// version, and reads both answers as the typed Problem, and reads its view again with its ETag
// (304).
//
//   npm run generate && npm run build && node build/play_match.js http://127.0.0.1:8000
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";
import { follow, type StreamMessage } from "./sse.js";

type Action = components["schemas"]["Action"];
type Event = components["schemas"]["Event"];
type Problem = components["schemas"]["Problem"];
type SeatView = components["schemas"]["SeatView"];

const DEALS = 4;
const PAGE = 25; // small, so the cursor is followed across pages
const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";

function fail(message: string): never {
  console.error(`typescript client: ${message}`);
  process.exit(1);
}

function expectProblem(error: Problem | undefined, status: number, codes: string[]): void {
  if (error === undefined || error.status !== status || !codes.includes(error.code)) {
    fail(`expected a ${status} problem ${codes.join("/")}, got ${JSON.stringify(error)}`);
  }
}

async function main(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const guest = await anonymous.POST("/api/v1/auth/guest", {
    body: { display_name: "TypeScript client" },
  });
  if (guest.data === undefined) fail(`guest: ${JSON.stringify(guest.error)}`);
  const headers = { Authorization: `Token ${guest.data.token}` };
  const client = createClient<paths>({ baseUrl, headers });

  const created = await client.POST("/api/v1/matches", {
    body: {
      // `visibility` left to its default: optional in the generated types too.
      game: "spades",
      deals: DEALS,
      seats: [
        { kind: "me" },
        { kind: "bot", bot_level: "easy" },
        { kind: "bot", bot_level: "medium" },
        { kind: "bot", bot_level: "medium" },
      ],
    },
  });
  if (created.data === undefined) fail(`create: ${JSON.stringify(created.error)}`);
  const match_id = created.data.id;
  const path = { match_id };

  // Any entry of `legal_actions`, as given, with the version it was given at.
  async function submit(action: Action, version: number) {
    return client.POST("/api/v1/matches/{match_id}/actions", {
      params: { path }, body: { ...action, expected_version: version },
    });
  }

  // Push-first: the stream says when it is our move and what we may do (`turn`); we answer
  // with one POST. It is resumed whenever the server closes it, until its `end`.
  const heard: StreamMessage[] = [];
  let refusedOnce = false;
  let staleOnce = false;
  let notModifiedOnce = false;
  let turns = 0;
  for await (const message of follow(baseUrl, match_id, { headers })) {
    heard.push(message);
    if (message.type !== "turn") continue;
    const turn = message.turn;
    const legal = turn.legal_actions.filter((action) => action.kind !== "redeal");
    const refusal = turn.refusals[0];
    if (!refusedOnce && refusal !== undefined) {
      const refused = await client.POST("/api/v1/matches/{match_id}/actions", {
        params: { path }, body: { kind: "play", card: refusal.card },
      });
      expectProblem(refused.error, 422, [refusal.reason]);
      refusedOnce = true;
    }
    const first = legal[0];
    if (first === undefined) fail("no legal action on my turn");
    if (!staleOnce && turn.version > 0) {
      expectProblem((await submit(first, turn.version - 1)).error, 409, ["stale_version"]);
      staleOnce = true;
    }
    if (!notModifiedOnce) {
      // On our turn nothing moves until we do: the view is unchanged, 304 with no body.
      const fresh = await client.GET("/api/v1/matches/{match_id}/view", { params: { path } });
      const etag = fresh.response.headers.get("ETag") ?? "";
      const again = await client.GET("/api/v1/matches/{match_id}/view", {
        params: { path, header: { "If-None-Match": etag } },
      });
      // A 200 is a changed view (a seat's presence noted in between): asked next turn.
      if (again.response.status === 304 && again.data === undefined) notModifiedOnce = true;
      else if (again.response.status !== 200) fail(`If-None-Match: HTTP ${again.response.status}`);
    }
    const chosen = legal[turns++ % legal.length] ?? first;
    const answer = await submit(chosen, turn.version);
    if (answer.data === undefined) fail(`move: ${JSON.stringify(answer.error)}`);
    if (answer.data.version !== turn.version + 1) {
      fail(`the move answered version ${answer.data.version}, not ${turn.version + 1}`);
    }
  }

  // Once over: the view (for a screen's resynchronisation) and the feed by its cursor.
  const read = await client.GET("/api/v1/matches/{match_id}/view", { params: { path } });
  if (read.data === undefined) fail(`view: ${JSON.stringify(read.error)}`);
  const view: SeatView = read.data;
  const seen: Event[] = [];
  let after = 0;
  for (;;) {
    const page = await client.GET("/api/v1/matches/{match_id}/events", {
      params: { path, query: { after, wait: 0, limit: PAGE } },
    });
    if (page.data === undefined) fail(`feed: ${JSON.stringify(page.error)}`);
    seen.push(...page.data.events);
    after = page.data.next_after;
    if (!page.data.has_more) break;
  }
  const versions = seen.map((event) => event.version);
  const once = versions.every((version, index) => version === index + 1);
  if (!once || versions.length !== view.version) {
    fail(`the feed showed ${versions.length} events, not 1..${view.version} exactly once`);
  }
  if (view.status !== "finished" || !refusedOnce || !staleOnce || !notModifiedOnce) {
    fail(`ended ${view.status}, refused ${refusedOnce}, stale ${staleOnce}, ` +
      `304 ${notModifiedOnce}`);
  }
  const streamed = heard.flatMap((message) => (message.type === "action" ? [message.event] : []));
  if (JSON.stringify(streamed) !== JSON.stringify(seen)) {
    fail(`the stream reported ${streamed.length} events, the feed ${seen.length}`);
  }
  const results = heard.flatMap((message) =>
    message.type === "deal_ended" ? [message.result] : [],
  );
  const lastResult = results[results.length - 1];
  if (results.length !== DEALS || JSON.stringify(lastResult?.totals) !== JSON.stringify(view.totals)) {
    fail(`the stream's ${results.length} deal results do not end at totals ${JSON.stringify(view.totals)}`);
  }
  const last = heard[heard.length - 1];
  if (last?.type !== "end" || last.end.version !== view.version) {
    fail(`the stream did not end at version ${view.version}: ${JSON.stringify(last)}`);
  }
  console.log(
    `typescript client: ${DEALS} deals played from the stream alone (${turns} turns, one POST ` +
      `each), ${seen.length} events seen once each in the feed and the stream, totals ` +
      `${JSON.stringify(view.totals)}; the refused card and the stale version answered a ` +
      "Problem, the unchanged view 304",
  );
}

await main();
