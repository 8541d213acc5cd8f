"""The dashboard's picture (`scripts/dashboard-preview`, loadtest/dashboard.py): its renderer lays
out every panel of deploy/grafana-dashboard.json on the dashboard's grid, with its title, unit and
series, without any server."""

from __future__ import annotations

import itertools
import json
import math
import re
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from loadtest import dashboard
from loadtest.dashboard import Box, Series, place, render_page

PANELS = json.loads(dashboard.DASHBOARD.read_text())["panels"]
START, END = 1_000_000.0, 1_000_180.0


class Sections(HTMLParser):
    """Each panel's section: its id, its box (from its style) and its text and charts."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: dict[int, Box] = {}
        self.text: dict[int, str] = {}
        self.charts: dict[int, int] = {}
        self._panel: int | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section":
            self._panel = int(found["data-panel"] or "")
            style = dict(re.findall(r"(\w+):(\d+)px", found["style"] or ""))
            self.boxes[self._panel] = Box(**{key: int(value) for key, value in style.items()})
            self.text[self._panel], self.charts[self._panel] = "", 0
        elif tag == "svg" and self._panel is not None:
            self.charts[self._panel] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._panel = None

    def handle_data(self, data: str) -> None:
        if self._panel is not None:
            self.text[self._panel] += data


def _answers(empty: set[int] = frozenset()) -> dict[int, list[Series]]:
    """One rising series per target of each panel but ``empty``, named by its refId."""
    return {
        panel["id"]: [Series(f"series {target['refId']}",
                             [(START + t, (t + 1) * 0.01) for t in range(0, 181, 2)])
                      for target in panel["targets"]]
        for panel in PANELS if panel["id"] not in empty
    }


def _sections(empty: set[int] = frozenset()) -> Sections:
    page = render_page({"title": "Batak service", "panels": PANELS}, _answers(empty), START,
                       END, [("people", START), ("quiet", START + 120)], "How it was made.")
    parsed = Sections()
    parsed.feed(page)
    return parsed


def test_every_panel_is_on_its_grid_place_with_its_title_unit_and_series() -> None:
    parsed = _sections()

    assert set(parsed.boxes) == {panel["id"] for panel in PANELS}
    for panel in PANELS:
        text = parsed.text[panel["id"]]
        assert parsed.boxes[panel["id"]] == place(panel["gridPos"])
        assert panel["title"] in text
        unit = panel["fieldConfig"]["defaults"]["unit"]
        assert dashboard.UNIT_NAMES[unit] in text
        assert parsed.charts[panel["id"]] == 1
        for target in panel["targets"]:
            assert f"series {target['refId']}" in text
        assert "No data" not in text


def test_panels_fill_the_width_and_never_overlap() -> None:
    boxes = list(_sections().boxes.values())

    assert min(box.left for box in boxes) == 0
    assert max(box.left + box.width for box in boxes) == dashboard.PAGE_WIDTH
    for one in boxes:
        for other in boxes:
            if one is not other:
                apart = (one.left + one.width <= other.left or other.left + other.width <= one.left
                         or one.top + one.height <= other.top
                         or other.top + other.height <= one.top)
                assert apart, (one, other)


def test_a_panel_whose_queries_return_nothing_says_no_data() -> None:
    parsed = _sections(empty={PANELS[1]["id"]})

    assert "No data" in parsed.text[PANELS[1]["id"]]
    assert "No data" not in parsed.text[PANELS[0]["id"]]


def test_a_series_is_named_by_the_targets_legend_format_else_its_labels_else_its_query() -> None:
    labels = {"route": "api/v1/matches/<uuid:match_id>/actions", "method": "POST"}

    assert dashboard.legend_name({"expr": "x", "legendFormat": "{{ route }}"}, labels) == (
        "api/v1/matches/<uuid:match_id>/actions")
    assert dashboard.legend_name({"expr": "x"}, labels) == (
        '{method="POST", route="api/v1/matches/<uuid:match_id>/actions"}')
    assert dashboard.legend_name({"expr": "sum(x)"}, {}) == "sum(x)"


def test_values_read_in_the_panels_unit() -> None:
    assert dashboard.format_value(0.025, "s") == "25 ms"
    assert dashboard.format_value(2.5, "s") == "2.5 s"
    assert dashboard.format_value(0.012, "percentunit") == "1.2%"
    assert dashboard.format_value(1500, "reqps") == "1.5 K req/s"
    assert dashboard.format_value(3, "short") == "3"


@given(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.floats(min_value=0, max_value=1e6, allow_nan=False),
)
def test_the_axis_lines_cover_the_values_evenly(low: float, spread: float) -> None:
    high = low + spread
    lines = dashboard.ticks(low, high)

    assert lines[0] <= low and lines[-1] >= high
    assert 2 <= len(lines) <= 9
    steps = [b - a for a, b in itertools.pairwise(lines)]
    assert all(math.isclose(step, steps[0], rel_tol=1e-6) for step in steps)


def test_a_flat_zero_stands_on_the_axis() -> None:
    assert dashboard.ticks(0, 0)[0] == 0
