"""mkdocs hook: links written for the repository's root (the README's and CHANGELOG.md's, as
sections moved from the README and the changelog included whole carry them) work on the site.

- a Markdown file included whole (`--8<-- "CHANGELOG.md"`) is included here, so that its links
  are read as the page's;
- `docs/x.md` is `x.md`;
- `../README.md#anchor`, and `#anchor` for an anchor the page itself does not have, go to the
  page that holds that section now, found by its heading's anchor.

A link to an anchor no page has stays as it is, and the strict build names it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from markdown.extensions.toc import slugify
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)
ROOT_LINK = re.compile(r"\]\(docs/")
SECTION_LINK = re.compile(r"\]\((?:\.\./README\.md)?#([\w-]+)\)")

_anchors: dict[str, set[str]] = {}  # page → the anchors of its headings
_root = Path()  # the folder of mkdocs.yml, where included files are named from


def _headings(markdown: str) -> set[str]:
    return {slugify(title, "-") for title in HEADING.findall(FENCE.sub("", markdown))}


def _include(markdown: str) -> str:
    def text(snippet: re.Match[str]) -> str:
        path = snippet.group(1)
        if not path.endswith(".md"):
            return snippet.group(0)  # code, left to pymdownx.snippets
        return (_root / path).read_text(encoding="utf-8")

    return SNIPPET.sub(text, markdown)


def on_files(files: Files, config: Any) -> Files:
    global _root
    _root = Path(config.config_file_path).parent
    _anchors.clear()
    for file in files.documentation_pages():
        _anchors[file.src_uri] = _headings(_include(file.content_string))
    return files


def on_page_markdown(markdown: str, page: Page, config: Any, files: Files) -> str:
    own = _anchors.get(page.file.src_uri, set())

    def to_section(link: re.Match[str]) -> str:
        anchor = link.group(1)
        if anchor in own:
            return f"](#{anchor})"
        holder = next((name for name, anchors in _anchors.items() if anchor in anchors), None)
        return link.group(0) if holder is None else f"]({holder}#{anchor})"

    return SECTION_LINK.sub(to_section, ROOT_LINK.sub("](", _include(markdown)))
