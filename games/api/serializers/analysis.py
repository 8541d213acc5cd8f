"""The post-deal analysis (bots/analysis.py) as `getDealAnalysis`, the stream's
`analysis_ready` and the `deal.analysed` webhook tell it."""

from __future__ import annotations

from rest_framework import serializers

from games.api.serializers.fields import seat_field

MARKS = ["inaccuracy", "mistake", "blunder"]


class JudgementSerializer(serializers.Serializer):
    best = serializers.DictField(help_text="The best choice, as an action (`{kind, ...}`).")
    points_cost = serializers.FloatField(
        help_text="The points (the player's score for the deal; its team's in the partnership "
        "game) this choice gave up against the best: 0 for the best choice.")
    tricks_cost = serializers.FloatField(
        allow_null=True, help_text="The tricks (its side's) this choice gave up against the "
        "choice that takes the most; null where not judged in tricks (a card from the player's "
        "own view).")


class MoveAnalysisSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The action's place in the deal's log, from 1.")
    seat = seat_field(help_text="The seat that chose it (the declarer for a dummy's card).")
    action = serializers.DictField(help_text="The action, as the deal's log holds it.")
    choices = serializers.IntegerField(help_text="Its legal choices; one: not judged.")
    known = JudgementSerializer(
        allow_null=True, help_text="With every hand known (the exact search of the real "
        "layout); null for calls and announcements, for a move with one choice, and where the "
        "search ran out of its bound (`partial`).")
    seen = JudgementSerializer(
        allow_null=True, help_text="From the player's own knowledge at that moment; null for a "
        "move with one choice, and for moves left unjudged when the time ran out (`partial`).")
    mark = serializers.ChoiceField(
        choices=MARKS, allow_null=True,
        help_text="By `seen.points_cost`: an inaccuracy, a mistake or a blunder from the "
        "`thresholds`; null below them, or unjudged.")


class PlayerAnalysisSerializer(serializers.Serializer):
    seat = seat_field()
    points_given_up = serializers.FloatField(
        help_text="The sum of its choices' `seen.points_cost`.")
    points_given_up_known = serializers.FloatField(
        help_text="The sum of its choices' `known.points_cost`.")
    judged = serializers.IntegerField(help_text="Its choices judged from its own view.")
    inaccuracies = serializers.IntegerField()
    mistakes = serializers.IntegerField()
    blunders = serializers.IntegerField()


class ThresholdsSerializer(serializers.Serializer):
    inaccuracy = serializers.IntegerField(help_text="Points given up from which a choice is an "
                                          "inaccuracy.")
    mistake = serializers.IntegerField()
    blunder = serializers.IntegerField()


class DealAnalysisSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    deal_sequence = serializers.IntegerField()
    deal_number = serializers.IntegerField()
    finished_at = serializers.DateTimeField(help_text="When the analysis was done.")
    # A field of the body, as DRF's metaclass takes it: no clash with `Serializer.partial`.
    partial = serializers.BooleanField(  # type: ignore[assignment]
        help_text="Some choices were left unjudged: its time (ANALYSIS_SECONDS_PER_DEAL) or a "
        "search's bound ran out.")
    cpu_seconds = serializers.FloatField(help_text="The CPU time it took.")
    thresholds = ThresholdsSerializer()
    moves = MoveAnalysisSerializer(many=True)
    players = PlayerAnalysisSerializer(many=True, help_text="Per seat, seats 0..3.")


class AnalysisPendingSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    deal_sequence = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued"], help_text="Waiting for, or under, "
                                     "analysis: ask again after `Retry-After` seconds.")


class AnalysisReadyEventSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    deal_sequence = serializers.IntegerField(
        help_text="The deal's `sequence`: `getDealAnalysis` reads its analysis.")
    partial = serializers.BooleanField(  # type: ignore[assignment]
        help_text="Some choices were left unjudged (see `getDealAnalysis`).")
    players = PlayerAnalysisSerializer(many=True)
