"""Every problem `code` the service can answer, with its status and meaning, read from the code
itself: the `ServiceError` subclasses (every app's), the rules engine's refusal reasons, the
codes games/api/problems.py gives DRF's and Django's own errors, each literal `problem(status,
"code", …)` call in the source, and the front door's own answers (deploy/nginx.conf).

docs/errors.md lists them under its marker, one anchor per code (the `type` of a problem points
there); `python -m batak_api.problem_codes` rewrites that list, and a test fails while it
differs from this.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path

from django.utils import translation

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("batak_api", "games", "platforms", "ratings", "tour")
ERRORS_PAGE = ROOT / "docs" / "errors.md"
MARKER = "<!-- The list below is written by `python -m batak_api.problem_codes`: edit the code. -->"
# nginx answers its own refusals with literal problem documents: `return 413 '{…}';`.
NGINX_PROBLEM = re.compile(r"return (\d{3}) '(\{.*\})';")


@dataclasses.dataclass(frozen=True, order=True)
class ProblemCode:
    status: int
    code: str
    meaning: str  # the detail sentence, in English


def problem_codes() -> list[ProblemCode]:
    """Each (status, code, meaning) once, in the order of status, then code."""
    return sorted(set(_service_errors()) | set(_framework_errors()) | set(_literal_calls())
                  | set(_front_door()))


def _service_errors() -> Iterator[ProblemCode]:
    import batak_api.urls  # noqa: F401  (every view, so every app's ServiceError subclass)
    from games.engine.errors import MESSAGES
    from games.errors import _CONFLICT_REASONS, ActionRefused, ServiceError

    with translation.override("en"):
        pending = list(ServiceError.__subclasses__())
        while pending:
            kind = pending.pop()
            pending.extend(kind.__subclasses__())
            if not issubclass(kind, ActionRefused):  # its code is the engine's reason, below
                yield ProblemCode(kind.status, kind.code, str(kind.default_detail))
        for reason, message in MESSAGES.items():
            yield ProblemCode(409 if reason in _CONFLICT_REASONS else 422, reason.value, message)


def _framework_errors() -> Iterator[ProblemCode]:
    from games.api.problems import _DRF_PROBLEMS

    with translation.override("en"):
        for kind, code, detail in _DRF_PROBLEMS:
            yield ProblemCode(kind.status_code, code, str(detail))


def _literal_calls() -> Iterator[ProblemCode]:
    """`problem(413, "request_too_large", …)`: calls whose status and code are written out (a
    code may be a module's constant)."""
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            constants = {
                target.id: node.value.value
                for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                for target in node.targets if isinstance(target, ast.Name)
            }
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "problem" and len(node.args) >= 3):
                    continue
                status, code, detail = node.args[:3]
                if isinstance(code, ast.Name):
                    code = ast.Constant(constants.get(code.id))
                if (isinstance(status, ast.Constant) and isinstance(status.value, int)
                        and isinstance(code, ast.Constant) and isinstance(code.value, str)):
                    yield ProblemCode(status.value, code.value, _sentence(detail))


def _sentence(node: ast.expr) -> str:
    """The English sentence a detail argument spells out; a value filled in reads `{name}`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and node.args:  # gettext("…")
        return _sentence(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):  # "… %(limit)d …" % {…}
        return re.sub(r"%\((\w+)\)\w", r"{\1}", _sentence(node.left))
    if isinstance(node, ast.JoinedStr):  # f"… {self.cfg.limit_request_line} …"
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else
            "{" + ast.unparse(part).rsplit(".", 1)[-1].rstrip("}") + "}"
            for part in node.values
        )
    return ""


def _front_door() -> Iterator[ProblemCode]:
    for status, body in NGINX_PROBLEM.findall((ROOT / "deploy" / "nginx.conf").read_text()):
        document = json.loads(body)
        yield ProblemCode(int(status), document["code"], document["detail"])


def render(codes: list[ProblemCode]) -> str:
    """The errors page's list: a section per status, a row per code (its anchor the code)."""
    from games.api.problems import TITLES

    meanings: dict[int, dict[str, list[str]]] = {}
    for entry in codes:  # sorted: each status's codes, each code's sentences in order
        sentences = meanings.setdefault(entry.status, {}).setdefault(entry.code, [])
        if entry.meaning:
            sentences.append(entry.meaning.replace("|", "\\|"))
    lines: list[str] = []
    anchored: set[str] = set()
    with translation.override("en"):
        for status, by_code in meanings.items():
            lines += ["", f"### {status} {TITLES[status]}", "", "| code | meaning |",
                      "| --- | --- |"]
            for code, sentences in by_code.items():
                anchor = "" if code in anchored else f'<span id="{code}"></span>'
                anchored.add(code)
                lines.append(f"| {anchor}`{code}` | {' · '.join(sentences)} |")
    return "\n".join(lines) + "\n"


def page(codes: list[ProblemCode]) -> str:
    """docs/errors.md with its list as the code makes it."""
    text = ERRORS_PAGE.read_text()
    head = text[: text.index(MARKER) + len(MARKER)]
    return head + "\n" + render(codes)


if __name__ == "__main__":
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    django.setup()
    ERRORS_PAGE.write_text(page(problem_codes()))
