// The reference web client at /play/: a guest or an account plays in the browser on the
// generated TypeScript client (openapi-fetch over openapi/schema.yaml) and the live stream
// (clients/typescript/sse.ts). Routes live in the URL's hash, the token in localStorage, so a
// reload comes back to the same table: #/ the lobby, #/match/<id> a seat, #/watch/<id> a table
// watched.
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "../../clients/typescript/generated/schema.js";
import { follow, StreamError, type StreamMessage } from "../../clients/typescript/sse.js";
import { afterAction, withTurn } from "./advance.js";
import { h, mount } from "./dom.js";
import { language, ruleName, t, type Key } from "./i18n.js";
import { clockText, fillText, isSeatView, renderTable, type RematchAnswer, type TableState } from "./table.js";

type Schemas = components["schemas"];
type Game = Schemas["Game"];
type BotLevel = Schemas["BotLevel"];
type TableRules = Schemas["TableRules"];

const TOKEN = "batak.token";
const GAMES: Game[] = ["auction", "partnership", "spades"];
const LEVELS: BotLevel[] = ["easy", "medium", "hard", "expert"];
const GAME_NAMES: Record<Game, Key> = { auction: "auctionGame", partnership: "partnershipGame", spades: "spadesGame" };

const app = document.getElementById("app") as HTMLElement;
document.documentElement.lang = language;
const baseUrl = location.origin;

function headers(): Record<string, string> {
  const token = localStorage.getItem(TOKEN);
  return {
    "Accept-Language": navigator.language,
    ...(token === null ? {} : { Authorization: `Token ${token}` }),
  };
}

function api(): Client<paths> {
  return createClient<paths>({ baseUrl, headers: headers() });
}

/** A refusal's sentence (problem+json `detail`, in the person's language). */
function problemText(error: unknown): string {
  if (typeof error === "object" && error !== null && "detail" in error) return String(error.detail);
  return String(error);
}

function parseProblem(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function isStale(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "stale_version";
}

function go(hash: string): void {
  if (location.hash === hash) void route();
  else location.hash = hash;
}

function field(label: string, control: HTMLElement): HTMLElement {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

function select<T extends string>(name: string, options: readonly T[], label: (value: T) => string, value?: string): HTMLSelectElement {
  const element = h("select", { name }, ...options.map((option) =>
    h("option", { value: option, selected: option === value }, label(option)))) as HTMLSelectElement;
  return element;
}

function errorLine(): HTMLElement {
  return h("p", { class: "error", role: "alert" });
}

// Signing in

function renderSignIn(): void {
  const error = errorLine();
  const guest = h("form", { class: "panel", "aria-labelledby": "guest-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const name = (new FormData(event.target as HTMLFormElement).get("display_name") as string).trim();
    const answer = await api().POST("/api/v1/auth/guest", { body: name ? { display_name: name } : {} });
    if (answer.data === undefined) return void (error.textContent = problemText(answer.error));
    localStorage.setItem(TOKEN, answer.data.token);
    void route();
  } },
  h("h2", { id: "guest-title" }, t("playAsGuest")),
  field(t("name"), h("input", { name: "display_name", maxlength: 40, autocomplete: "nickname" })),
  h("button", { type: "submit" }, t("play")));
  const login = h("form", { class: "panel", "aria-labelledby": "login-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const answer = await api().POST("/api/v1/auth/token", {
      body: { username: String(form.get("username")), password: String(form.get("password")) },
    });
    if (answer.data === undefined) return void (error.textContent = problemText(answer.error));
    localStorage.setItem(TOKEN, answer.data.token);
    void route();
  } },
  h("h2", { id: "login-title" }, t("logIn")),
  field(t("username"), h("input", { name: "username", autocomplete: "username", required: true })),
  field(t("password"), h("input", { name: "password", type: "password", autocomplete: "current-password", required: true })),
  h("button", { type: "submit" }, t("logIn")));
  // An account of one's own: the name at the table, the user name and password to log in with.
  const register = h("form", { class: "panel", "aria-labelledby": "register-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const name = String(form.get("display_name")).trim();
    const answer = await api().POST("/api/v1/auth/register", {
      body: { username: String(form.get("username")), password: String(form.get("password")), ...(name ? { display_name: name } : {}) },
    });
    if (answer.data === undefined) return void (error.textContent = problemText(answer.error));
    localStorage.setItem(TOKEN, answer.data.token);
    void route();
  } },
  h("h2", { id: "register-title" }, t("register")),
  field(t("name"), h("input", { name: "display_name", maxlength: 64, autocomplete: "nickname" })),
  field(`${t("username")} (${t("usernameRule")})`, h("input", {
    name: "username", autocomplete: "username", required: true, minlength: 3, maxlength: 150, pattern: "[A-Za-z0-9_.@+\\-]{3,150}",
  })),
  field(`${t("password")} (${t("passwordRule")})`, h("input", {
    name: "password", type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 128,
  })),
  h("button", { type: "submit" }, t("register")));
  mount(app, h("header", {}, h("h1", {}, t("title"))), h("div", { class: "columns" }, guest, login, register), error);
}

