"""`Watch`: `srv.watch(uri)`, a resource shown live in the cell, redrawn in place on each update.

Its feed reads the resource at once and again on each change (coalesced, as `srv.updates`'s); each read is
posted to the kernel's main thread, where the view (`widgets.WatchView`) redraws, at most once per posted
batch. It ends when the view is closed, `stop()` is called, or the server closes; the status line says so.
"""

from __future__ import annotations

import concurrent.futures
import threading

from ... import kernel
from ...core.text import clip_line, plural, shown
from ..results import result_parts
from .feeds import Feed, Update

TITLE_KEEP = 200
"""Characters of the URI the view's title shows."""

REREAD_CAP = 5_000_000
"""Characters of contents past which a watch re-reads no change on its own (it counts them)."""


def parts(update: Update) -> list[dict[str, str]]:
    """What the view shows of an update: literal texts, images as data URIs (type and base64 checked)."""
    if update.contents is None:
        return [{"text": shown(f"({update.error})")}]
    out: list[dict[str, str]] = []
    for part in result_parts(update.contents):
        if part.mime is not None and part.data is not None and part.mime.startswith("image/"):
            out.append({"image": f"data:{part.mime};base64,{part.data}", "alt": part.text})
        else:
            out.append({"text": part.text})
    return out


class Watch:
    """A resource shown live: display it (the last expression of a cell), read it from Python.

    Attributes:
        view: The `WatchView` widget.
    """

    def __init__(self, feed: Feed) -> None:
        from ...widgets import WatchView

        self._feed = feed
        self.view = WatchView(title=clip_line(feed.uri, TITLE_KEEP), on_close=self._closed)
        self.view.status = "reading…"
        self._drawn = 0
        self._posted = False
        self._lock = threading.Lock()
        self._waiters: list[tuple[int, concurrent.futures.Future[None]]] = []
        feed.cap, feed.by = REREAD_CAP, "srv.watch"
        feed.listeners.append(self._changed)
        feed.start()

    # -- as a person reads it (also for tests and headless runs) ---------------------------------------
    @property
    def uri(self) -> str:
        return self._feed.uri

    @property
    def updates(self) -> int:
        """How many updates were drawn (the first read not counted)."""
        return max(0, self._drawn - 1)

    @property
    def ended(self) -> str | None:
        """Why the watch ended ("stopped", "the server closed", ...), None while it runs."""
        return self._feed.ended

    @property
    def status(self) -> str:
        return self.view.status

    @property
    def text(self) -> str:
        """The resource as shown now (text; an image as its line)."""
        return self.view.text

    def stop(self) -> None:
        """End the watch: its subscription ends; the view keeps the last contents, its line says so."""
        self._feed.stop_soon("stopped")

    def _closed(self) -> None:
        self._feed.stop_soon("the view was closed")

    def wait(self, updates: int = 1, timeout: float = 30.0) -> None:
        """Block until the resource was drawn with `updates` updates (0: its first read), or the watch ended;
        clicks still reach the page meanwhile."""
        fut: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._lock:
            self._waiters.append((updates, fut))
        self._settle()
        kernel.wait_sync(fut, timeout=timeout)

    # -- drawing (main thread) -----------------------------------------------------------------------
    def _changed(self, _feed: Feed) -> None:
        """The feed read the resource again or ended (client thread): one redraw posted at a time."""
        with self._lock:
            if self._posted:
                return
            self._posted = True
        kernel.post(self._redraw)

    def _redraw(self) -> None:
        with self._lock:
            self._posted = False
        if self.view.comm is None:  # closed: nothing to draw (its waits end)
            self.view.live = False
            self._settle()
            return
        feed, latest = self._feed, self._feed.latest
        if latest is not None and latest.number != self._drawn:
            self._drawn = latest.number
            self.view.show(parts(latest), self._line())
        elif self.view.live and feed.ended is None:
            self.view.status = self._line()  # a change counted, not re-read
        if feed.ended is not None and self.view.live:
            self.view.end(self._line())
        self._settle()

    def _line(self) -> str:
        latest = self._feed.latest
        if latest is None:
            line = "not read"
        elif self._drawn <= 1:
            line = f"read at {latest.at:%H:%M:%S}, not updated yet"
        else:
            line = f"updated {plural(self.updates, 'time')}, last {latest.at:%H:%M:%S}"
        over, unread = self._feed.over_cap, self._feed.heard - (latest.heard if latest is not None else 0)
        if over is not None and unread > 0:
            line += (
                f" · changed {plural(unread, 'time')} since, not read again: {over:,} characters, over the "
                f"{REREAD_CAP:,} a watch reads again on its own (srv.read_resource reads it)"
            )
        ended = self._feed.ended
        return f"{line} · ended: {shown(ended)}" if ended is not None else line

    def _settle(self) -> None:
        with self._lock:
            over = not self.view.live
            done = [f for n, f in self._waiters if (self._drawn and self.updates >= n) or over]
            self._waiters = [(n, f) for n, f in self._waiters if f not in done]
        for fut in done:
            if not fut.done():
                fut.set_result(None)

    def _ipython_display_(self) -> None:
        kernel.display(self.view)

    def __repr__(self) -> str:
        return f"<Watch of {self.uri!r}: {self.status}>"
