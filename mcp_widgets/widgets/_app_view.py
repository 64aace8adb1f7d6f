"""AppView: an MCP App shown in the cell, under the call that showed it.

The view is three parts: a line naming the app, its tool and the server (and what the app was granted), the
app itself (`AppFrame`, one anywidget whose browser side is a sandboxed iframe and a relay), and a few lines
under it (what the app did: a tool it called, a log message, a link it asked to open) with the app's own tool
calls in an Output. The bridge in the client room answers the app; this module only shows it.

The app's document and messages travel as custom messages, never as widget state: a saved notebook keeps the
naming line and "not live", never the app, and nothing typed into it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import traitlets as t

from .. import kernel
from ..core.text import LITERAL_CLASSES, clip_line
from ._keys import DeclaredAnyWidget
from ._keys_assets import asset
from ._plain import PlainInMarimo

__all__ = ["AppFrame", "AppView"]

LINES_SHOWN = 4
"""Lines under an app (the newest; older ones are counted in the first)."""


class AppFrame(DeclaredAnyWidget):
    """The app itself: a sandboxed iframe in the browser, relaying JSON-RPC between the app and the kernel."""

    _esm = t.Unicode(asset("app_frame.js")).tag(sync=True)
    _css = t.Unicode(asset("app_frame.css")).tag(sync=True)
    label = t.Unicode("", help="What the app is: the iframe's title, and the line shown when not live.")
    label.tag(sync=True)
    height = t.Int(120, help="The iframe's height in pixels before the app says its own.").tag(sync=True)


class AppView(PlainInMarimo, w.VBox):
    """An MCP App in the cell: the app a tool ships, live while the kernel runs it.

    Attributes set by the client's bridge, for Python to read: `initialized` (the app completed its
    handshake), `model_context` (what the app last sent with `ui/update-model-context`, no model here to take
    it) and `messages` (what it sent with `ui/message`).
    """

    def __init__(self, *, tool: str, resource_uri: str, server: str, label: str) -> None:
        self.tool = tool
        """The tool the app belongs to."""
        self.resource_uri = resource_uri
        """The app's `ui://` resource."""
        self.server = server
        """The name we know the server by."""
        self.initialized = False
        self.model_context: dict[str, Any] | None = None
        self.messages: list[dict[str, Any]] = []
        self.closed = False
        self._on_close: list[Callable[[], object]] = []
        self._teardown: Callable[[str, Callable[[], None]], object] | None = None
        self._label = label
        self._lines: deque[str] = deque(maxlen=LINES_SHOWN)
        self._dropped = 0
        self._last_key: str | None = None
        title_classes = (*LITERAL_CLASSES, "mcp-widgets-app-title")
        self.title = w.Label(value=clip_line(label, 300), _dom_classes=title_classes)
        self.frame = AppFrame(label=clip_line(label, 300))
        self.calls = w.Output(layout=w.Layout(width="100%"))
        self.offers = w.VBox(layout=w.Layout(width="100%"))
        self._shown = [
            w.Label(_dom_classes=LITERAL_CLASSES, layout=w.Layout(display="none")) for _ in range(LINES_SHOWN)
        ]
        super().__init__(
            children=[self.title, self.frame, *self._shown, self.offers, self.calls],
            layout=w.Layout(width="100%"),
            _dom_classes=("mcp-widgets-app-view",),
        )

    def __repr__(self) -> str:
        state = "closed" if self.closed else "live" if self.initialized else "starting"
        return f"<AppView {self._label} ({state})>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = kernel.widget_bundle(self)
        if bundle is not None:  # a saved notebook opened without the widget's state shows this line
            bundle["text/plain"] = f"{self._label}: not live"
        return bundle

    def say(self, text: str, *, key: str | None = None) -> None:
        """Show a line under the app (plain text; the newest LINES_SHOWN stay). A line with the `key` of the
        newest line replaces it (a count that goes up)."""
        line = clip_line(text, 500)
        if key is not None and self._lines and self._last_key == key:
            self._lines[-1] = line
        else:
            if len(self._lines) == self._lines.maxlen:
                self._dropped += 1
            self._lines.append(line)
        self._last_key = key
        lines = list(self._lines)
        if self._dropped:
            lines[0] = f"({self._dropped} earlier lines) {lines[0]}"
        for label, line in zip(self._shown, lines + [""] * (LINES_SHOWN - len(lines)), strict=True):
            label.value = line
            label.layout.display = None if line else "none"

    def offer(self, text: str, accept: str, answer: Callable[[bool], object]) -> None:
        """Ask the person about something the app wants (a file to save): `text`, a button `accept` and
        Decline; `answer(True)` or `answer(False)` runs once, and the question goes."""
        label = w.Label(value=clip_line(text, 500), _dom_classes=LITERAL_CLASSES)
        yes = w.Button(description=accept, button_style="primary")
        no = w.Button(description="Decline")
        row = w.HBox([label, yes, no], layout=w.Layout(flex_flow="row wrap", align_items="center"))
        done = False

        def clicked(said: bool) -> None:
            nonlocal done
            if done:
                return
            done = True
            self.offers.children = tuple(c for c in self.offers.children if c is not row)
            for part in (label, yes, no, row):
                part.close()
            answer(said)

        yes.on_click(lambda _: clicked(True))
        no.on_click(lambda _: clicked(False))
        self.offers.children = (*self.offers.children[-2:], row)

    @property
    def lines(self) -> list[str]:
        """The lines shown under the app, oldest first."""
        return list(self._lines)

    def on_close(self, fn: Callable[[], object]) -> None:
        """Run `fn` when the view closes (the bridge tears the app down)."""
        self._on_close.append(fn)

    def set_teardown(self, fn: Callable[[str, Callable[[], None]], object]) -> None:
        """`fn(reason, then)` tells the app it goes and runs `then` once it answered (or did not in time)."""
        self._teardown = fn

    def close(self) -> None:
        """Close the view: the app is told first (`ui/resource-teardown`), then it goes."""
        self.end("the view was closed")

    def end(self, reason: str) -> None:
        """`close`, telling the app why."""
        if self.closed:
            return
        hook, self._teardown = self._teardown, None
        if hook is not None:
            hook(reason, self._close_now)
            return
        self._close_now()

    def _close_now(self) -> None:
        if self.closed:
            return
        callbacks, self._on_close = self._on_close, []
        for fn in callbacks:  # before `closed`: they still talk to the front end (the frame's last message)
            fn()
        self.closed = True
        for offer in self.offers.children:
            for part in (*offer.children, offer):
                part.close()
        for child in (self.title, self.frame, self.calls, self.offers, *self._shown):
            child.close()
        super().close()
