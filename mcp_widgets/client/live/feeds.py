"""A resource's updates: one `Feed` on the client thread, `Updates` (the async iterator) in the cell.

A feed is told of a change (`poke`: a `notifications/resources/updated`, or a 2026-07-28 listen event) and
re-reads the resource. Changes are coalesced: a change arriving while a read runs, or within `interval` of
the last read, marks the feed stale and one more read follows, so a server sending a thousand notifications a
second causes at most 1/interval reads a second, and the newest state is always read at the end. Readers see
the newest update only (a slow consumer skips those it missed, never gets an old one). A feed with a `cap`
(a watch's) stops re-reading once a read was over it: each read of a resource that large costs the SDK's
stdio reader seconds to minutes of CPU (docs/sdk-notes.md); later changes are counted instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass

import mcp_types

from ...core.exceptions import ServerError, brief
from ..record import describe_exc, sent_by
from ..results import result_text
from ..runtime import RUNTIME

REREAD_INTERVAL = 0.25
"""Seconds between the starts of two re-reads of one resource (changes in between are coalesced)."""


@dataclass(frozen=True)
class Update:
    """One re-read of a watched resource.

    Attributes:
        uri: The resource's URI (as listed).
        contents: What the read returned (None when it failed: `error` says why).
        at: When the read ended (local time, aware).
        number: 1 for the first update, 2 for the next one read, ...; `heard` counts the notifications
            (more than `number` when several were coalesced into one read).
    """

    uri: str
    contents: mcp_types.ReadResourceResult | None
    at: datetime.datetime
    number: int
    heard: int
    error: str | None = None

    def __repr__(self) -> str:
        when = self.at.strftime("%H:%M:%S")
        head = f"<Update {self.number} of {self.uri!r} at {when}"
        if self.error is not None:
            return f"{head}: {self.error}>"
        return f"{head}>\n{result_text(self.contents)}"


class Feed:
    """One watched resource on the client thread: subscribed while it runs, re-read on each change.

    Args:
        uri: As listed (what updates name); `sent`: the server's own URI (what is subscribed and read).
        read: Reads the resource (the connection's client).
        subscribed: Keeps the subscription while the feed runs (enters it, pokes the feed on each change).
        initial: Read once at the start (a watch shows the resource at once); updates count from there.
    """

    def __init__(
        self,
        uri: str,
        sent: str,
        read: Callable[[str], Awaitable[mcp_types.ReadResourceResult]],
        subscribed: Callable[[Feed], contextlib.AbstractAsyncContextManager[None]],
        *,
        initial: bool = False,
        interval: float = REREAD_INTERVAL,
    ) -> None:
        self.uri, self.sent = uri, sent
        self._read, self._subscribed = read, subscribed
        self.initial = initial
        self.interval = interval
        self.latest: Update | None = None
        self.number = 0
        self.heard = 0
        self.reads = 0
        self.by = "srv.updates"
        """What reads it, as the wire names its reads ("srv.watch")."""
        self.cap: int | None = None
        """Characters of contents past which a change is counted, not re-read (a watch's); None: no cap."""
        self.over_cap: int | None = None
        """The last read's characters when over `cap`: later changes are counted in `heard`, never read."""
        self.ended: str | None = None
        """Why the feed ended ("the server closed", "stopped"), None while it runs."""
        self.error: BaseException | None = None
        """What ended it, for a reader to raise (a refused subscription)."""
        self.listeners: list[Callable[[Feed], None]] = []
        """Called (client thread) after each update and at the end."""
        self._stale: asyncio.Event | None = None
        self._news: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start on the client thread (callable from any thread)."""
        RUNTIME.loop().call_soon_threadsafe(self._begin)

    def _begin(self) -> None:
        if self.ended is None and self._task is None:
            self._stale, self._news = asyncio.Event(), asyncio.Event()
            self._task = asyncio.ensure_future(self._run())

    @property
    def running(self) -> bool:
        """Its task has not ended yet (it may still be unsubscribing)."""
        return self._task is not None and not self._task.done()

    def poke(self) -> None:
        """The resource changed (client thread)."""
        self.heard += 1
        if self._stale is not None:
            self._stale.set()

    async def _run(self) -> None:
        assert self._stale is not None
        loop = asyncio.get_running_loop()
        try:
            async with self._subscribed(self):
                if self.initial:
                    self._stale.set()
                while True:
                    await self._stale.wait()
                    self._stale.clear()
                    if self.over_cap is not None:
                        self._announce()  # counted, not read: a listener says so
                        continue
                    started = loop.time()
                    await self._reread()
                    await asyncio.sleep(max(0.0, started + self.interval - loop.time()))
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            self.fail(exc)
        finally:
            self._end("stopped")

    async def _reread(self) -> None:
        self.reads += 1
        try:
            with sent_by(f"{self.by}({self.uri!r}): read {self.reads}"):  # the wire's group of its own
                result: mcp_types.ReadResourceResult | None = await self._read(self.sent)
            error = None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            result, error = None, f"reading it failed: {describe_exc(exc)}"
        if self.cap is not None and result is not None and (size := _size(result)) > self.cap:
            self.over_cap = size
        self.number += 1
        now = datetime.datetime.now().astimezone()
        self.latest = Update(self.uri, result, now, self.number, self.heard, error)
        self._announce()

    def _announce(self) -> None:
        news = self._news
        if news is not None:
            self._news = asyncio.Event()
            news.set()
        for listener in list(self.listeners):
            listener(self)

    def _end(self, why: str) -> None:
        if self.ended is None:
            self.ended = why
            self._announce()

    def fail(self, exc: BaseException) -> None:
        """Subscribing failed (the server refused): a reader raises it, in one line (client thread)."""
        why = f"subscribing to {self.uri!r} failed: {describe_exc(exc)}"
        self.error = brief(ServerError(why, code=getattr(exc, "code", mcp_types.INTERNAL_ERROR)))
        self.stop(why)

    def stop(self, why: str = "stopped") -> None:
        """End the feed (client thread): its subscription ends (unsubscribed while connected)."""
        self._end(why)
        task = self._task
        if task is not None and not task.done():
            task.cancel()

    async def finish(self, why: str = "stopped") -> None:
        """`stop`, then wait until its subscription ended (client thread)."""
        self.stop(why)
        task = self._task
        if task is not None:
            await asyncio.wait([task], timeout=5.0)

    def stop_soon(self, why: str = "stopped") -> None:
        """`stop` from any thread (nothing when the client thread is gone: interpreter exit)."""
        RUNTIME.call_soon(self.stop, why)

    async def next(self, after: int) -> Update | None:
        """The newest update numbered after `after`; waits for one. None: the feed ended (client thread)."""
        while True:
            latest = self.latest
            if latest is not None and latest.number > after:
                return latest
            if self.ended is not None:
                if self.error is not None:
                    raise self.error
                return None
            news = self._news
            if news is None:
                await asyncio.sleep(0)  # not begun yet: `start` was just called
                continue
            await news.wait()


def _size(result: mcp_types.ReadResourceResult) -> int:
    """Characters of a read's contents (text and base64 blobs)."""
    return sum(len(getattr(c, "text", "") or "") + len(getattr(c, "blob", "") or "") for c in result.contents)


class Updates:
    """`srv.updates(uri)`: an iterator of a resource's updates (each one an `Update`, re-read), async or not.

    `async for update in srv.updates(uri): ...` subscribes at once and ends its subscription when the loop is
    left (`break`, an error; the iterator dropped), when `aclose()` is called, or when the server closes
    (the loop then ends). `async with srv.updates(uri) as updates:` ends it on leaving the block. In
    synchronous code, `for update in srv.updates(uri):` and `with srv.updates(uri) as updates:` do the same,
    blocking between updates (widget clicks still reach the page; an interrupt ends the loop).
    """

    def __init__(self, feed: Feed) -> None:
        self._feed = feed
        self._seen = 0
        self._waiting: concurrent.futures.Future[Update | None] | None = None
        feed.start()

    @property
    def uri(self) -> str:
        return self._feed.uri

    @property
    def ended(self) -> str | None:
        """Why it ended, or None while it runs."""
        return self._feed.ended

    def __aiter__(self) -> AsyncIterator[Update]:
        return self

    async def __anext__(self) -> Update:
        from ... import kernel

        waiting = self._waiting = RUNTIME.submit(self._feed.next(self._seen))
        try:
            update = await kernel.wait_async(waiting)
        except BaseException:
            waiting.cancel()
            self.close()
            raise
        if update is None:
            raise StopAsyncIteration
        self._seen = update.number
        return update

    def __iter__(self) -> Iterator[Update]:
        return self

    def __next__(self) -> Update:
        from ... import kernel

        waiting = self._waiting = RUNTIME.submit(self._feed.next(self._seen))
        try:
            update = kernel.wait_sync(waiting)
        except BaseException:
            waiting.cancel()
            self.close()
            raise
        if update is None:
            raise StopIteration
        self._seen = update.number
        return update

    def close(self) -> None:
        """End the subscription (from any thread; nothing happens when it ended already)."""
        if self._feed.ended is None:
            self._feed.stop_soon()

    async def aclose(self) -> None:
        """End the subscription and wait until it ended (unsubscribed)."""
        from ... import kernel

        if self._feed.ended is None or self._feed.running:
            await kernel.wait_async(RUNTIME.submit(self._feed.finish()))

    def _finish_sync(self) -> None:
        """`aclose` for synchronous code (leaving `with`): block until unsubscribed."""
        from ... import kernel

        if self._feed.ended is None or self._feed.running:
            kernel.wait_sync(RUNTIME.submit(self._feed.finish()))

    def __enter__(self) -> Updates:
        return self

    def __exit__(self, *exc: object) -> None:
        self._finish_sync()

    async def __aenter__(self) -> Updates:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __del__(self) -> None:
        feed = getattr(self, "_feed", None)
        if feed is not None and feed.ended is None:
            feed.stop_soon()

    def __repr__(self) -> str:
        state = f"ended: {self.ended}" if self.ended else "live"
        return f"<Updates of {self.uri!r}: {state}>"
