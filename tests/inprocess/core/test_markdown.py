"""A Markdown resource drawn on request (core/markdown.py): a tree of plain elements and text, never HTML;
a link and an image written out, never fetched; bounded."""

from __future__ import annotations

import json
from typing import Any

from mcp_widgets.core.markdown import DEPTH_KEEP, NODES_KEEP, SOURCE_KEEP, TAGS, is_markdown, markdown_tree
from tests.servers.explored import GUIDE


def elements(tree: list[Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for item in tree:
        if isinstance(item, dict):
            found.append(item)
            found += elements(item["children"])
    return found


def text(tree: list[Any]) -> str:
    return "".join(item if isinstance(item, str) else text(item["children"]) for item in tree)


def test_the_guide_draws_as_plain_elements_and_text() -> None:
    tree = markdown_tree(GUIDE)
    tags = [e["tag"] for e in elements(tree)]
    assert tags[:2] == ["h1", "p"] and "strong" in tags and "ul" in tags and "table" in tags
    assert set(tags) <= TAGS and all(set(e) <= {"tag", "children", "cls"} for e in elements(tree))
    assert tree[0] == {"tag": "h1", "children": ["Guide to $x$"]}  # math is text
    drawn = text(tree)
    # a link: its text, then its whole URL written out; an image: a line naming it and its URL
    assert "the docs (https://docs.example.org/start?from=guide)" in drawn
    assert "[image: a logo] (https://images.example.org/logo.png)" in drawn
    # raw HTML is text, never an element
    assert '<b>raw</b> <img src=x onerror="window.__pwned=1">' in drawn
    assert "href" not in json.dumps(tree) and "src" not in {k for e in elements(tree) for k in e}


def test_terminal_escapes_and_disguising_characters_are_shown() -> None:
    drawn = text(markdown_tree("\x1b[31mred\x1b[0m and evil\u202etxt"))
    assert drawn == "\\x1b[31mred\\x1b[0m and evilU+202Etxt"


def test_it_is_bounded() -> None:
    huge = markdown_tree("- item\n" * (NODES_KEEP + 100))
    assert len(elements(huge)) <= NODES_KEEP + 2
    assert huge[-1]["cls"] == "cut"
    deep = markdown_tree(">" * (DEPTH_KEEP + 20) + " deep")
    assert "deep" in text(deep) and deep[-1]["cls"] == "cut"
    long = markdown_tree("a" * (SOURCE_KEEP + 10))
    assert text(long[:1]) == "a" * SOURCE_KEEP and long[-1]["cls"] == "cut"


def test_what_counts_as_markdown() -> None:
    assert is_markdown("text/markdown", "x://a") and is_markdown("text/x-markdown; charset=utf-8", "x://a")
    assert not is_markdown("text/plain", "file:///README.md")  # the server's type says what it is
    assert is_markdown(None, "file:///README.md") and is_markdown("", "note://x.markdown?v=1")
    assert not is_markdown(None, "note://readme")
