"""Every relative link of the project's Markdown leads somewhere: ``python scripts/check_links.py``.

The docs site's strict build (mkdocs) checks the links between its own pages; this checks the
rest as GitHub shows them: README.md, CHANGELOG.md and every other Markdown file of the project
(docs/ too), each link to a file of the project that exists, and each `#anchor` to a heading of
that file (GitHub's slugs) or an element id in it. Links to other sites are not followed (no
network in CI). Prints each broken link with where it is; exits 1 if there is any.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".git", ".venv", "node_modules", "site", "generated", ".pytest_cache", ".mypy_cache"}
# Inline links and images, and reference definitions; code spans and blocks are left out first.
INLINE = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
EXPLICIT_ID = re.compile(r"""(?:\bid=["']([^"']+)["']|\{[^}]*#([\w-]+)[^}]*\})""")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


def markdown_files(root: Path = ROOT) -> list[Path]:
    return sorted(path for path in root.rglob("*.md")
                  if not SKIPPED & set(path.relative_to(root).parts))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to
    hyphens."""
    text = re.sub(r"`|\*\*|__|[*_]", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(char for char in text if char.isalnum() or char in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set()
    counts: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        number = counts.get(base, 0)
        counts[base] = number + 1
        found.add(base if number == 0 else f"{base}-{number}")
    for match in EXPLICIT_ID.finditer(text):
        found.add(match.group(1) or match.group(2))
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    text = CODE_SPAN.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    targets = INLINE.findall(text) + REFERENCE.findall(text)
    broken = []
    for target in targets:
        if EXTERNAL.match(target):
            continue
        address, _, anchor = target.partition("#")
        destination = (path.parent / unquote(address)).resolve() if address else path
        where = f"{path.relative_to(root)}: {target}"
        if not destination.is_relative_to(root) or not destination.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(
                destination):
            broken.append(f"{where} (no such heading)")
    return broken


def main() -> int:
    files = markdown_files()
    broken = [line for path in files for line in broken_links(path)]
    for line in broken:
        print(f"check_links: {line}")
    if broken:
        return 1
    print(f"check_links: {len(files)} Markdown files, every relative link leads somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