// The lobby

// Each table rule's choices, as the schema names them (Direction, AllPass, TrumpLead, Scoring).
const RULE_CHOICES: Record<string, readonly string[]> = {
  direction: ["anticlockwise", "clockwise"],
  all_pass: ["redeal", "dealer_takes"],
  trump_lead: ["after_broken", "anytime"],
  scoring: ["standard", "bonus", "simple", "contract"],
};

/** The game's rules from its preset, after ``first`` (the hints, the same for every game). */
function rulesFieldset(presets: TableRules[], game: Game, first: HTMLElement): HTMLElement {
  const preset = presets.find((rules) => rules.game === game);
  const rows: HTMLElement[] = [first];
  for (const [name, value] of Object.entries(preset ?? {})) {
    const choices = RULE_CHOICES[name];
    // A rule the preset leaves unset (null) does not apply to this game.
    if (name === "game" || value === null) continue;
    if (typeof value === "boolean") {
      rows.push(h("label", { class: "check" }, h("input", { type: "checkbox", name: `rule.${name}`, checked: value }), ruleName(name)));
    } else if (typeof value === "number") {
      rows.push(field(ruleName(name), h("input", { type: "number", name: `rule.${name}`, value, min: 0, max: 13 })));
    } else if (choices !== undefined && typeof value === "string") {
      rows.push(field(ruleName(name), select(`rule.${name}`, choices, ruleName, value)));
    }
  }
  return h("details", { class: "rules" }, h("summary", {}, t("rules")), h("div", { class: "rule-grid" }, ...rows));
}

/** The table rules the form changed from the game's preset: only those are sent. */
function ruleOverrides(form: HTMLFormElement, preset: TableRules | undefined): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const input of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>("[name^='rule.']")) {
    const name = input.name.slice(5);
    const value = input instanceof HTMLSelectElement ? input.value
      : input.type === "checkbox" ? input.checked : Number(input.value);
    if (preset === undefined || (preset as Record<string, unknown>)[name] !== value) overrides[name] = value;
  }
  return overrides;
}

