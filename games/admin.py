"""Match review for staff: a read-only admin where a referee looks at whole matches and deals.

Every deal shown is rebuilt by the rules engine from its action log (`selectors.replay_deal`), so
each card on the page is one the engine accepted again just now. A log that no longer replays,
or a stored result that differs from the replay, is flagged on the page instead of breaking it.
Nothing here writes to a match except the "abandon" action, which goes through the services;
the action log (`Action`) is not registered at all, so no admin page can add, change or delete a
move: the deal pages show it, replayed.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from games import engine, selectors, services
from games.errors import MatchNotActive
from games.models import BotLevel, Deal, DealStatus, Match, MatchStatus, Seat

RED_SUITS = frozenset({engine.Suit.HEARTS, engine.Suit.DIAMONDS})
OUTCOME_LABELS = {
    engine.Outcome.MADE: "made",
    engine.Outcome.DOWN: "down",
    engine.Outcome.SCORED: "",
    engine.Outcome.BATAK: "batak",
}


# --- what a referee reads: cards, seats, rules ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CardFace:
    """A card as a person reads it (``10♥``); the page keeps its wire code (``TH``) beside it."""

    code: str
    rank: str
    label: str
    red: bool
    trick: int | None = None  # the trick (from 1) the card was played in, if it was


def card_face(card: engine.Card, trick: int | None = None) -> CardFace:
    rank = "10" if card.rank == engine.Rank.TEN else card.rank.letter
    return CardFace(str(card), rank, rank + card.suit.symbol, card.suit in RED_SUITS, trick)


def seat_names(match: Match) -> list[str]:
    names = {seat.index: seat.display_name for seat in match.seats.all()}
    return [names.get(index) or f"Seat {index}" for index in range(4)]


def rules_in_words(rules: engine.TableRules) -> list[str]:
    """The table rules as a referee would explain them at the table."""
    game = {
        engine.Game.AUCTION: "Auction (İhaleli): four players, each for themselves; the winner "
        "of the auction names trumps and leads first.",
        engine.Game.PARTNERSHIP: "Partnership (Eşli): seats 0 and 2 play against 1 and 3; the "
        "winner of the auction names trumps and leads first; partners add up their tricks.",
        engine.Game.SPADES: "Spades (Koz Maça): no auction, spades are always trumps and the "
        "seat after the dealer leads first.",
    }[rules.game]
    order = (
        "clockwise (to the left): 0 → 3 → 2 → 1"
        if rules.direction == engine.Direction.CLOCKWISE
        else "anticlockwise (to the right): 0 → 1 → 2 → 3"
    )
    lines = [game, f"Play and the deal pass {order}."]
    if rules.has_auction:
        lines.append(f"Bids start at {rules.min_bid} tricks; a bid of 13 cannot be topped.")
        if rules.all_pass == engine.AllPass.REDEAL:
            lines.append("If all four pass, the cards are thrown in and dealt again.")
        else:
            lines.append(f"If all four pass, the dealer must play {rules.all_pass_bid} tricks.")
    if rules.trump_lead == engine.TrumpLead.ANYTIME:
        lines.append("Trumps may be led at any time.")
    else:
        lines.append(
            "Trumps may not be led before a trump has been played in an earlier trick, unless "
            "the leader holds nothing but trumps."
        )
    if rules.akq_trump_lead:
        lines.append(
            "A player holding the ace, king and queen of trumps may lead them before trumps "
            "are broken."
        )
    if rules.must_beat_in_suit:
        lines.append(
            "A player following suit must beat the highest card of the led suit if able"
            + (", even once the trick has been trumped." if rules.must_beat_after_trumped
               else ", unless the trick has already been trumped.")
        )
    else:
        lines.append("A player following suit need not beat the cards already played.")
    if rules.must_trump:
        lines.append("A player out of the led suit must play a trump if holding one.")
    else:
        lines.append("A player out of the led suit may discard while no trump is in the trick.")
    if rules.must_overtrump:
        lines.append(
            "With a trump in the trick, a player who can must play a higher trump; one who "
            + ("cannot must still play a trump." if rules.must_trump_when_cannot_overtrump
               else "cannot may play any card.")
        )
    else:
        lines.append("Nobody has to overtrump.")
    if rules.partnership_dummy:
        lines.append(
            "Once trumps are named, the declarer's partner lays their hand face up and the "
            "declarer plays both hands."
        )
    lines.append(_scoring_in_words(rules))
    if rules.weak_hand_redeal:
        lines.append("A player whose hand has no card above a ten may ask for a new deal.")
    return lines


def _scoring_in_words(rules: engine.TableRules) -> str:
    if rules.spades_announcements:
        limit = rules.spades_overtrick_limit
        over = f", and so does taking {limit} or more tricks over it" if limit else ""
        return (
            "Before play each seat announces 0 to 13 tricks: taking at least the number scores "
            f"10 per trick announced, taking fewer loses as much{over}; announcing none scores "
            "50 with no trick and loses 50 otherwise."
        )
    unit = 1 if rules.scoring == engine.Scoring.SIMPLE else 10
    nil = {
        engine.Scoring.STANDARD: f"loses {rules.min_bid * 10}",
        engine.Scoring.BONUS: "loses 50",
        engine.Scoring.SIMPLE: f"loses {rules.min_bid}",
        engine.Scoring.CONTRACT: (
            f"loses {rules.min_bid * 10}" if not rules.has_auction
            else "loses 10 per trick of the contract"
        ),
    }[rules.scoring]
    defender = f"{unit} per trick, and one with no trick (batak) {nil}"
    if not rules.has_auction:
        return f"{rules.scoring.value.capitalize()} scoring: every seat scores {defender}."
    made = {
        engine.Scoring.STANDARD: "10 per trick taken",
        engine.Scoring.BONUS: "15 per trick bid and 10 per extra trick",
        engine.Scoring.SIMPLE: "1 per trick taken",
        engine.Scoring.CONTRACT: "10 per trick bid and 1 per extra trick",
    }[rules.scoring]
    team = "The declaring team" if rules.is_partnership else "The declarer"
    return (
        f"{rules.scoring.value.capitalize()} scoring: {team} making the contract scores {made} "
        f"and going down loses {unit} per trick bid; a defender scores {defender}."
    )


# --- replaying a deal for review ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Replay:
    """A deal rebuilt from its log by the engine, or why that failed."""

    deal: engine.Deal | None
    problem: str = ""
    failed_at: int | None = None  # position in the log (from 1) of the action that was refused
    mismatches: tuple[str, ...] = ()  # stored results that differ from the replay

    @property
    def flagged(self) -> bool:
        return self.deal is None or bool(self.mismatches)


def replay(match: Match, deal_row: Deal) -> Replay:
    try:
        deal = selectors.replay_deal(match, deal_row)
    except Exception as error:  # a log that fails in any way must be shown, not crash the page
        return Replay(None, describe(error), _first_refused(match, deal_row))
    return Replay(deal, mismatches=tuple(_mismatches(deal_row, deal)))


def describe(error: Exception) -> str:
    if isinstance(error, engine.IllegalAction):
        return f"{error.reason.value}: {error.detail}"
    return f"{type(error).__name__}: {error}"


def _first_refused(match: Match, deal_row: Deal) -> int | None:
    """Replays the log one row at a time to name the action the engine refuses; None when the
    deal's cards themselves are broken."""
    try:
        deal = engine.Deal(selectors.deal_start(match, deal_row))
    except Exception:  # the hands or rules are unreadable: no action is to blame
        return None
    for row in deal_row.actions.order_by("sequence"):
        try:
            deal.apply(row.seat, engine.action_from_dict({"kind": row.kind, **row.payload}))
        except Exception:  # the same failure `replay` reported, now located
            return row.sequence
    return None


