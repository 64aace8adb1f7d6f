"""WatchView: a resource shown live (`srv.watch(uri)`), redrawn in place on each update.

The client room reads the resource and hands this view its parts (`show`: texts already made literal, images
as checked data URIs) and a status line. Only the status line is in the widget's state; the parts are sent to
the views as messages (and asked for again by a view drawn later), so a saved notebook keeps one line of text,
never the resource.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traitlets as t

from ._keys import DeclaredAnyWidget
from ._keys_assets import asset

__all__ = ["WatchView"]


class WatchView(DeclaredAnyWidget):
    """A watched resource, live: a status line ("updated 3 times, last 12:01:02") over its contents."""

    _esm = t.Unicode(asset("literal.js") + asset("watch_view.js")).tag(sync=True)
    _css = t.Unicode(asset("watch_view.css")).tag(sync=True)
    title = t.Unicode("", help="What is watched: the resource's URI (literal).").tag(sync=True)
    status = t.Unicode("", help="How the watch goes: its updates, or why it ended.").tag(sync=True)
    live = t.Bool(True, help="False once the watch ended.").tag(sync=True)

    def __init__(self, *, title: str, on_close: Callable[[], None] | None = None, **kwargs: Any) -> None:
        super().__init__(title=title, **kwargs)
        self.parts: list[dict[str, str]] = []
        """What is shown, in order: {"text": ...} or {"image": data URI, "alt": ...} (also for tests)."""
        self.redraws = 0
        self._on_close = on_close
        self.on_msg(self._on_msg)

    def show(self, parts: list[dict[str, str]], status: str) -> None:
        """Show `parts` (literal texts, checked images) under `status`, replacing what was shown."""
        self.parts = parts
        self.redraws += 1
        self.status = status
        self.send({"parts": parts})

    def end(self, status: str) -> None:
        self.live = False
        self.status = status

    @property
    def text(self) -> str:
        """The texts shown, as one string (an image as its alt text)."""
        return "\n".join(p.get("text", p.get("alt", "")) for p in self.parts)

    def _on_msg(self, _: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, dict) and content.get("want") == "parts":
            self.send({"parts": self.parts})

    def close(self) -> None:
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()
        super().close()

    def __repr__(self) -> str:
        # What a saved notebook keeps as the output's text (made when shown: the status is not yet known).
        return f"watch of {self.title} (a live view while the kernel runs)"
