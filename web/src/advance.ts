// The seat's view carried forward by its stream, so that the table is drawn from the stream
// alone: another seat's call or card (`action`), and the seat's own `turn`. Whatever the view
// cannot tell by itself (a version missed, the trump named and a dummy laid down, a new deal,
// the seats' change) returns undefined, and the view is read again: a resynchronisation, once
// a deal or so, never in the loop of play.
import type { components } from "../../clients/typescript/generated/schema.js";

type Schemas = components["schemas"];
type SeatView = Schemas["SeatView"];

const RANKS = "23456789TJQKA";

/** The trick's winner: the highest trump, else the highest card of the suit led. */
export function trickWinner(cards: Schemas["PlayedCard"][], trump: string | null): number | undefined {
  let best = cards[0];
  for (const played of cards.slice(1)) {
    if (best === undefined) return undefined;
    const [rank, suit] = [played.card[0] ?? "", played.card[1]];
    const higher = suit === best.card[1] ? RANKS.indexOf(rank) > RANKS.indexOf(best.card[0] ?? "") : suit === trump;
    if (higher) best = played;
  }
  return best?.seat;
}

/** The view after another seat's action at the next version; undefined: read it again. */
export function afterAction(view: SeatView, event: Schemas["Event"]): SeatView | undefined {
  const current = view.deal;
  if (current === null || event.version !== view.version + 1 || event.deal_sequence !== current.sequence) {
    return undefined;
  }
  const deal = structuredClone(current);
  deal.legal_actions = [];
  deal.legal_cards = [];
  deal.refusals = [];
  deal.to_act = null; // told by the next event: the seat's own `turn`, or another's action
  deal.turn = null;
  switch (event.kind) {
    case "bid":
      deal.auction.push({ seat: event.seat, bid: event.tricks });
      deal.high_bid = event.tricks;
      break;
    case "pass":
      deal.auction.push({ seat: event.seat, bid: null });
      break;
    case "announce":
      deal.announcements[event.seat] = event.tricks;
      break;
    case "play": {
      const trick = deal.current_trick ?? { leader: event.seat, cards: [], winner: null };
      trick.cards.push({ seat: event.seat, card: event.card });
      deal.hand_sizes[event.seat] = (deal.hand_sizes[event.seat] ?? 1) - 1;
      // A card of its own, told by the stream before the move's answer came.
      if (event.seat === view.seat) deal.hand = deal.hand.filter((card) => card !== event.card);
      if (deal.dummy_hand !== null && event.seat === deal.dummy) {
        deal.dummy_hand = deal.dummy_hand.filter((card) => card !== event.card);
      }
      if (event.card[1] === deal.trump) deal.trump_broken = true;
      if (trick.cards.length < 4) {
        deal.current_trick = trick;
        break;
      }
      const winner = trickWinner(trick.cards, deal.trump);
      if (winner === undefined) return undefined;
      const done = { ...trick, winner };
      deal.tricks.push(done);
      deal.last_trick = done;
      deal.tricks_won[winner] = (deal.tricks_won[winner] ?? 0) + 1;
      deal.current_trick = { leader: winner, cards: [], winner: null };
      break;
    }
    default:
      return undefined; // trumps named (the play starts, a dummy is laid down), a redeal
  }
  return { ...view, version: event.version, deal };
}

/** The view with the seat's own turn, told at the view's version; undefined: read it again. */
export function withTurn(view: SeatView, turn: Schemas["TurnEvent"]): SeatView | undefined {
  const deal = view.deal;
  if (deal === null || turn.version !== view.version) return undefined;
  const forDummy = deal.dummy !== null && turn.legal_cards.some((card) => deal.dummy_hand?.includes(card));
  return {
    ...view,
    deal: {
      ...deal, to_act: view.seat, turn: forDummy ? deal.dummy : view.seat,
      legal_actions: turn.legal_actions, legal_cards: turn.legal_cards, refusals: turn.refusals,
    },
  };
}
