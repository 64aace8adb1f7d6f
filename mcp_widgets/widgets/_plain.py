"""Composed displays in marimo: their plain text, never marimo's "not supported" box.

marimo renders anywidget models only; a composed ipywidgets display (a `VBox` of stock controls) shows a
yellow box there asking to migrate it. Until each of ours is one anywidget, marimo shows its plain text:
marimo asks an object's `_display_` before anything else (its display protocol; IPython never calls it), so
the mixin below changes nothing in Jupyter.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PlainInMarimo", "PlainText"]

MARIMO_NOTE = "(shown as text: marimo renders only anywidgets, and this view is not one yet)"


@dataclass(frozen=True)
class PlainText:
    """Text that marimo shows as it is (`text/plain`: escaped, never HTML)."""

    text: str

    def _mime_(self) -> tuple[str, str]:
        return ("text/plain", self.text)

    def __repr__(self) -> str:
        return self.text


class PlainInMarimo:
    """Mixin for a composed ipywidgets display: in marimo, its `repr` and a line saying why."""

    def _display_(self) -> PlainText:
        return PlainText(f"{self!r}\n{MARIMO_NOTE}")
