"""MarkdownOffer: a Markdown resource's source is shown as text; this offers to draw it as Markdown.

One anywidget model (assets/markdown.js): a button "Show as Markdown" that draws the resource under it, and
"Hide Markdown" that takes it away again. What it draws is `core.markdown.markdown_tree`: plain elements and
text only, which the page builds with text nodes (never HTML, in a box MathJax is told to leave alone). A link
is its text and its whole URL, written out; an image is a line naming it; nothing is fetched or opened.
"""

from __future__ import annotations

from typing import Any

import traitlets as t

from ..core.markdown import markdown_tree
from ._keys import DeclaredAnyWidget
from ._keys_assets import asset
from ._kit import Kit

__all__ = ["MarkdownOffer"]

_LAYOUT = Kit()


class MarkdownOffer(DeclaredAnyWidget):
    """Offers to draw a Markdown text as Markdown (literal text, no link or image fetched).

    Args:
        source: The Markdown, as the server sent it ("" until it is read: nothing shows until `set_source`).
        name: What it is (the resource's URI), for the button's tooltip.
    """

    _esm = t.Unicode(
        asset("literal.js") + asset("markdown.js"), help="The offer's front end: the button and the drawing."
    ).tag(sync=True)
    _css = t.Unicode(asset("markdown.css"), help="The drawn Markdown's look, light and dark.").tag(sync=True)
    tree: t.List[Any] = t.List(
        help="The Markdown as plain elements and text (core.markdown.markdown_tree)."
    ).tag(sync=True)
    name = t.Unicode("", help="What is drawn (the resource's URI), for the button's tooltip.").tag(sync=True)
    drawn = t.Bool(False, help="Whether the Markdown is drawn (the button toggles it).").tag(sync=True)

    def __init__(self, source: str = "", *, name: str = "") -> None:
        super().__init__(layout=_LAYOUT.layout(), tree=markdown_tree(source) if source else [], name=name)

    def set_source(self, source: str) -> None:
        """The Markdown to offer (read after the offer was placed: the button shows from then on). Nothing
        once the offer is closed (another item opened, the explorer closed, before the read ended)."""
        if self.comm is None:
            return
        self.tree = markdown_tree(source)

    def show(self, drawn: bool = True) -> None:
        """Draw the Markdown (or hide it again), as the button does."""
        self.drawn = drawn

    def __repr__(self) -> str:
        return f"<MarkdownOffer {self.name!r} drawn={self.drawn}>"