async function renderLobby(): Promise<void> {
  const client = api();
  const [me, lobby, presets] = await Promise.all([
    client.GET("/api/v1/me"),
    client.GET("/api/v1/lobby", { params: { query: { page_size: 20 } } }),
    client.GET("/api/v1/rules/presets"),
  ]);
  if (me.response.status === 401) {
    localStorage.removeItem(TOKEN);
    return renderSignIn();
  }
  const error = errorLine();
  const fail = (problem: unknown) => { error.textContent = problemText(problem); };
  const gameLabel = (game: Game) => t(GAME_NAMES[game]);
  const levelLabel = (level: BotLevel) => t(level);

  const quick = h("form", { class: "panel", "aria-labelledby": "quick-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const answer = await api().POST("/api/v1/quick-match", {
      body: { game: form.get("game") as Game, bot_level: form.get("bot_level") as BotLevel },
    });
    if (answer.data === undefined) return fail(answer.error);
    go(`#/match/${answer.data.match.id}`);
  } },
  h("h2", { id: "quick-title" }, t("quickMatch")),
  field(t("game"), select("game", GAMES, gameLabel)),
  field(t("level"), select("bot_level", LEVELS, levelLabel)),
  h("button", { type: "submit" }, t("quickMatch")));

  const rulePresets = presets.data ?? [];
  const gameSelect = select("game", GAMES, gameLabel);
  // Hints are the table's (createMatch's `hints`), not one of its rules, but are chosen with
  // them; kept as they are when the game changes.
  const hints = h("label", { class: "check" }, h("input", { type: "checkbox", name: "hints" }), t("hints"));
  let rules = rulesFieldset(rulePresets, "auction", hints);
  gameSelect.addEventListener("change", () => {
    const next = rulesFieldset(rulePresets, gameSelect.value as Game, hints);
    rules.replaceWith(next);
    rules = next;
  });
  const seatChoices = [1, 2, 3].map((seat) =>
    field(t("seatN", { n: seat + 1 }), select(`seat${seat}`, ["bot", "open"] as const, (kind) => t(kind === "bot" ? "computer" : "openSeat"))));
  const create = h("form", { class: "panel", id: "new-table", "aria-labelledby": "new-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const element = event.target as HTMLFormElement;
    const form = new FormData(element);
    const game = form.get("game") as Game;
    const level = form.get("bot_level") as BotLevel;
    const seats: Schemas["SeatSpecRequest"][] = [{ kind: "me" }];
    for (const seat of [1, 2, 3]) {
      seats.push(form.get(`seat${seat}`) === "open" ? { kind: "open" } : { kind: "bot", bot_level: level });
    }
    const answer = await api().POST("/api/v1/matches", {
      body: {
        game, seats, deals: Number(form.get("deals")),
        visibility: form.get("visibility") as Schemas["VisibilityEnum"],
        hints: form.get("hints") !== null,
        rules: ruleOverrides(element, rulePresets.find((preset) => preset.game === game)),
      },
    });
    if (answer.data === undefined) return fail(answer.error);
    go(`#/match/${answer.data.id}`);
  } },
  h("h2", { id: "new-title" }, t("newTable")),
  field(t("game"), gameSelect),
  field(t("level"), select("bot_level", LEVELS, levelLabel, "easy")),
  field(t("deals"), h("input", { type: "number", name: "deals", value: 4, min: 1, max: 52 })),
  ...seatChoices,
  field(t("visibility"), select("visibility", ["private", "public"] as const, (choice) => t(choice))),
  rules,
  h("button", { type: "submit" }, t("create")));

  const invitation = h("form", { class: "panel", "aria-labelledby": "invite-title", onsubmit: async (event: Event) => {
    event.preventDefault();
    const code = String(new FormData(event.target as HTMLFormElement).get("code")).trim();
    const answer = await api().POST("/api/v1/invitations/{code}/join", { params: { path: { code } } });
    if (answer.data === undefined) return fail(answer.error);
    go(`#/match/${answer.data.match.id}`);
  } },
  h("h2", { id: "invite-title" }, t("invitation")),
  field(t("code"), h("input", { name: "code", required: true, autocomplete: "off" })),
  h("button", { type: "submit" }, t("join")),
  );

  const watch = h("form", { class: "panel", "aria-labelledby": "watch-title", onsubmit: (event: Event) => {
    event.preventDefault();
    go(`#/watch/${String(new FormData(event.target as HTMLFormElement).get("match_id")).trim()}`);
  } },
  h("h2", { id: "watch-title" }, t("watch")),
  field(t("matchId"), h("input", { name: "match_id", required: true, autocomplete: "off" })),
  h("button", { type: "submit" }, t("watch")));

  const tables = lobby.data?.results ?? [];
  const list = h("section", { class: "panel", "aria-labelledby": "tables-title" },
    h("h2", { id: "tables-title" }, t("openTables")),
    tables.length === 0 ? h("p", {}, t("noTables")) : h("ul", { class: "tables" }, ...tables.map((table) =>
      h("li", {},
        h("span", {}, `${gameLabel(table.game)} · ${table.created_by} · ${t("seatsTaken", { n: table.seats_taken })}`),
        h("button", { type: "button", onclick: async () => {
          const answer = await api().POST("/api/v1/matches/{match_id}/join", { params: { path: { match_id: table.id } } });
          if (answer.data === undefined) return fail(answer.error);
          go(`#/match/${table.id}`);
        } }, t("join")),
        h("button", { type: "button", class: "secondary", onclick: () => go(`#/watch/${table.id}`) }, t("watch"))))),
    h("button", { type: "button", class: "secondary", onclick: () => void renderLobby() }, t("refresh")));

  mount(app,
    h("header", {},
      h("h1", {}, t("title")),
      h("span", { class: "who" }, me.data?.display_name ?? ""),
      h("button", { type: "button", class: "secondary", onclick: async () => {
        await api().POST("/api/v1/auth/logout");
        localStorage.removeItem(TOKEN);
        go("#/");
      } }, t("logOut"))),
    h("h2", { class: "visually-hidden" }, t("lobby")),
    error,
    h("div", { class: "columns" }, quick, create, invitation, watch, list));
}