def _mismatches(row: Deal, deal: engine.Deal) -> list[str]:
    """What the stored deal row says that the engine's replay of its log does not."""
    status = {
        engine.Phase.FINISHED: DealStatus.FINISHED,
        engine.Phase.REDEALT: DealStatus.REDEALT,
    }.get(deal.phase, DealStatus.IN_PROGRESS)
    checks: list[tuple[str, Any, Any]] = [("status", row.status, status)]
    # The row of a deal in play is written again only when the deal ends; until then the log
    # alone holds the contract and the tricks.
    if row.status != DealStatus.IN_PROGRESS:
        checks += [
            ("declarer", row.declarer, deal.declarer),
            ("bid", row.bid, deal.bid),
            ("trump", row.trump, deal.trump.letter if deal.trump is not None else ""),
            ("tricks won", row.tricks, deal.tricks_won),
        ]
    if row.status == DealStatus.FINISHED and deal.score is not None:
        checks.append(("scores", row.scores, list(deal.score.points)))
        checks.append(("outcomes", row.outcomes, [o.value for o in deal.score.outcomes]))
    return [
        f"stored {name} {stored!r}, replay gives {replayed!r}"
        for name, stored, replayed in checks
        if stored != replayed
    ]


def cards_visible(match: Match, deal_row: Deal) -> bool:
    """A deal's cards are shown once nobody can still play it: it ended, or its match did.
    Until then even staff must not see them, or they could tell a player."""
    return deal_row.status != DealStatus.IN_PROGRESS or match.status != MatchStatus.ACTIVE


