// A table drawn from one seat's view (or a watcher's), laid out as people sit at a table at
// every screen size: one's own seat at the bottom, the next on the right, the partner across,
// the trick in the middle with each card in front of its player; the hand below it with its
// legal cards raised, the calls the seat may make, the clocks, who is there, the score sheet
// and, once a deal ends, its replay with its analysis; a hint on request at a table for
// learners; once the match is over, playing it again.
import type { Client } from "openapi-fetch";

import type { components, paths } from "../../clients/typescript/generated/schema.js";
import { cardFace, cardName, isRed, sortHand, suitName, SYMBOLS, type Card, type Suit } from "./cards.js";
import { h } from "./dom.js";
import { language, t, type Key } from "./i18n.js";

type Schemas = components["schemas"];
type SeatView = Schemas["SeatView"];
type SpectatorView = Schemas["SpectatorView"];
type Trick = Schemas["Trick"];
type Action = Schemas["Action"];
type DealAnalysis = Schemas["DealAnalysis"];
type MoveAnalysis = Schemas["MoveAnalysis"];
type Mark = Schemas["MarkEnum"];

/** A deal's analysis as far as the client knows: asked and not ready yet, none to be had (the
 * service did not analyse it, or this reader may not read it), or done. */
export type AnalysisState = "pending" | "none" | DealAnalysis;

export interface TableState {
  matchId: string;
  watching: boolean;
  view: SeatView | SpectatorView | undefined;
  etag: string | undefined;
  deals: Schemas["DealRecord"][];
  estimate: { sequence: number; value: Schemas["BidEstimate"] } | undefined;
  invitation: string | undefined;
  notice: string;
  reconnecting: boolean;
  analyses: Map<number, AnalysisState>; // by the deal's sequence
  openReplays: Set<number>; // the replays opened, kept open across redraws
  hint: Schemas["Hint"] | undefined; // shown while the view is at the hint's version
  rematch: Schemas["RematchOffer"] | null | undefined; // null: none known; undefined: not read
  // When computer players take a waiting quick-match table's open seats (getMatch's
  // `fill_with_bots_at`); null: never; undefined: not read.
  fillAt: string | null | undefined;
}

export type RematchAnswer = "offer" | "accept" | "decline";

type Answer = { data?: SeatView; error?: unknown };

export interface TableHandlers {
  act: (submit: (client: Client<paths>) => Promise<Answer>) => Promise<void>;
  back: () => void;
  hint: () => Promise<void>;
  rematch: (answer: RematchAnswer) => Promise<void>;
}

export function isSeatView(view: SeatView | SpectatorView): view is SeatView {
  return "seat" in view;
}

/** Playing the finished match again, for a person still seated: offered (the offerer accepts
 * by offering), answered, waited for, declined. A rematch that starts while the table is open
 * is opened by the caller; one found started (a reload) is a link. */
function rematchPanel(offer: TableState["rematch"], view: SeatView, names: string[],
  handlers: TableHandlers): HTMLElement | null {
  if (offer === undefined || view.seats[view.seat]?.left_at != null) return null;
  const button = (answer: RematchAnswer, label: Key, secondary = false) => h("button", {
    type: "button", "data-key": `rematch-${answer}`, class: secondary ? "secondary" : "",
    onclick: () => void handlers.rematch(answer),
  }, t(label));
  if (offer === null || offer.status === "expired") {
    return h("p", { class: "rematch", id: "rematch" }, button("offer", "playAgain"));
  }
  if (offer.status === "declined") return h("p", { class: "rematch muted", id: "rematch" }, t("rematchDeclined"));
  if (offer.status === "accepted") {
    return offer.new_match_id === null ? null
      : h("p", { class: "rematch", id: "rematch" }, h("a", { href: `#/match/${offer.new_match_id}` }, t("openRematch")));
  }
  const mine = offer.seats.find((seat) => seat.seat === view.seat);
  const offered = t("rematchOffered", { name: names[offer.offered_by] ?? "" });
  return mine?.answer == null
    ? h("p", { class: "rematch", id: "rematch" }, offered, " ", button("accept", "acceptRematch"), " ",
      button("decline", "declineRematch", true))
    : h("p", { class: "rematch", id: "rematch", role: "status" }, t("rematchWaiting"));
}

