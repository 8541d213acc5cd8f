"""The docs: a short README, the errors page listing every problem code the service answers
(each an anchor the problems' `type` points at), and the webhook verification the integration
guide shows. The site's strict build and the first-match examples run in CI (scripts/docs)."""

from __future__ import annotations

import importlib.util
import re
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from django.test import Client, override_settings
from standardwebhooks.webhooks import Webhook

from batak_api.problem_codes import ERRORS_PAGE, page, problem_codes

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_the_readme_is_short_and_links_to_pages_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()

    assert readme.count("\n") <= 250
    for target in re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", readme):
        assert (ROOT / target).exists(), target


def test_every_page_of_the_docs_is_in_the_sites_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = set(re.findall(r"[\w-]+\.md", str(config["nav"])))

    assert listed == {path.name for path in (ROOT / "docs").glob("*.md")}


def test_the_errors_page_lists_every_problem_code_the_code_has() -> None:
    assert ERRORS_PAGE.read_text() == page(problem_codes()), (
        "docs/errors.md differs from the codes: `python -m batak_api.problem_codes` rewrites it"
    )


def test_every_problem_code_has_its_anchor_on_the_errors_page() -> None:
    text = ERRORS_PAGE.read_text()
    codes = {entry.code for entry in problem_codes()}

    assert {"stale_version", "must_follow_suit", "request_too_large", "not_ready"} <= codes
    for code in codes:
        assert text.count(f'<span id="{code}"></span>') == 1, code


def test_a_problems_type_is_its_codes_entry_on_the_published_errors_page(client: Client) -> None:
    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["site_url"]

    body = client.get("/api/v1/no-such-thing").json()

    assert body["type"] == f"{site_url}errors/#not_found"


@override_settings(PROBLEM_TYPE_BASE_URL="https://docs.example.org/errors/#")
def test_a_deployment_points_the_problems_type_at_its_own_docs(client: Client) -> None:
    body = client.get("/api/v1/no-such-thing").json()

    assert body["type"] == "https://docs.example.org/errors/#not_found"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("tampered", [False, True])
def test_the_guides_webhook_verification_accepts_the_services_signatures_only(
    tampered: bool,
) -> None:
    verify = _example("verify_webhook").verify
    secret = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = '{"type":"match.finished","data":{}}'
    now = datetime.now(UTC)
    headers = {
        "webhook-id": "evt_1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign("evt_1", now, body),
    }

    sent = body.replace("finished", "started") if tampered else body
    assert verify(secret, headers, sent.encode()) is not tampered


def test_the_guides_example_subscription_names_every_event_type() -> None:
    from platforms.models import EventType

    guide = (ROOT / "docs" / "platforms.md").read_text()
    example = re.search(r'"event_types": \[(.*?)\]', guide, re.S)
    assert example is not None
    assert sorted(re.findall(r'"([a-z_.]+)"', example.group(1))) == sorted(EventType.values)


def test_the_link_checker_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("check_links", ROOT / "scripts/check_links.py")
    assert spec is not None and spec.loader is not None
    check_links = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_links)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/guide.md").write_text("# The guide\n\n## Playing over HTTP\n")
    (tmp_path / "README.md").write_text(
        "[ok](docs/guide.md#playing-over-http) [gone](docs/gone.md) "
        "[no heading](docs/guide.md#generated-clients) [web](https://example.org/x#y) "
        "`[in code](nowhere.md)`\n\n[ref]: docs/guide.md#the-guide\n")
    assert check_links.broken_links(tmp_path / "README.md", tmp_path) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/guide.md#generated-clients (no such heading)",
    ]
    assert [line for path in check_links.markdown_files()
            for line in check_links.broken_links(path)] == []


def test_the_examples_a_page_shows_are_the_files_ci_runs() -> None:
    """A page shows an example's code itself (GitHub renders no include), marked with the file
    it must equal: `scripts/docs examples` runs the files, so the pages cannot fall behind."""
    marked = re.compile(r'^( *)<!-- the file (\S+), as CI runs it -->\n *```\w*\n(.*?)\n *```$',
                        re.M | re.S)
    shown = 0
    for doc in DOCS.glob("*.md"):
        for indent, name, body in marked.findall(doc.read_text()):
            lines = [line.removeprefix(indent) for line in body.split("\n")]
            assert "\n".join(lines) == (DOCS / name).read_text().rstrip("\n"), (doc.name, name)
            shown += 1
    assert shown >= 4