# --- the pages' content ------------------------------------------------------------------------


def seat_rows(match: Match, names: Sequence[str]) -> list[dict[str, Any]]:
    ranking = match.ranking or [None] * 4
    partnership = match.game == engine.Game.PARTNERSHIP
    rows = []
    for seat in match.seats.all():
        if seat.is_bot:
            kind = f"computer, {seat.get_bot_level_display()}"
        elif seat.is_open:
            kind = "open seat"
        else:
            kind = f"person, account {seat.user.get_username()}"
        rows.append({
            "index": seat.index,
            "name": names[seat.index],
            "kind": kind,
            "team": ("0 + 2" if seat.index % 2 == 0 else "1 + 3") if partnership else "",
            "first_dealer": seat.index == match.first_dealer,
            "total": match.totals[seat.index] if match.totals else 0,
            "place": ranking[seat.index],
        })
    return rows


def deal_rows(match: Match, names: Sequence[str]) -> list[dict[str, Any]]:
    """One score-sheet line per deal dealt, thrown-in deals included, each checked by replay.
    The line shows the replay; only a deal whose log does not replay shows what was stored."""
    rows = []
    for deal_row in match.deals.order_by("sequence"):
        checked = replay(match, deal_row)
        deal = checked.deal
        if deal is None:
            declarer, bid, trump = deal_row.declarer, deal_row.bid, deal_row.trump
            tricks, points, outcomes = deal_row.tricks, deal_row.scores, deal_row.outcomes
            to_act = None
        else:
            declarer, bid, to_act = deal.declarer, deal.bid, deal.to_act
            trump = deal.trump.letter if deal.trump is not None else ""
            # Tricks are counted once play has begun, which is when trumps are fixed.
            tricks = deal.tricks_won if deal.trump is not None else None
            points = list(deal.score.points) if deal.score is not None else None
            outcomes = list(deal.score.outcomes) if deal.score is not None else None
        rows.append({
            "deal": deal_row,
            "replay": checked,
            "url": reverse("admin:games_match_deal", args=(match.pk, deal_row.sequence))
            if cards_visible(match, deal_row) else None,
            "dealer": _name(names, deal_row.dealer),
            "declarer": _name(names, declarer),
            "bid": bid,
            "trump": _suit_face(trump),
            "to_act": _name(names, to_act),
            "seats": [
                {
                    "tricks": tricks[seat] if tricks else None,
                    "points": points[seat] if points else None,
                    "outcome": OUTCOME_LABELS.get(outcomes[seat], "") if outcomes else "",
                }
                for seat in range(4)
            ],
        })
    return rows


def _name(names: Sequence[str], seat: int | None) -> str:
    # A stored record that fails to replay may name any seat at all.
    return names[seat] if seat in range(4) else ("" if seat is None else f"seat {seat}")


def total_problems(match: Match, rows: Sequence[dict[str, Any]]) -> list[str]:
    scored = [
        row["deal"].scores or [0, 0, 0, 0]
        for row in rows
        if row["deal"].status == DealStatus.FINISHED
    ]
    sums = [sum(scores[seat] for scores in scored) for seat in range(4)]
    if list(match.totals) != sums:
        return [f"stored totals {match.totals!r}, the deals' scores add up to {sums!r}"]
    return []