function submitAction(matchId: string, action: Action, version: number) {
  return (client: Client<paths>): Promise<Answer> =>
    client.POST("/api/v1/matches/{match_id}/actions", {
      params: { path: { match_id: matchId } }, body: { ...action, expected_version: version },
    });
}

/** One key per action: "bid-5", "trump-S", "play-QC", "pass-". */
function actionKey(action: Action): string {
  return `${action.kind}-${"tricks" in action ? action.tricks : "suit" in action ? action.suit : "card" in action ? action.card : ""}`;
}

function actionLabel(action: Action): string {
  switch (action.kind) {
    case "bid": return t("bid", { n: action.tricks });
    case "pass": return t("pass");
    case "trump": return `${t("chooseTrump")} ${SYMBOLS[action.suit]} ${suitName(action.suit)}`;
    case "announce": return t("announce", { n: action.tricks });
    case "redeal": return t("redeal");
    case "play": return cardName(action.card);
  }
}

const ACTION_KINDS: ReadonlySet<string> = new Set(["bid", "pass", "trump", "announce", "play", "redeal"]);

/** The analysis gives its moves as the deal's log holds them: the same shape as an Action. */
function isAction(action: Record<string, unknown>): action is Action {
  return typeof action.kind === "string" && ACTION_KINDS.has(action.kind);
}

// The marks as chess annotates moves: inaccuracy ?!, mistake ?, blunder ??.
const MARK_SYMBOLS: Record<Mark, string> = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const MARK_NAMES: Record<Mark, Key> = { inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder" };
const points = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });

/** "mistake: 12.5 points given up; better: ace of clubs". */
function markLine(move: MoveAnalysis & { mark: Mark }): string {
  const best = move.seen?.best;
  return t("markLine", {
    mark: t(MARK_NAMES[move.mark]), points: points.format(move.seen?.points_cost ?? 0),
    best: best !== undefined && isAction(best) ? actionLabel(best) : "",
  });
}

function isMarked(move: MoveAnalysis | undefined): move is MoveAnalysis & { mark: Mark } {
  return move?.mark != null;
}

/** The analysis below a replay: each player's points given up and marks, and the calls marked
 * (the cards are marked in the tricks). */
function analysisSection(analysis: AnalysisState | undefined, names: string[]): HTMLElement | null {
  if (analysis === undefined || analysis === "none") return null;
  if (analysis === "pending") return h("p", { class: "muted analysing" }, t("analysing"));
  const calls = analysis.moves.filter((move) => move.action.kind !== "play").filter(isMarked);
  return h("section", { class: "analysis" },
    h("h3", {}, t("analysis")),
    analysis.partial ? h("p", { class: "muted" }, t("analysisPartial")) : null,
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("player")), h("th", { scope: "col" }, t("pointsGivenUp")),
        ...(["inaccuracy", "mistake", "blunder"] as const).map((mark) =>
          h("th", { scope: "col" }, h("abbr", { title: t(MARK_NAMES[mark]) }, MARK_SYMBOLS[mark]))))),
      h("tbody", {}, ...analysis.players.map((player) => h("tr", { "data-seat": player.seat },
        h("th", { scope: "row" }, names[player.seat] ?? ""),
        h("td", {}, points.format(player.points_given_up)),
        h("td", {}, player.inaccuracies), h("td", {}, player.mistakes), h("td", {}, player.blunders))))),
    calls.length === 0 ? null : h("ul", { class: "marked-calls" }, ...calls.map((move) =>
      h("li", { class: `marked ${move.mark}` }, `${names[move.seat] ?? ""}: `,
        isAction(move.action) ? actionLabel(move.action) : "", ` ${MARK_SYMBOLS[move.mark]} — ${markLine(move)}`))));
}

