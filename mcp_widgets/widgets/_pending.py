"""PendingList: every question still open, across servers and cells, each answerable where it is listed.

The list is ONE anywidget model (assets/pending.js): its state is a title line, one line per question
(server, how long it has waited, the time left where the server states one) and a reference to each
question's own card, the same widget model as in the calling cell, which the page draws again under its line.
Two views of one model stay in step, so an answer given here is the answer there, and the card's closing line
shows in both. The list is read again from `source` on `refresh` (the client calls it about once a second
while the list is open); the page keeps a card's view while its question is open, so a refresh only changes
the lines. No value typed is in the list's state (a card keeps none in its own either).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as w
import traitlets as t

from ..core.text import clip_line, plural
from ._call_line import QUESTION_RENDERER
from ._keys import DeclaredAnyWidget
from ._keys_assets import QUESTION_CSS, asset
from ._kit import Kit

__all__ = ["PendingItem", "PendingList", "waited_text"]

MESSAGE_SHOWN = 200
"""A message longer than this is cut in the list's line (the card shows it whole)."""
_LAYOUT = Kit()


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


class PendingList(DeclaredAnyWidget):
    """Open questions (of every server, or of one), oldest first; `items` gives them as data."""

    _esm = t.Unicode(
        QUESTION_RENDERER + "\n" + asset("pending.js"),
        help="The list's front end, with the question card's renderer for marimo (see pending.js).",
    ).tag(sync=True)
    _css = t.Unicode(
        QUESTION_CSS + "\n" + asset("pending.css"),
        help="The list's look, and a card's where the list draws it.",
    ).tag(sync=True)
    _anywidget_id = t.Unicode("mcp_widgets.PendingList", help="anywidget's name for this class.").tag(
        sync=True
    )
    title = t.Unicode("", help='"2 open questions from shop", or "No open questions".').tag(sync=True)
    rows = t.List(
        t.Dict(), help="One per open question, oldest first: its id and its line (server text, literal)."
    ).tag(sync=True)
    cards = t.List(
        t.Instance(w.Widget, allow_none=True),
        help="Each row's card (None until built): the page draws the card's model under the row's line.",
    ).tag(sync=True, **w.widget_serialization)

    def __init__(self, source: Callable[[], list[PendingItem]], *, server: str | None = None) -> None:
        self._source = source
        self.server_filter = server
        self._items: list[PendingItem] = []
        self._closed = False
        super().__init__(layout=_LAYOUT.layout())  # the process's shared Layout: one model per list
        self.refresh()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def items(self) -> list[PendingItem]:
        """The open questions as listed at the last refresh."""
        return list(self._items)

    def refresh(self) -> None:
        """Read the open questions again (main thread); only what changed reaches the page."""
        if self._closed:
            return
        items = self._source()
        self._items = items
        where = f" from {self.server_filter}" if self.server_filter is not None else ""
        count = len(items)
        rows = []
        for item in items:
            built = isinstance(item.card, w.Widget)
            # The card shows the message itself; without one (not built yet) the line says it.
            text = item.line() if built else f"{item.line()} · {clip_line(item.message, MESSAGE_SHOWN)}"
            rows.append({"id": item.id, "line": clip_line(text, 400)})
        cards = [item.card if isinstance(item.card, w.Widget) else None for item in items]
        with self.hold_sync():  # one message for all of it (traitlets sends none for an equal value)
            self.title = f"{plural(count, 'open question')}{where}" if count else f"No open questions{where}"
            self.rows = rows
            self.cards = cards

    def close(self) -> None:
        """Close the list's model; the cards live on in their cells."""
        self._closed = True
        super().close()

    def __repr__(self) -> str:
        items = self._items
        where = f" from {self.server_filter!r}" if self.server_filter is not None else ""
        if not items:
            return f"<PendingList: no open questions{where}>"
        lines = [f"<PendingList: {plural(len(items), 'open question')}{where}"]
        lines += [f"  #{i.id} {i.line()} · {clip_line(i.message, MESSAGE_SHOWN)!r}" for i in items]
        return "\n".join(lines) + ">"