def _suit_face(letter: str) -> dict[str, Any] | None:
    if not letter:
        return None
    try:
        suit = engine.Suit.parse(letter)
    except engine.CardParseError:  # a broken stored record is shown as it is
        return {"symbol": letter, "red": False}
    return {"symbol": suit.symbol, "red": suit in RED_SUITS}


def deal_page(match: Match, deal_row: Deal, checked: Replay) -> dict[str, Any]:
    """Everything the replay page shows, from the engine's replay of the deal."""
    names = seat_names(match)
    deal = checked.deal
    if deal is None:
        return {
            "names": names,
            # Not strict: a broken record may hold fewer than four hands, and is shown as it is.
            "stored_hands": [
                {"name": name, "cards": hand}
                for name, hand in zip(names, deal_row.hands, strict=False)
            ],
            "raw_log": _raw_log(deal_row, checked.failed_at),
        }
    tricks = deal.completed_tricks()
    unfinished = deal.current_trick()
    played_in = {
        card: number
        for number, trick in enumerate([*tricks, *([unfinished] if unfinished else [])], 1)
        for _, card in trick.plays
    }
    running = [0, 0, 0, 0]
    trick_rows = []
    for number, trick in enumerate(tricks, 1):
        assert trick.winner is not None
        running[trick.winner] += 1
        trick_rows.append(_trick_row(number, trick, deal.trump, names, list(running)))
    if unfinished is not None and unfinished.plays:
        trick_rows.append(
            _trick_row(len(tricks) + 1, unfinished, deal.trump, names, list(running))
        )
    return {
        "names": names,
        "hands": [
            {
                "seat": seat,
                "name": names[seat],
                "dealer": seat == deal.dealer,
                "declarer": seat == deal.declarer,
                "suits": [
                    {
                        "symbol": suit.symbol,
                        "red": suit in RED_SUITS,
                        "trump": suit == deal.trump,
                        "cards": [
                            card_face(card, played_in.get(card))
                            for card in engine.cards_of(deal.start.hands[seat] & suit.mask)
                        ],
                    }
                    for suit in engine.Suit
                ],
            }
            for seat in range(4)
        ],
        "auction": [
            {"seat": seat, "name": names[seat], "call": "pass" if bid is None else f"bid {bid}"}
            for seat, bid in deal.auction
        ],
        "has_auction": deal.rules.has_auction,
        "all_passed": bool(deal.auction) and all(bid is None for _, bid in deal.auction),
        "announcements": [
            {"name": names[seat], "tricks": tricks_announced}
            for seat, tricks_announced in enumerate(deal.announcements)
            if tricks_announced is not None
        ],
        "declarer": names[deal.declarer] if deal.declarer is not None else "",
        "bid": deal.bid,
        "trump": _suit_face(deal.trump.letter) if deal.trump is not None else None,
        "dummy": names[deal.dummy] if deal.dummy is not None else "",
        "redeal_by": names[deal.redeal_requested_by]
        if deal.redeal_requested_by is not None else "",
        "thrown_in": deal.phase == engine.Phase.REDEALT,
        "tricks": trick_rows,
        "score": _score_line(deal, names),
        "log_length": len(deal.log),
        "to_act": names[deal.to_act] if deal.to_act is not None else "",
    }


def _trick_row(
    number: int,
    trick: engine.Trick,
    trump: engine.Suit | None,
    names: Sequence[str],
    running: list[int],
) -> dict[str, Any]:
    return {
        "number": number,
        "leader": names[trick.leader],
        "winner": names[trick.winner] if trick.winner is not None else "",
        "plays": [
            {
                "name": names[seat],
                "card": card_face(card),
                "leader": seat == trick.leader,
                "winner": seat == trick.winner,
                "trump": card.suit == trump,
            }
            for seat, card in trick.plays
        ],
        "missing": 4 - len(trick.plays),
        "running": running,
    }


def _score_line(deal: engine.Deal, names: Sequence[str]) -> list[dict[str, Any]] | None:
    if deal.score is None:
        return None
    return [
        {
            "name": names[seat],
            "tricks": deal.tricks_won[seat],
            "points": deal.score.points[seat],
            "outcome": OUTCOME_LABELS[deal.score.outcomes[seat]],
        }
        for seat in range(4)
    ]