/** An ended deal's replay: the hands as dealt, every trick with its winner and, once analysed,
 * each card's mark and the points it gave up. */
function replay(state: TableState, record: Schemas["DealRecord"], names: string[]): HTMLElement {
  const analysis = state.analyses.get(record.sequence);
  const cardMoves = new Map<string, MoveAnalysis>();
  if (typeof analysis === "object") {
    for (const move of analysis.moves) {
      if (move.action.kind === "play" && typeof move.action.card === "string") cardMoves.set(move.action.card, move);
    }
  }
  const sequence = record.sequence;
  return h("details", {
    open: state.openReplays.has(sequence), "data-sequence": sequence,
    ontoggle: (event: Event) => {
      if ((event.target as HTMLDetailsElement).open) state.openReplays.add(sequence);
      else state.openReplays.delete(sequence);
    },
  },
  h("summary", {}, t("replay", { n: record.number })),
  h("h3", {}, t("dealt")),
  // A deal set's table, until the set closes, shows only the reader's own hand (the others are null).
  h("ul", { class: "dealt" }, ...record.hands.map((cards, seat) => cards === null ? null : h("li", {}, h("span", { class: "seat-name" }, names[seat] ?? ""),
    ...sortHand(cards).map((card) => cardFaceElement(card, "span", { "aria-label": cardName(card) }))))),
  h("ol", { class: "tricks" }, ...record.tricks.map((trick) => h("li", {},
    ...trick.cards.map((played) => {
      const move = cardMoves.get(played.card);
      const label = `${names[played.seat] ?? ""}: ${cardName(played.card)}`;
      const card = cardFaceElement(played.card, "span", {
        class: `card${isRed(played.card) ? " red" : ""}${played.seat === trick.winner ? " winner" : ""}`,
        "aria-label": isMarked(move) ? `${label}, ${markLine(move)}` : label,
      });
      return isMarked(move)
        ? h("span", { class: `played marked ${move.mark}` }, card,
          h("span", { class: "mark", "aria-hidden": "true" }, `${MARK_SYMBOLS[move.mark]} −${points.format(move.seen?.points_cost ?? 0)}`))
        : card;
    })))),
  analysisSection(analysis, names));
}

function cardFaceElement(card: Card, tag = "span", attributes: Record<string, string | boolean | EventListener> = {}): HTMLElement {
  // A card that is not a button is a picture with its name (the face alone reads "A♣").
  const picture = tag === "span" && "aria-label" in attributes ? { role: "img" } : {};
  return h(tag, { class: `card${isRed(card) ? " red" : ""}`, "data-card": card, ...picture, ...attributes }, cardFace(card));
}

/** "Time left: 12 s", to the turn's deadline. */
export function clockText(deadline: string): string {
  return t("clock", { s: Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000)) });
}

/** "Computer players take the empty seats in 42 s", to a quick match's `fill_with_bots_at`. */
export function fillText(fillAt: string): string {
  const seconds = Math.ceil((Date.parse(fillAt) - Date.now()) / 1000);
  return seconds > 0 ? t("fillIn", { s: seconds }) : t("fillNow");
}

