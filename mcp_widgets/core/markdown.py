"""A server's Markdown as a tree of plain elements and text, for a page to build with text nodes only.

A Markdown resource shows as its source text; on request it is drawn as Markdown (`markdown_tree`), never as
HTML: raw HTML in it stays text (markdown-it with `html` off), and the tree holds only tags from `TAGS` and
strings, which the page sets as text. Nothing in it makes the page fetch or open anything: a link is its text
and its whole URL, written out (not a link to click: open it by copying it, where you can see its host); an
image is a line naming it and its URL (never loaded). Math (`$x$`) is text, as everywhere. The size is bounded
(`SOURCE_KEEP` characters of source, `NODES_KEEP` elements, `DEPTH_KEEP` levels), a cut said at its place.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .text import shown

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

__all__ = ["DEPTH_KEEP", "NODES_KEEP", "SOURCE_KEEP", "TAGS", "is_markdown", "markdown_tree"]

SOURCE_KEEP = 200_000
"""Characters of a Markdown source drawn (the rest is said to be cut; the source text has it)."""
NODES_KEEP = 5_000
"""Elements drawn at most (a document of a million list items stops there)."""
DEPTH_KEEP = 40
"""Levels of nesting drawn; deeper content is flattened to its text."""
TAGS = frozenset(
    {
        *("p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "em", "strong", "s", "code", "pre"),
        *("blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "span"),
    }
)
"""The only elements a tree holds (a page builds nothing else)."""

MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
Node = str | dict[str, Any]
"""A tree node: a string (text), or {"tag": one of TAGS, "children": [Node, ...]} ("cls": a class of ours)."""


def is_markdown(mime: str | None, uri: str) -> bool:
    """Whether a text resource is Markdown: its MIME type says so, or (with none given) its URI ends .md."""
    if mime:
        return mime.split(";")[0].strip().lower() in MARKDOWN_TYPES
    path = uri.split("?")[0].split("#")[0].lower()
    return path.endswith((".md", ".markdown"))


@functools.cache
def _parser() -> MarkdownIt:
    # CommonMark with GitHub's tables and strikethrough; raw HTML is text, and no URL is turned into a link.
    # Imported here: a kernel that never draws Markdown never loads it; made once (cached), read-only after.
    from markdown_it import MarkdownIt

    # Nesting deeper than markdown-it's own bound (20) is dropped, text and all: let it parse further and
    # flatten what is deeper than DEPTH_KEEP to its text.
    options = {"html": False, "linkify": False, "maxNesting": DEPTH_KEEP * 2}
    return MarkdownIt("commonmark", options).enable(["table", "strikethrough"])


class _Builder:
    def __init__(self) -> None:
        self.nodes = 0
        self.cut = False

    def element(self, tag: str, children: list[Node], cls: str = "") -> Node:
        self.nodes += 1
        made: dict[str, Any] = {"tag": tag, "children": children}
        if cls:
            made["cls"] = cls
        return made

    def children(self, node: SyntaxTreeNode, depth: int) -> list[Node]:
        out: list[Node] = []
        for child in node.children:
            if self.nodes >= NODES_KEEP:
                self.cut = True
                break
            out.extend(self.node(child, depth + 1))
        return out

    def node(self, node: SyntaxTreeNode, depth: int) -> list[Node]:
        kind = node.type
        if kind in ("text", "html_inline", "html_block"):  # raw HTML is text (html off makes it "text")
            return [shown(node.content)]
        if kind == "softbreak":
            return ["\n"]
        if kind == "hardbreak":
            return [self.element("br", [])]
        if kind == "code_inline":
            return [self.element("code", [shown(node.content)])]
        if kind in ("fence", "code_block"):
            return [self.element("pre", [self.element("code", [shown(node.content)])])]
        if kind == "hr":
            return [self.element("hr", [])]
        if kind == "image":  # never loaded: a line naming it
            alt = shown("".join(self._text(node))) or "no description"
            src = shown(str(node.attrs.get("src", "")))
            return [self.element("span", [f"[image: {alt}] ({src})"], "image")]
        if kind == "link":  # its text, then its whole URL as text: nothing to click
            url = self.element("span", [f" ({shown(str(node.attrs.get('href', '')))})"], "url")
            return [self.element("span", [*self.children(node, depth), url], "link")]
        if kind == "inline" or (kind == "paragraph" and node.hidden):  # a tight list's item: no <p>
            return self.children(node, depth)
        if depth >= DEPTH_KEEP:  # nested too deep to draw: its text
            self.cut = True
            return [shown("".join(self._text(node)))]
        tag = node.tag if not node.is_root else ""
        children = self.children(node, depth)
        if tag not in TAGS:  # nothing else is drawn as an element
            return children
        return [self.element(tag, children)]

    def _text(self, node: SyntaxTreeNode) -> list[str]:
        if node.type in ("text", "code_inline", "fence", "code_block", "html_inline", "html_block"):
            return [node.content]
        return [t for child in node.children for t in self._text(child)]


def markdown_tree(source: str) -> list[Node]:
    """`source` (Markdown) as a list of tree nodes: elements of `TAGS` and text (every string `shown`)."""
    text = str(source)
    longer = len(text) > SOURCE_KEEP
    from markdown_it.tree import SyntaxTreeNode

    builder = _Builder()
    tree = builder.children(SyntaxTreeNode(_parser().parse(text[:SOURCE_KEEP])), -1)
    if longer or builder.cut:
        said = "… (cut here: the source text above has it all)"
        tree.append(builder.element("p", [said], "cut"))
    return tree