def _raw_log(deal_row: Deal, failed_at: int | None) -> list[dict[str, Any]]:
    """The stored log as it is, for a deal the engine cannot replay."""
    return [
        {
            "sequence": row.sequence,
            "version": row.version,
            "seat": row.seat,
            "action": " ".join([row.kind, *(str(value) for value in row.payload.values())]),
            "refused": row.sequence == failed_at,
        }
        for row in deal_row.actions.order_by("sequence")
    ]


def json_attachment(body: Any, filename: str) -> HttpResponse:
    response = HttpResponse(
        json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- the changelist ----------------------------------------------------------------------------


def _bot_seats() -> QuerySet[Seat]:
    return Seat.objects.filter(match=OuterRef("pk")).exclude(bot_level="")


class HasBotsFilter(admin.SimpleListFilter):
    title = "computer players"
    parameter_name = "bots"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin
    ) -> list[tuple[str, str]]:
        return [("yes", "With computer players"), ("no", "People only")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() == "yes":
            return queryset.filter(Exists(_bot_seats()))
        if self.value() == "no":
            return queryset.filter(~Exists(_bot_seats()))
        return queryset


class BotLevelFilter(admin.SimpleListFilter):
    title = "computer level"
    parameter_name = "bot_level"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin
    ) -> list[tuple[str, str]]:
        return [(str(value), str(label)) for value, label in BotLevel.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() in BotLevel.values:
            return queryset.filter(Exists(_bot_seats().filter(bot_level=self.value())))
        return queryset


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "short_id", "game", "status", "deals_column", "people", "bots", "winner", "created_at",
    )
    list_display_links = ("short_id",)
    list_filter = (
        "game", "status", HasBotsFilter, BotLevelFilter, ("created_at", admin.DateFieldListFilter),
    )
    # "id" matches any part of a match id, with or without its hyphens.
    search_fields = ("id", "seats__display_name", "seats__user__username")
    search_help_text = "A player's name or account, or (part of) a match id."
    ordering = ("-created_at",)
    list_per_page = 50
    # Counting every match on each page load costs a full scan for a number nobody needs.
    show_full_result_count = False
    actions = ("export_json", "abandon")
    fields = (
        ("id", "status"),
        ("game", "deal_count"),
        ("created_by", "first_dealer", "version"),
        ("created_at", "updated_at", "finished_at"),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        # A subquery rather than Count("deals"): a search through seats joins more rows, which
        # would multiply a joined count.
        finished = (
            Deal.objects.filter(match=OuterRef("pk"), status=DealStatus.FINISHED)
            .values("match")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return (
            super()
            .get_queryset(request)
            .annotate(deals_played=Coalesce(Subquery(finished, output_field=IntegerField()), 0))
            .prefetch_related(
                Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
            )
        )

    # A match is a record of play: it changes only through the services (as the players move),
    # never through a form.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False

    def has_abandon_permission(self, request: HttpRequest) -> bool:
        # Only staff trusted to change matches may stop one.
        return request.user.has_perm("games.change_match")

    # --- columns -------------------------------------------------------------------------------

    @admin.display(description="match", ordering="id")
    def short_id(self, match: Match) -> str:
        return str(match.id)[:8]

    @admin.display(description="deals played", ordering="deals_played")
    def deals_column(self, match: Match) -> str:
        return f"{match.deals_played} / {match.deal_count}"  # type: ignore[attr-defined]

    @admin.display(description="people")
    def people(self, match: Match) -> str:
        names = [
            (seat.display_name or seat.user.get_username()) if seat.user else "open seat"
            for seat in match.seats.all()
            if not seat.is_bot
        ]
        return ", ".join(names) or "—"

    @admin.display(description="computer players")
    def bots(self, match: Match) -> str:
        levels = [seat.get_bot_level_display() for seat in match.seats.all() if seat.is_bot]
        return ", ".join(levels) or "—"

    @admin.display(description="winner")
    def winner(self, match: Match) -> str:
        if match.status != MatchStatus.FINISHED or not match.ranking:
            return "—"
        names = seat_names(match)
        return " & ".join(names[seat] for seat, place in enumerate(match.ranking) if place == 1)

    # --- the match page ----------------------------------------------------------------------

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Match | None = None,
    ) -> HttpResponse:
        if obj is not None:
            names = seat_names(obj)
            deals = deal_rows(obj, names)
            problems = [
                f"Deal {row['deal'].number} (shuffle {row['deal'].sequence}): {problem}"
                for row in deals
                for problem in (
                    [f"the log does not replay — {row['replay'].problem}"]
                    if row["replay"].deal is None else list(row["replay"].mismatches)
                )
            ]
            context.update({
                "rules_in_words": rules_in_words(selectors.table_rules(obj)),
                "rules_json": json.dumps(obj.rules, indent=2),
                "seats": seat_rows(obj, names),
                "names": names,
                "deals": deals,
                "problems": problems + total_problems(obj, deals),
                "export_url": reverse("admin:games_match_export", args=(obj.pk,)),
            })
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- the deal page and export --------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/deals/<int:sequence>/",
                self.admin_site.admin_view(self.deal_view),
                name="games_match_deal",
            ),
            path(
                "<path:object_id>/export/",
                self.admin_site.admin_view(self.export_view),
                name="games_match_export",
            ),
        ]
        return own + super().get_urls()

    def _viewable(self, request: HttpRequest, object_id: str) -> Match:
        match = self.get_object(request, object_id)
        if match is None:
            raise Http404("No such match.")
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        return match

    def deal_view(self, request: HttpRequest, object_id: str, sequence: int) -> HttpResponse:
        match = self._viewable(request, object_id)
        deal_row = match.deals.filter(sequence=sequence).first()
        if deal_row is None or not cards_visible(match, deal_row):
            raise Http404("No such deal, or it is still being played.")
        checked = replay(match, deal_row)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Deal {deal_row.number} of {match.deal_count} — {match}",
            "match": match,
            "deal": deal_row,
            "replay": checked,
            "match_url": reverse("admin:games_match_change", args=(match.pk,)),
            "deal_count": match.deals.count(),
            "previous_url": self._deal_url(match, sequence - 1),
            "next_url": self._deal_url(match, sequence + 1),
            **deal_page(match, deal_row, checked),
        }
        return TemplateResponse(request, "admin/games/match/deal_replay.html", context)

    def _deal_url(self, match: Match, sequence: int) -> str | None:
        deal_row = match.deals.filter(sequence=sequence).first()
        if deal_row is None or not cards_visible(match, deal_row):
            return None
        return reverse("admin:games_match_deal", args=(match.pk, sequence))

    def export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        match = self._viewable(request, object_id)
        exported = self.export_json(request, Match.objects.filter(pk=match.pk))
        # When the export fails the match page shows why (the action left a message).
        return exported or HttpResponseRedirect(
            reverse("admin:games_match_change", args=(match.pk,))
        )

    # --- actions -------------------------------------------------------------------------------

    @admin.action(description="Export selected matches as JSON (the API's format)")
    def export_json(self, request: HttpRequest, queryset: QuerySet[Match]) -> HttpResponse | None:
        exports = []
        for match in queryset.order_by("created_at"):
            try:
                exports.append(selectors.match_export(match))
            except Exception as error:  # a deal whose log fails to replay cannot be recorded
                self.message_user(
                    request,
                    f"Match {match.pk} was not exported: one of its deals does not replay "
                    f"({describe(error)}).",
                    messages.ERROR,
                )
                return None
        if len(exports) == 1:
            return json_attachment(exports[0], f"match-{exports[0]['id']}.json")
        return json_attachment(exports, "matches.json")

    @admin.action(description="Abandon selected matches (stuck ones)", permissions=["abandon"])
    def abandon(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        abandoned = skipped = 0
        for match_id in queryset.values_list("pk", flat=True):
            try:
                services.abandon_match(match_id=match_id)
            except MatchNotActive:
                skipped += 1
            else:
                abandoned += 1
        if abandoned:
            self.message_user(request, f"Abandoned {abandoned} match(es).", messages.SUCCESS)
        if skipped:
            self.message_user(
                request,
                f"Left {skipped} match(es) alone: they had already finished or been abandoned.",
                messages.WARNING,
            )