/** A trick as a list: each card after its player's name (the last trick, beside the table). */
function trickList(trick: Trick | null, names: string[], id: string, title: string): HTMLElement {
  return h("section", { class: "trick", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    trick === null || trick.cards.length === 0
      ? h("p", { class: "muted" }, t("none"))
      : h("ol", {}, ...trick.cards.map((played) =>
        h("li", { class: played.seat === trick.winner ? "winner" : undefined },
          h("span", { class: "seat-name" }, names[played.seat] ?? ""),
          cardFaceElement(played.card, "span", { "aria-label": cardName(played.card) })))));
}

/** A trick on the table: each card in front of the seat that played it (`place`: 0 one's own,
 * at the bottom, then 1 right, 2 across, 3 left), the player's name said to screen readers. A
 * trick already won (`done`) is shown under its title, "Last trick", until the next card is led. */
function trickOnTable(trick: Trick, names: string[], place: (seat: number) => number, id: string,
  title: string, done: boolean): HTMLElement {
  return h("section", { class: `trick on-table${done ? " done" : ""}`, id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, class: done ? "caption" : "visually-hidden" }, title),
    h("ol", {}, ...trick.cards.map((played) =>
      h("li", { class: `at-${place(played.seat)}${played.seat === trick.winner ? " winner" : ""}`, "data-seat": played.seat },
        h("span", { class: "visually-hidden" }, `${names[played.seat] ?? ""}: `),
        cardFaceElement(played.card, "span", { "aria-label": cardName(played.card) })))));
}

