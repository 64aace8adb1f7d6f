"""PendingList: every question still open, across servers and cells, each answerable where it is listed.

A row is one line (server, how long it has waited, the time left where the server states one) and the
question's own card: the same widget model as in the calling cell, shown again. Two views of one model stay
in step, so an answer given here is the answer there, and the card's closing line shows in both. The list
is rebuilt from `source` on `refresh` (the client calls it about once a second while the list is open); a
row's widgets are kept while its question is open, so a refresh only updates its line.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from ..core.text import LITERAL_CLASSES, clip_line, plural
from ._kit import WRAP_CLASS
from ._plain import PlainInMarimo

__all__ = ["PendingItem", "PendingList", "waited_text"]

MESSAGE_SHOWN = 200
"""A message longer than this is cut in the list's line (the card shows it whole)."""
_ROW = {"border_left": "3px solid var(--jp-border-color2, #ccc)", "padding": "0 0 0 8px", "margin": "6px 0"}
"""Each question set apart by a rule on its left (theme colours: light and dark)."""


@dataclass(frozen=True)
class PendingItem:
    """One open question, as the list shows it (never a value typed into it)."""

    id: int
    server: str
    message: str
    kind: str
    waited: float
    """Seconds since it was asked."""
    left: float | None
    """Seconds until the server's bound (a task's TTL) ends it; None: it states none."""
    card: Any = None
    """Its card (a form or URL card), once built."""

    @property
    def view(self) -> Any:
        """Deprecated: `card` (a question's card is its card; docs/architecture.md, Glossary)."""
        warnings.warn("PendingItem.view is deprecated: use PendingItem.card", DeprecationWarning, 2)
        return self.card

    def line(self) -> str:
        text = f"{self.server} · waited {waited_text(self.waited)}"
        if self.left is not None:
            text += f" · {waited_text(self.left)} left"
        return text


def waited_text(seconds: float) -> str:
    """A duration as a person reads it: "42 s", "12 min", "3 h 5 min"."""
    s = max(0, int(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


class PendingList(PlainInMarimo, w.VBox):
    """Open questions (of every server, or of one), oldest first; `items` gives them as data."""

    def __init__(self, source: Callable[[], list[PendingItem]], *, server: str | None = None) -> None:
        self._source = source
        self.server_filter = server
        self._title = w.Label(
            value="", _dom_classes=(*LITERAL_CLASSES, WRAP_CLASS), style={"font_weight": "bold"}
        )
        self._rows: dict[int, tuple[w.Label, w.VBox]] = {}
        self._items: list[PendingItem] = []
        self._closed = False
        self._shown: tuple[Any, ...] = (self._title,)
        super().__init__(children=self._shown, _dom_classes=("mcp-widgets-pending",))
        self.refresh()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def items(self) -> list[PendingItem]:
        """The open questions as listed at the last refresh."""
        return list(self._items)

    def refresh(self) -> None:
        """Read the open questions again (main thread); only the rows that came or went change."""
        if self._closed:
            return
        items = self._source()
        self._items = items
        where = f" from {self.server_filter}" if self.server_filter is not None else ""
        count = len(items)
        self._title.value = (
            f"{plural(count, 'open question')}{where}" if count else f"No open questions{where}"
        )
        ids = {item.id for item in items}
        for gone in [i for i in self._rows if i not in ids]:
            label, row = self._rows.pop(gone)
            row.children = ()  # the card lives on in its cell: only this view of it goes
            row.close()
            label.close()
        for item in items:
            built = isinstance(item.card, w.Widget)
            # The card shows the message itself; without one (not built yet) the line says it.
            text = item.line() if built else f"{item.line()} · {clip_line(item.message, MESSAGE_SHOWN)}"
            text = clip_line(text, 400)
            kept = self._rows.get(item.id)
            if kept is None:
                label = w.Label(value=text, tooltip=text, _dom_classes=(*LITERAL_CLASSES, WRAP_CLASS))
                row = w.VBox(children=(label,), _dom_classes=("mcp-widgets-pending-row",), layout=_ROW)
                self._rows[item.id] = kept = (label, row)
            label, row = kept
            if label.value != text:
                label.value = label.tooltip = text
            wanted = (label, item.card) if built else (label,)
            if row.children != wanted:
                row.children = wanted
        children = (self._title, *(self._rows[item.id][1] for item in items))
        if self._shown != children:
            self._shown = self.children = children

    def close(self) -> None:
        self._closed = True
        for label, row in self._rows.values():
            row.children = ()
            row.close()
            label.close()
        self._rows.clear()
        self._title.close()
        super().close()

    def __repr__(self) -> str:
        items = self._items
        where = f" from {self.server_filter!r}" if self.server_filter is not None else ""
        if not items:
            return f"<PendingList: no open questions{where}>"
        lines = [f"<PendingList: {plural(len(items), 'open question')}{where}"]
        lines += [f"  #{i.id} {i.line()} · {clip_line(i.message, MESSAGE_SHOWN)!r}" for i in items]
        return "\n".join(lines) + ">"
