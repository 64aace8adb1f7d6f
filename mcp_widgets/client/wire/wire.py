"""`srv.wire` and `mw.wire()`: what a person reads of a connection's wire, and nothing else.

`Wire` shows the messages a `WireCapture` kept (the connection holds the capture; what it sees and keeps
is there and in `core.wire`): as records, a JSON Lines file, text, or a live view grouped by call.
"""

from __future__ import annotations

import json
import os
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import kernel
from ...core.wire import Direction, WireGroup, WireMessage, clipped, json_line, view_state
from ..runtime import on_main_after
from .capture import WireCapture

if TYPE_CHECKING:
    from ...widgets import WireView
    from ..context import ServerContext

__all__ = ["Wire", "Wires"]

REFRESH = 0.25
"""Seconds between two updates of a shown wire view (a busy server must not flood the page)."""


class Wire:
    """A connection's wire: the last `keep` messages, redacted. `srv.wire`.

    `records()` gives them as plain dicts, `save(path)` writes JSON Lines, `print(srv.wire)` shows them as
    text and a cell ending with `srv.wire` shows them live, grouped by call.
    """

    def __init__(self, ctx: ServerContext, capture: WireCapture) -> None:
        self._ctx = ctx
        self._capture = capture
        self._views: weakref.WeakSet[WireView] = weakref.WeakSet()
        self._refresh_due = False
        capture.listeners.append(self._changed)

    @property
    def keep(self) -> int:
        """How many messages are kept (the oldest go first); 0: the wire is off."""
        return self._capture.keep

    def messages(
        self, *, call: str | None = None, method: str | None = None, direction: Direction | None = None
    ) -> list[WireMessage]:
        """The messages kept, oldest first: all, or those of one call (its key or what it is, "tool
        roll_dice"), one method, or one direction ("out": sent, "in": received)."""
        return self._capture.messages(call=call, method=method, direction=direction)

    def groups(self) -> list[WireGroup]:
        """The messages kept as a person reads them: one group per call (its rows: `group.rows()`), then
        the connection's own traffic."""
        return self._capture.groups()[0]

    def records(
        self, *, call: str | None = None, method: str | None = None, direction: Direction | None = None
    ) -> list[dict[str, Any]]:
        """The messages kept as plain dicts (filtered as `messages`): redacted, for a bug report."""
        return [m.record() for m in self.messages(call=call, method=method, direction=direction)]

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        call: str | None = None,
        method: str | None = None,
        direction: Direction | None = None,
    ) -> Path:
        """Write the messages kept (filtered as `messages`) as JSON Lines, redacted; returns the path."""
        target = Path(path)
        chosen = self.messages(call=call, method=method, direction=direction)
        with target.open("w", encoding="utf-8") as out:
            for message in chosen:
                out.write(json_line(message.record()) + "\n")
        return target

    def clear(self) -> None:
        """Forget the messages kept so far."""
        self._capture.clear()

    def text(self, limit: int = 40) -> str:
        """The wire as text: a line per group (the last `limit`), its rows under it."""
        text = self._capture.text(name=self._ctx.name, limit=limit)
        if self.keep <= 0:
            return f"the wire of {self._ctx.name!r} is off (connect(..., wire=N) keeps N messages)"
        if self._capture.inproc and not len(self._capture):
            text += "\n(an in-process server exchanges no JSON-RPC messages: nothing to show)"
        return text

    def __len__(self) -> int:
        return len(self._capture)

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text())

    # -- the live view (main thread) -------------------------------------------------------------------
    def view(self) -> WireView:
        """A live widget of this wire: one row per call, expanding to its messages."""
        from ...widgets import WireView

        view = WireView(title=f"The wire of {self._ctx.name}", fetch=self._details)
        self._views.add(view)
        self._refresh()
        return view

    def _ipython_display_(self) -> None:
        if kernel.kernel_support() == "none":
            print(self.text())
            return
        # The live view, with the text beside it: what a notebook saved without widget state (or read where
        # no widget renders: GitHub, nbconvert) shows, redacted as the view is.
        kernel.display_as(kernel.with_text(self.view(), self.text()), uuid.uuid4().hex)

    def _details(self, seqs: Iterable[int]) -> dict[int, str]:
        wanted = set(seqs)
        found = {m.seq: m for m in self.messages() if m.seq in wanted}
        return {seq: _detail(found.get(seq)) for seq in wanted}

    def _changed(self) -> None:
        """A message was kept (any thread): the shown views update, at most every `REFRESH` s."""
        if self._refresh_due or not self._views:
            return
        self._refresh_due = True
        on_main_after(REFRESH, self._refresh)

    def _refresh(self) -> None:
        self._refresh_due = False
        views = [v for v in list(self._views) if v.comm is not None]
        if not views:
            return
        groups, total, kept = self._capture.groups()
        state = view_state(groups, total=total, kept=kept, keep=self.keep)
        for view in views:
            view.show(state)


def _detail(message: WireMessage | None) -> str:
    """An opened row: the message first (what a person opened it for), then when, which way, how big."""
    if message is None:
        return "(no longer kept: the wire keeps the newest messages only)"
    record = message.record()
    shown = {"message": clipped(record.pop("message"))}  # long strings cut, with their size
    shown.update((k, v) for k, v in record.items() if k != "call")  # a hex key says nothing to a person
    return json.dumps(shown, indent=2, ensure_ascii=False, default=str)


class Wires:
    """Every connection's wire in this kernel (`mw.wire()`): each server's, newest server last."""

    def __init__(self, wires: Callable[[], list[tuple[str, Wire]]]) -> None:
        self._wires = wires

    def records(self) -> list[dict[str, Any]]:
        """Every kept message of every connection, each with its server's name, in time order per server."""
        return [{"server": name, **r} for name, wire in self._wires() for r in wire.records()]

    def save(self, path: str | os.PathLike[str]) -> Path:
        target = Path(path)
        with target.open("w", encoding="utf-8") as out:
            for record in self.records():
                out.write(json_line(record) + "\n")
        return target

    def text(self) -> str:
        wires = self._wires()
        if not wires:
            return "no connection yet: mw.connect(...) first"
        return "\n\n".join(wire.text() for _, wire in wires)

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text())

    def _ipython_display_(self) -> None:
        wires = self._wires()
        if kernel.kernel_support() == "none" or not wires:
            print(self.text())
            return
        import ipywidgets

        views = ipywidgets.VBox([wire.view() for _, wire in wires])
        kernel.display_as(kernel.with_text(views, self.text()), uuid.uuid4().hex)