export function renderTable(state: TableState, handlers: TableHandlers): HTMLElement {
  const view = state.view;
  const back = h("button", { type: "button", class: "secondary", "data-key": "back", onclick: handlers.back }, t("back"));
  if (view === undefined) {
    return h("div", { class: "table-page" }, h("p", { role: "alert" }, state.notice), back);
  }
  const mine = isSeatView(view) ? view.seat : 0;
  const names = view.seats.map((seat) => seat.index === mine && isSeatView(view) ? `${seat.display_name} (${t("you")})` : seat.display_name);
  // Where each seat sits as seen from one's own, at the bottom (a watcher sees from seat 0):
  // 1 on the right, 2 across (the partner), 3 on the left. Seats are numbered anticlockwise
  // round the table, so the seat after one's own plays next under the default anticlockwise
  // direction ("to the right", as Batak is played in Turkey) and sits on the right; under the
  // clockwise rule the one on the left plays next. Either way everyone sits where they are.
  const place = (seat: number): number => (seat - mine + 4) % 4;
  const deal = view.deal;
  const hand = deal !== null && "hand" in deal ? deal : undefined;
  const legal = hand?.legal_actions ?? [];
  const legalCards = new Set<string>(hand?.legal_cards ?? []);
  const myTurn = hand !== undefined && hand.to_act === mine;
  const waiting = view.status === "waiting";

  let status: string;
  if (waiting) status = t("waiting");
  else if (view.status === "finished") status = t("over");
  else if (view.status === "cancelled" || view.status === "abandoned") status = t(`status_${view.status}`);
  else if (myTurn) status = t("yourTurn");
  else status = deal?.to_act != null ? t("toPlay", { name: names[deal.to_act] ?? "" }) : "";

  const seatItem = (seat: Schemas["Seat"]): HTMLElement => {
    const open = seat.kind === "open";
    const bid = deal?.declarer === seat.index && deal.bid !== null ? t("contract", { name: "", bid: deal.bid }).trim() : "";
    const announced = deal?.announcements[seat.index];
    // During the auction each seat shows its last call, as it was said at the table.
    const call = deal?.phase === "auction" ? deal.auction.filter((made) => made.seat === seat.index).pop() : undefined;
    return h("li", { class: `seat pos-${place(seat.index)}${deal?.to_act === seat.index ? " to-act" : ""}${open ? " open" : ""}`, "data-seat": seat.index },
      h("strong", { class: "name" }, open ? t("emptySeat") : names[seat.index] ?? ""),
      open ? h("span", { class: "muted" }, t("waitingForPlayer")) : null,
      seat.kind === "bot" && seat.bot_level !== null ? h("span", { class: "muted" }, t(seat.bot_level)) : null,
      seat.kind === "person" ? h("span", { class: `presence ${seat.connected ? "on" : "off"}` }, seat.connected ? t("online") : t("offline")) : null,
      seat.left_at !== null ? h("span", { class: "stand-in" }, t("standIn"))
        : seat.autopilot ? h("span", { class: "stand-in" }, t("autopilot")) : null,
      deal ? h("span", { class: "muted" }, `${t("tricks", { n: deal.tricks_won[seat.index] ?? 0 })} · ${t("cardsLeft", { n: deal.hand_sizes[seat.index] ?? 0 })}`) : null,
      call ? h("span", { class: "badge call" }, call.bid === null ? t("pass") : t("bid", { n: call.bid })) : null,
      bid ? h("span", { class: "badge" }, bid) : null,
      announced != null ? h("span", { class: "badge" }, t("announce", { n: announced })) : null,
      // Nothing is scored before the match starts: an empty or waiting seat has no total.
      open || waiting ? null : h("span", { class: "total" }, `${t("total")}: ${view.totals[seat.index] ?? 0}`));
  };
  const seats = h("ul", { class: "seats", "aria-label": t("seats") }, ...view.seats.map(seatItem));

  // Spades are always trump in Koz Maça, named or not yet (while the seats announce).
  const trump = (deal?.trump as Suit | null | undefined) ?? (view.game === "spades" ? "S" : null);
  const contract = deal === null ? null : h("p", { class: "contract" },
    deal.declarer !== null && deal.bid !== null ? `${t("contract", { name: names[deal.declarer] ?? "", bid: deal.bid })} · ` : "",
    trump !== null ? t("trumpIs", { suit: `${SYMBOLS[trump]} ${suitName(trump)}` }) : t("noTrump"));
  const redealAsked = deal?.redeal_requested_by != null ? h("p", {}, t("redealAsked", { name: names[deal.redeal_requested_by] ?? "" })) : null;
  const auction = deal !== null && deal.auction.length > 0 ? h("p", { class: "auction" }, `${t("auction")}: `,
    deal.auction.map((call) => `${names[call.seat] ?? ""} ${call.bid === null ? t("pass") : call.bid}`).join(" · ")) : null;

  // The middle of the table: the trick in play; once a trick is won, that trick (titled "Last
  // trick") until the next card is led, so its last card is seen; while the table waits for
  // people, when computer players take the empty seats.
  const current = deal?.current_trick ?? null;
  const lastTrick = deal?.last_trick ?? view.previous_deal?.last_trick ?? null;
  const wonTrick = current === null || current.cards.length === 0
    ? (deal === null ? view.previous_deal?.last_trick ?? null : deal.phase === "play" ? deal.last_trick : null)
    : null;
  const wonShown = wonTrick !== null && wonTrick.cards.length > 0;
  const centre = h("div", { class: "centre" },
    waiting && state.fillAt ? h("p", { class: "fill", id: "fill" }, fillText(state.fillAt)) : null,
    current !== null && current.cards.length > 0
      ? trickOnTable(current, names, place, "current-trick", t("trick"), false)
      : wonShown ? trickOnTable(wonTrick, names, place, "won-trick", t("lastTrick"), true) : null);
  const board = h("section", { class: "board", "aria-label": t("table") },
    deal === null ? null : h("div", { class: "table-info" }, contract, redealAsked),
    seats, centre);

  const version = view.version;
  // A hint holds for the view it was asked for: any move since makes it stale.
  const hint = state.hint !== undefined && state.hint.version === version && myTurn ? state.hint : undefined;
  const hinted = (action: Action): boolean => hint !== undefined && actionKey(hint.action) === actionKey(action);
  const calls = legal.filter((action) => action.kind !== "play");
  // Bids and announcements are numbers after their label ("Your bid 4 5 6 … Pass"): fourteen
  // buttons of "Announce n" would not fit a phone's screen above the hand.
  const isNumber = (action: Action): boolean => action.kind === "bid" || action.kind === "announce";
  const numbered = calls.filter(isNumber);
  const callButton = (action: Action) => {
    const number = isNumber(action);
    const suggested = hinted(action);
    return h("button", {
      type: "button", class: `action ${action.kind}${suggested ? " hinted" : ""}`,
      "data-key": actionKey(action),
      "aria-label": number ? `${actionLabel(action)}${suggested ? `, ${t("suggested")}` : ""}` : undefined,
      onclick: () => void handlers.act(submitAction(state.matchId, action, version)),
    }, "tricks" in action && number ? action.tricks : actionLabel(action),
    suggested && !number ? h("span", { class: "visually-hidden" }, `, ${t("suggested")}`) : null);
  };
  const actions = calls.length === 0 ? null : h("div", { class: "actions", role: "group", "aria-label": t("yourTurn") },
    numbered.length === 0 ? null
      : h("span", { class: "call-label", "aria-hidden": "true" }, t(numbered[0]?.kind === "bid" ? "yourBid" : "yourAnnouncement")),
    ...numbered.map(callButton),
    ...calls.filter((action) => !isNumber(action)).map(callButton));
  const hintBar = !isSeatView(view) || !view.hints || !myTurn ? null : h("section", { class: "hint", "aria-labelledby": "hint-button" },
    h("button", { type: "button", class: "secondary", id: "hint-button", "data-key": "hint", onclick: () => void handlers.hint() }, t("hint")),
    hint === undefined ? null : h("p", { id: "hint-text", role: "status" },
      h("strong", {}, t("hintSuggests", { action: actionLabel(hint.action) })), ` ${hint.reason}`));

  const estimate = state.estimate !== undefined && hand?.phase === "auction" && state.estimate.sequence === hand.sequence
    ? h("section", { class: "estimate", "aria-labelledby": "estimate-title" },
      h("h2", { id: "estimate-title" }, t("estimate")),
      h("ul", {}, ...state.estimate.value.estimates.map((line) =>
        h("li", { class: line.trump === state.estimate?.value.best_trump ? "best" : undefined },
          t("estimateLine", { suit: `${SYMBOLS[line.trump]} ${suitName(line.trump)}`, n: line.tricks })))))
    : null;

  const cardButton = (card: Card) => {
    const playable = legalCards.has(card);
    const suggested = hinted({ kind: "play", card });
    return cardFaceElement(card, "button", {
      type: "button", class: `card${isRed(card) ? " red" : ""}${playable ? " playable" : ""}${suggested ? " hinted" : ""}`,
      "data-key": `card-${card}`,
      "aria-label": `${cardName(card)}, ${playable ? t("playable") : t("notPlayable")}${suggested ? `, ${t("suggested")}` : ""}`,
      onclick: () => void handlers.act(submitAction(state.matchId, { kind: "play", card }, version)),
    });
  };
  const handRow = hand === undefined ? null : h("section", { class: "hand", id: "hand", "aria-labelledby": "hand-title" },
    h("h2", { id: "hand-title" }, t("hand")),
    h("div", { class: "cards" }, ...sortHand(hand.hand).map(cardButton)));
  const dummy = deal?.dummy_hand ? h("section", { class: "hand dummy", "aria-labelledby": "dummy-title" },
    h("h2", { id: "dummy-title" }, `${t("dummy")}: ${names[deal.dummy ?? 0] ?? ""}`),
    h("div", { class: "cards" }, ...sortHand(deal.dummy_hand).map((card) =>
      hand !== undefined && hand.to_act === mine && hand.turn === deal.dummy ? cardButton(card) : cardFaceElement(card, "span", { "aria-label": cardName(card) })))) : null;

  // A seat's name, or that it is empty (a quick match's table waiting for people), heads its
  // column.
  const sheet = state.deals.filter((record) => record.scores !== null);
  const openSeat = (seat: number): boolean => view.seats[seat]?.kind === "open";
  const scoreSheet = h("section", { class: "sheet", "aria-labelledby": "sheet-title" },
    h("h2", { id: "sheet-title" }, t("scoreSheet")),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("deal")), ...view.seats.map((seat) =>
        h("th", { scope: "col", class: openSeat(seat.index) ? "open muted" : undefined }, openSeat(seat.index) ? t("emptySeat") : names[seat.index] ?? "")))),
      h("tbody", {}, ...sheet.map((record) => h("tr", {}, h("th", { scope: "row" }, record.number),
        ...(record.scores ?? []).map((points, seat) => h("td", { class: record.outcomes?.[seat] ?? "" }, points))))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("total")), ...view.totals.map((points, seat) =>
        h("td", {}, openSeat(seat) ? "–" : points))))));

  const result = view.ranking === null ? null : h("section", { class: "result", id: "result", "aria-labelledby": "result-title" },
    h("h2", { id: "result-title" }, t("result")),
    h("ol", { class: "places" }, ...view.seats.map((seat) => seat.index)
      .sort((a, b) => (view.ranking?.[a] ?? 0) - (view.ranking?.[b] ?? 0))
      .map((seat) => h("li", {}, t("place", { n: view.ranking?.[seat] ?? "", name: names[seat] ?? "", points: view.totals[seat] ?? 0 })))),
    isSeatView(view) && view.status === "finished" ? rematchPanel(state.rematch, view, names, handlers) : null);

  const replays = state.deals.length === 0 ? null
    : h("section", { class: "replays" }, ...state.deals.map((record) => replay(state, record, names)));

  // Leaving is for good: a computer player plays the seat to the end. A seat on autopilot
  // (after turns timed out) is taken back with returnToSeat.
  const me = isSeatView(view) ? view.seats[view.seat] : undefined;
  const path = { match_id: state.matchId };
  const leave = async (): Promise<void> => {
    if (!window.confirm(t("leaveConfirm"))) return;
    let left = false;
    await handlers.act(async (client) => {
      const answer = await client.POST("/api/v1/matches/{match_id}/leave", { params: { path } });
      left = answer.data !== undefined;
      return left ? {} : { error: answer.error };
    });
    if (left) handlers.back();
  };
  const seatButton = me === undefined || me.left_at !== null || !["waiting", "active"].includes(view.status) ? null
    : me.autopilot
      ? h("button", { type: "button", "data-key": "return", onclick: () => void handlers.act((client) =>
        client.POST("/api/v1/matches/{match_id}/return", { params: { path } })) }, t("returnToSeat"))
      : h("button", { type: "button", class: "secondary", "data-key": "leave", onclick: () => void leave() }, t("leave"));
  const spectators = "spectators" in view ? h("span", { class: "muted" }, ` · ${t("spectators", { n: view.spectators })}`) : null;
  return h("div", { class: `table-page game-${view.game}` },
    h("header", {},
      h("h1", {}, t(view.game === "auction" ? "auctionGame" : view.game === "partnership" ? "partnershipGame" : "spadesGame")),
      state.watching ? h("span", { class: "badge" }, t("spectating")) : null, spectators, seatButton, back),
    // The clock beside the turn line, not in it: a status region would read out every second.
    h("div", { class: "status-bar" },
      h("p", { class: "status", role: "status", id: "turn" }, status,
        state.reconnecting ? h("span", { class: "muted" }, ` ${t("reconnecting")}`) : null),
      view.turn_deadline ? h("span", { id: "clock", class: "clock" }, clockText(view.turn_deadline)) : null),
    state.invitation ? h("p", { class: "invitation", id: "invitation" }, t("inviteFriends", { code: state.invitation })) : null,
    h("p", { class: "notice", role: "alert", id: "notice" }, state.notice),
    h("div", { class: "table-layout" },
      h("div", { class: "table-main" }, board, actions, hintBar, handRow, dummy, result),
      h("div", { class: "table-side" }, estimate,
        // The last trick beside the table while another is in play (it is on the table until
        // then), and the auction's calls.
        wonShown || (deal === null && lastTrick === null) ? auction && h("section", { class: "side-trick" }, auction)
          : h("section", { class: "side-trick" }, trickList(lastTrick, names, "last-trick", t("lastTrick")), auction),
        scoreSheet)),
    replays);
}
