// A rated match through the TypeScript client generated from openapi/schema.yaml: two people
// with named accounts and two computer players, each person playing their own seat with their
// own token; then each reads the rating it gave them and finds both on the week's leaderboard.
//
//   npm run generate && npm run build && node build/rated_match.js http://127.0.0.1:8000
import { randomBytes } from "node:crypto";

import createClient from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";

type Action = components["schemas"]["Action"];
type SeatView = components["schemas"]["SeatView"];
type Client = ReturnType<typeof createClient<paths>>;

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";

function fail(message: string): never {
  console.error(`typescript client (rated): ${message}`);
  process.exit(1);
}

async function signUp(name: string): Promise<{ username: string; client: Client }> {
  const anonymous = createClient<paths>({ baseUrl });
  const username = `${name}-${randomBytes(4).toString("hex")}`;
  const registered = await anonymous.POST("/api/v1/auth/register", {
    body: { username, password: randomBytes(16).toString("base64url"), display_name: name },
  });
  if (registered.data === undefined) fail(`register: ${JSON.stringify(registered.error)}`);
  const headers = { Authorization: `Token ${registered.data.token}` };
  return { username, client: createClient<paths>({ baseUrl, headers }) };
}

async function submit(client: Client, match_id: string, action: Action, version: number) {
  return client.POST("/api/v1/matches/{match_id}/actions", {
    params: { path: { match_id } }, body: { ...action, expected_version: version },
  });
}

async function main(): Promise<void> {
  const people = [await signUp("Ayse"), await signUp("Ali")];
  const [ayse, ali] = people;
  if (ayse === undefined || ali === undefined) fail("no people");
  const created = await ayse.client.POST("/api/v1/matches", {
    body: {
      game: "auction",
      deals: 1,
      rated: true,
      visibility: "public",
      seats: [
        { kind: "me" },
        { kind: "open" },
        { kind: "bot", bot_level: "easy" },
        { kind: "bot", bot_level: "medium" },
      ],
    },
  });
  if (created.data === undefined) fail(`create: ${JSON.stringify(created.error)}`);
  const match_id = created.data.id;
  const path = { match_id };
  const joined = await ali.client.POST("/api/v1/matches/{match_id}/join", {
    params: { path }, body: { seat: 1 },
  });
  if (joined.data === undefined) fail(`join: ${JSON.stringify(joined.error)}`);
  if (!joined.data.match.rated || joined.data.match.status !== "active") {
    fail(`not a rated match in play: ${joined.data.match.status}`);
  }
  let turn = 0;
  let view: SeatView;
  for (;;) {
    const views: SeatView[] = [];
    for (const person of people) {
      const read = await person.client.GET("/api/v1/matches/{match_id}/view", { params: { path } });
      if (read.data === undefined) fail(`view: ${JSON.stringify(read.error)}`);
      views.push(read.data);
    }
    const first = views[0];
    if (first === undefined) fail("no view");
    view = first;
    if (view.status !== "active") break;
    for (const [index, person] of people.entries()) {
      const mine = views[index];
      const deal = mine?.deal;
      if (mine === undefined || !deal || deal.to_act !== mine.seat) continue;
      const legal = deal.legal_actions.filter((action) => action.kind !== "redeal");
      const chosen = legal[turn++ % legal.length];
      if (chosen === undefined) fail("no legal action on my turn");
      const answer = await submit(person.client, match_id, chosen, mine.version);
      if (answer.data === undefined) fail(`move: ${JSON.stringify(answer.error)}`);
    }
  }
  if (view.status !== "finished" || !view.rated) {
    fail(`ended ${view.status}, rated ${view.rated}`);
  }
  // Each person's rating moved off 1500 ± 200, provisional after one match.
  const ratings = new Map<string, number>();
  for (const person of people) {
    const profile = await person.client.GET("/api/v1/players/{username}", {
      params: { path: { username: "me" } },
    });
    if (profile.data === undefined) fail(`profile: ${JSON.stringify(profile.error)}`);
    const rating = profile.data.games.find((game) => game.game === "auction")?.rating;
    if (profile.data.username !== person.username || !rating || rating.matches !== 1 ||
        !rating.provisional || rating.deviation >= 200) {
      fail(`${person.username}'s profile: ${JSON.stringify(profile.data)}`);
    }
    ratings.set(person.username, rating.rating);
  }
  // Both on the week's board of their game (the all-time board waits for established
  // ratings), with what the rated match won them.
  const board = await ayse.client.GET("/api/v1/leaderboards/{game}", {
    params: { path: { game: "auction" }, query: { season: "week", page_size: 100 } },
  });
  if (board.data === undefined) fail(`leaderboard: ${JSON.stringify(board.error)}`);
  for (const [username, rating] of ratings) {
    const entry = board.data.results.find((row) => row.player === username);
    if (!entry || entry.points !== rating - 1500 || entry.matches !== 1) {
      fail(`${username} on the week's board: ${JSON.stringify(entry)}`);
    }
  }
  console.log(
    `typescript client (rated): a rated match of two people finished, places ` +
      `${JSON.stringify(view.ranking)}; ratings ${JSON.stringify([...ratings])}, both on the ` +
      "week's leaderboard",
  );
}

await main();