// A table: a seat played, or a table watched

let leaveTable: (() => void) | undefined;

async function openTable(matchId: string, watching: boolean): Promise<void> {
  const controller = new AbortController();
  leaveTable = () => controller.abort();
  const state: TableState = {
    matchId, watching, view: undefined, etag: undefined, deals: [], estimate: undefined,
    notice: "", reconnecting: false, invitation: undefined,
    analyses: new Map(), openReplays: new Set(), hint: undefined, rematch: undefined, fillAt: undefined,
  };
  let acting = false;
  const draw = () => mount(app, renderTable(state, {
    act: async (submit) => {
      // One action at a time, until the table is redrawn from its answer: a tap on the old
      // drawing would send a move already made.
      if (acting) return;
      acting = true;
      app.setAttribute("aria-busy", "true");
      try {
        let answer: Awaited<ReturnType<typeof submit>>;
        try {
          answer = await submit(api());
        } catch {
          // No answer (the network): whether the move was made, the view will say once it is
          // back.
          answer = {};
          void recover();
        }
        if (answer.error !== undefined) {
          // A version gone stale (another seat moved first) needs no words: the new view shows it.
          state.notice = isStale(answer.error) ? "" : problemText(answer.error);
          await refresh().catch(() => undefined);
        } else {
          state.notice = "";
          // The view right after the move; the stream carries it on (it may have already).
          if (answer.data !== undefined && answer.data.version >= (state.view?.version ?? 0)) {
            state.view = answer.data;
            state.etag = undefined;
            draw();
          }
        }
      } finally {
        acting = false;
        app.removeAttribute("aria-busy");
      }
      draw(); // the notice, even when the view is unchanged
    },
    back: () => go("#/"),
    hint: async () => {
      const answer = await api().GET("/api/v1/matches/{match_id}/hint", { params: { path: { match_id: matchId } } });
      state.hint = answer.data;
      state.notice = answer.data === undefined ? problemText(answer.error) : "";
      draw();
    },
    rematch: async (answer: RematchAnswer) => {
      const params = { params: { path: { match_id: matchId } } };
      const client = api();
      const reply = answer === "offer" ? await client.POST("/api/v1/matches/{match_id}/rematch", params)
        : answer === "accept" ? await client.POST("/api/v1/matches/{match_id}/rematch/accept", params)
          : await client.POST("/api/v1/matches/{match_id}/rematch/decline", params);
      if (reply.data !== undefined) return showRematch(reply.data);
      // Overtaken (someone else answered first, the offer expired): the offer as it is now.
      state.notice = problemText(reply.error);
      await readRematch();
      draw();
    },
  }));

  // Playing the finished match again: the offer as read, answered or announced by the stream;
  // a started rematch is opened at once, as everyone at the table accepted it.
  const showRematch = (offer: Schemas["RematchOffer"]): void => {
    state.rematch = offer;
    if (offer.status === "accepted" && offer.new_match_id !== null) return go(`#/match/${offer.new_match_id}`);
    draw();
  };
  const readRematch = async (): Promise<void> => {
    const answer = await api().GET("/api/v1/matches/{match_id}/rematch", { params: { path: { match_id: matchId } } });
    if (answer.data !== undefined) state.rematch = answer.data;
  };

  // Each scored deal's analysis: asked once the deal is in the replays, again after the 202's
  // Retry-After until it is done, or at once when the stream says it is ready.
  const asked = new Set<number>();
  const retries = new Map<number, ReturnType<typeof setTimeout>>();
  controller.signal.addEventListener("abort", () => retries.forEach(clearTimeout));
  const readAnalysis = async (sequence: number): Promise<void> => {
    clearTimeout(retries.get(sequence));
    retries.delete(sequence);
    const answer = await api().GET("/api/v1/matches/{match_id}/deals/{sequence}/analysis", {
      params: { path: { match_id: matchId, sequence } },
    }).catch(() => undefined);
    if (controller.signal.aborted) return;
    const before = state.analyses.get(sequence);
    if (answer?.data !== undefined && "moves" in answer.data) {
      state.analyses.set(sequence, answer.data);
    } else if (answer === undefined || [202, 429].includes(answer.response.status)) {
      // Not ready (or no answer, or too many requests): asked again after the wait asked for.
      state.analyses.set(sequence, "pending");
      const wait = Number(answer?.response.headers.get("Retry-After") ?? 5);
      retries.set(sequence, setTimeout(() => void readAnalysis(sequence), wait * 1000));
    } else {
      state.analyses.set(sequence, "none"); // not analysed, or not this reader's to read
    }
    if (state.analyses.get(sequence) !== before) draw();
  };

  // Read the view (a resynchronisation: what the stream cannot tell by itself, or a spectator's
  // table), sending its ETag: an unchanged view is a 304 and no body.
  // Redrawn only when the view changed: a redraw replaces the buttons under a finger.
  let reading = false;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (reading) return void (again = true);
    reading = true;
    let changed = false;
    try {
      do {
        again = false;
        changed = (await readView()) || changed;
      } while (again);
    } finally {
      reading = false;
    }
    if (changed && !controller.signal.aborted) draw();
  };
  const readView = async (): Promise<boolean> => {
    const client = api();
    const path = { match_id: matchId };
    const header = state.etag === undefined ? {} : { "If-None-Match": state.etag };
    const answer = watching
      ? await client.GET("/api/v1/matches/{match_id}/spectate", { params: { path, header } })
      : await client.GET("/api/v1/matches/{match_id}/view", { params: { path, header } });
    const wasReconnecting = state.reconnecting;
    state.reconnecting = false; // the server answered
    if (answer.response.status === 304) return wasReconnecting;
    if (answer.data === undefined) {
      state.notice = problemText(answer.error);
      return true;
    }
    state.view = answer.data;
    state.etag = answer.response.headers.get("ETag") ?? undefined;
    const view = answer.data;
    const endedDeals = view.previous_deal === null ? 0 : view.previous_deal.sequence;
    if (state.deals.length !== endedDeals || view.status !== "active") {
      const deals = await client.GET("/api/v1/matches/{match_id}/deals", { params: { path } });
      if (deals.data !== undefined) state.deals = deals.data;
      for (const record of state.deals) {
        if (record.scores !== null && !asked.has(record.sequence)) {
          asked.add(record.sequence);
          void readAnalysis(record.sequence);
        }
      }
    }
    // A finished match's seat view carries its rematch offer (null: none), whatever became
    // of it; the stream tells what changes after, and *Play again* refused reads it again.
    if (view.status === "finished" && isSeatView(view) && state.rematch === undefined) {
      state.rematch = view.rematch;
    }
    // Only a private table has an invitation code, and only its creator may read it: the client
    // puts its creator in seat 0, and anyone else would get a refusal and no code.
    if (view.status === "waiting" && isSeatView(view) && view.seat === 0 && view.visibility === "private"
        && state.invitation === undefined) {
      const invitation = await client.GET("/api/v1/matches/{match_id}/invitation", { params: { path } });
      state.invitation = invitation.data?.code ?? "";
    }
    // A quick match's table waiting for people says when computer players take its empty seats.
    if (view.status === "waiting" && state.fillAt === undefined) {
      const match = await client.GET("/api/v1/matches/{match_id}", { params: { path } });
      state.fillAt = match.data?.fill_with_bots_at ?? null;
    }
    const deal = view.deal;
    if (!watching && deal !== null && "hand" in deal && deal.phase === "auction" && view.game !== "spades"
        && state.estimate?.sequence !== deal.sequence) {
      const estimate = await client.GET("/api/v1/matches/{match_id}/bid-estimate", { params: { path } });
      if (estimate.data !== undefined) state.estimate = { sequence: deal.sequence, value: estimate.data };
    }
    return true;
  };

  // A seat's table follows its stream alone: another seat's move and its own turn carry the
  // view forward (advance.ts), and a move of its own is answered with the view. Only what the
  // view cannot tell by itself reads it again. Returns whether the message was taken so.
  const pushed = (message: StreamMessage): boolean => {
    const view = state.view;
    if (watching || view === undefined || !("seat" in view)) return false;
    let next: Schemas["SeatView"] | undefined = view;
    if (message.type === "action") {
      if (message.version <= view.version) return true; // known: a move of its own, answered
      next = afterAction(view, message.event);
    } else if (message.type === "turn") {
      next = withTurn(view, message.turn);
    } else if (message.type === "clock") {
      next = { ...view, turn_deadline: message.clock.deadline };
    } else if (message.type === "hand") {
      return view.deal !== null && view.deal.sequence === message.hand.deal_sequence;
    } else if (message.type === "seats") {
      // The seats as the view has them already (the stream tells them as it starts): nothing
      // to read.
      return message.seats.seats.every((told) => {
        const seat = view.seats[told.seat];
        return seat !== undefined && told.open === (seat.kind === "open") && told.ready === seat.ready
          && told.autopilot === seat.autopilot && told.left === (seat.left_at !== null);
      });
    } else {
      return false;
    }
    if (next === undefined) return false;
    state.view = next;
    state.etag = undefined;
    if (!acting) draw();
    return true;
  };

  // Reads the view once a second until the server answers again.
  const recover = async (): Promise<void> => {
    state.reconnecting = true;
    draw();
    while (state.reconnecting && !controller.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await refresh().catch(() => undefined);
    }
  };

  await refresh();
  // The clocks' second hand: only the countdowns change, so only they are redrawn.
  const ticking = setInterval(() => {
    const clock = document.getElementById("clock");
    const deadline = state.view?.turn_deadline;
    if (clock !== null && deadline) clock.textContent = clockText(deadline);
    const fill = document.getElementById("fill");
    if (fill !== null && state.fillAt) fill.textContent = fillText(state.fillAt);
  }, 1000);
  controller.signal.addEventListener("abort", () => clearInterval(ticking));

  // Follow the stream; after a dropped connection (sse.ts resumes a closed one itself with
  // Last-Event-ID, a network error ends it) start again from the version last seen. It stays
  // open a while after the end (and while a rematch offer is open) for the offer's news; a
  // finished table opened with no offer known follows it once too: if an offer is open, the
  // stream tells it at once (else the server answers 204, nothing to tell).
  const following = (view: TableState["view"]): boolean => view !== undefined
    && (["waiting", "active"].includes(view.status) || state.rematch?.status === "open"
      || (view.status === "finished" && !watching && state.rematch === null));
  while (!controller.signal.aborted && following(state.view)) {
    try {
      const stream = follow(baseUrl, matchId, {
        headers: headers(), after: state.view?.version, afterEnd: true, signal: controller.signal,
      });
      for await (const message of stream) {
        if (message.type === "analysis_ready") void readAnalysis(message.ready.deal_sequence);
        else if (message.type === "rematch_offered") showRematch(message.offer);
        else if (message.type === "rematch_started") return go(`#/match/${message.started.new_match_id}`);
        else if (!pushed(message)) await refresh();
      }
      await refresh();
      break;
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof StreamError && error.status < 500) {
        // Refused, not dropped (no seat here any more, a private match): trying again won't help.
        state.notice = problemText(parseProblem(error.body));
        draw();
        return;
      }
      await recover();
    }
  }
}

async function route(): Promise<void> {
  leaveTable?.();
  leaveTable = undefined;
  if (localStorage.getItem(TOKEN) === null) return renderSignIn();
  const [, kind, id] = location.hash.match(/^#\/(match|watch)\/([0-9a-f-]+)$/) ?? [];
  if (kind !== undefined && id !== undefined) return openTable(id, kind === "watch");
  return renderLobby();
}

window.addEventListener("hashchange", () => void route());
void route();
