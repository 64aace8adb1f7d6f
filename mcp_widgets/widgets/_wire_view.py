"""WireView: a connection's JSON-RPC messages, live, one row per call opening to its messages.

The client room captures and redacts the messages (nothing typed is kept) and hands this view what to show
(`show`: groups and rows as JSON, every text literal). A message's body is fetched when its row is opened,
never kept in the widget's state: a saved notebook holds the rows a person saw, not the messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import traitlets as t

from ._keys import DeclaredAnyWidget
from ._keys_assets import asset

__all__ = ["WireView"]

FETCH_MAX = 100
"""Messages one request of the browser may fetch."""


class WireView(DeclaredAnyWidget):
    """A connection's wire, live: a row per call (or per kind of the connection's own traffic), opening to
    its messages; a message opens to its body as indented JSON, shown as text."""

    _esm = t.Unicode(asset("literal.js") + asset("wire_view.js")).tag(sync=True)
    _css = t.Unicode(asset("wire_view.css")).tag(sync=True)
    title = t.Unicode("", help="What the view shows: the wire of which server.").tag(sync=True)
    state = t.Dict(help="What is shown: a summary, the groups and their rows (redacted, literal).").tag(
        sync=True
    )

    def __init__(
        self, *, title: str, fetch: Callable[[Iterable[int]], dict[int, str]], **kwargs: Any
    ) -> None:
        super().__init__(title=title, **kwargs)
        self._fetch = fetch
        self.on_msg(self._on_msg)

    def show(self, state: dict[str, Any]) -> None:
        """Show `state` (from `core.wire.view_state`)."""
        if state != self.state:
            self.state = state

    # -- as a person reads it (also for tests and headless runs) ---------------------------------------
    @property
    def labels(self) -> list[str]:
        """The groups shown, oldest first ("tool roll_dice", "connection", ...)."""
        return [g["label"] for g in self.state.get("groups", [])]

    def rows(self, label: str) -> list[str]:
        """The rows of the newest group called `label`, as shown."""
        for group in reversed(self.state.get("groups", [])):
            if group["label"] == label:
                return [r["text"] for r in group["rows"]]
        raise KeyError(label)

    def detail(self, seq: int) -> str:
        """The message numbered `seq` as its opened row shows it."""
        return self._fetch([seq])[seq]

    def _on_msg(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("want"), list):
            return
        seqs = [s for s in content["want"][:FETCH_MAX] if isinstance(s, int) and not isinstance(s, bool)]
        self.send({"details": {str(seq): text for seq, text in self._fetch(seqs).items()}})
