import type { components } from "../../clients/typescript/generated/schema.js";
import { t } from "./i18n.js";

export type Card = components["schemas"]["Card"];
export type Suit = components["schemas"]["Suit"];

const RANKS = "AKQJT98765432";
const SUITS = "SHDC";
export const SYMBOLS: Record<Suit, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };

function pick(list: string, index: number): string {
  return list.split(",")[index] ?? "";
}

export function suitName(suit: Suit): string {
  return pick(t("suitNames"), SUITS.indexOf(suit));
}

/** "queen of hearts", in the person's language. */
export function cardName(card: Card): string {
  const rank = pick(t("rankNames"), RANKS.indexOf(card[0] ?? ""));
  return t("cardName", { rank, suit: suitName(card[1] as Suit) });
}

/** "Q♥": the card's face. */
export function cardFace(card: Card): string {
  return pick(t("rank"), RANKS.indexOf(card[0] ?? "")) + SYMBOLS[card[1] as Suit];
}

export function isRed(card: Card): boolean {
  return card[1] === "H" || card[1] === "D";
}

/** Suits in the order spades, hearts, clubs, diamonds (colours alternate), high to low. */
export function sortHand(hand: readonly Card[]): Card[] {
  const order = "SHCD";
  return [...hand].sort((a, b) =>
    order.indexOf(a[1] ?? "") - order.indexOf(b[1] ?? "") || RANKS.indexOf(a[0] ?? "") - RANKS.indexOf(b[0] ?? ""));
}
