"""`Live`: a server's live parts on the client thread: resource subscriptions and list changes.

The connection tells it what it hears (`heard`: every server notification), when it is connected
(`connected`) and when it ended (`ended`). It keeps each watched resource's `Feed` subscribed the way the
protocol generation says: on 2025-11-25 `resources/subscribe` (once per URI however many feeds watch it, and
`resources/unsubscribe` when the last one ends) with `notifications/resources/updated`; on 2026-07-28 a
`subscriptions/listen` stream per feed (`resourceSubscriptions: [uri]`), listened again after a drop (no
replay: the resource is re-read). List changes (`notifications/{tools,prompts,resources}/list_changed`, or
on 2026-07-28 a listen stream of them, opened once a listing was looked at) fetch that listing again,
coalesced, and tell the `on_listed` callbacks (a displayed table redraws).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
import weakref
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp import Client
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.exceptions import MCPDeprecationWarning

from ... import kernel
from ...core.exceptions import brief
from ...core.protocol import is_modern
from ...core.redaction import Matcher
from .. import catalog
from ..runtime import RUNTIME
from .feeds import Feed

if TYPE_CHECKING:
    from ..context import ServerContext

log = logging.getLogger("mcp_widgets")

RELIST_INTERVAL = 0.25
"""Seconds between two fetches of one listing (list changes in between are coalesced into one)."""
RELISTEN_TRIES = 5
"""A listen stream dropped this many times in a row ends (the feed says so)."""
REQUEST_TIMEOUT = 30.0

_CHANGED: dict[type[Any], catalog.Kind] = {
    mcp_types.ToolListChangedNotification: "tools",
    mcp_types.PromptListChangedNotification: "prompts",
    mcp_types.ResourceListChangedNotification: "resources",
}


class Live:
    """A server's watched resources and list changes (client thread, but for `watch` and `on_listed`).

    Args:
        ctx: The server's context: its name (for log lines), settings (timeout) and `learned`, where
            listings are fetched into.
        typed: What was typed lately, as a pattern (a listing is redacted with it).
    """

    def __init__(self, ctx: ServerContext, typed: Callable[[], Matcher | None] | None = None) -> None:
        self.ctx = ctx
        self.typed = typed
        self.client: Client | None = None
        self.feeds: set[Feed] = set()
        self._subscribed: dict[str, int] = {}
        """2025-11-25: how many feeds watch each URI (the server's) we subscribed to."""
        self._stale: set[catalog.Kind] = set()
        self._relisting: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_listed: list[Callable[[catalog.Kind], None]] = []
        """Called (client thread) after a list change fetched a listing again."""
        self.relisted = 0
        """How many listings were fetched again after a list change."""
        self.lists_wanted = False
        """A listing was looked at (`srv.tools`, ...): on 2026-07-28 its changes are listened for from then on
        (a stream a connection opens only when someone cares: nothing on the wire otherwise)."""
        self._listening_lists: Client | None = None
        self._followers: list[weakref.WeakMethod[Callable[[str | None], None]]] = []

    def follow(self, told: Callable[[str | None], None]) -> None:
        """Tell the bound method `told` (on the main thread) when the connection starts again (None) or
        ends (why): an explorer marks itself closed. Held weakly: a view gone is forgotten."""
        self._followers.append(weakref.WeakMethod(told))

    def _tell(self, why: str | None) -> None:
        for ref in list(self._followers):
            told = ref()
            if told is None:
                self._followers.remove(ref)
            else:
                kernel.post(partial(told, why))

    # ------------------------------------------------------------------ the connection's hooks

    def connected(self, client: Client) -> None:
        """The handshake is done: list changes are taken from now on (listened for once wanted)."""
        self.client = client
        self._tell(None)
        self._relisting = asyncio.Event()
        self._spawn(self._relister(client))
        if self.lists_wanted:
            self._listen_lists()

    def want_lists(self) -> None:
        """A listing was looked at (any thread): on 2026-07-28 listen for the changes the server declares."""
        if not self.lists_wanted:
            self.lists_wanted = True
            with contextlib.suppress(RuntimeError):
                RUNTIME.loop().call_soon_threadsafe(self._listen_lists)

    def _listen_lists(self) -> None:
        client = self.client
        if client is None or self._listening_lists is client or not is_modern(client.protocol_version):
            return
        self._listening_lists = client
        caps = client.server_capabilities
        kinds = {k: bool(getattr(getattr(caps, k), "list_changed", None)) for k in _CHANGED.values()}
        if any(kinds.values()):
            self._spawn(self._list_changes(client, kinds))

    def heard(self, message: Any) -> None:
        """A server notification (both generations; the 2026-07-28 listen stream's are teed here too)."""
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            uri = str(message.params.uri)
            for feed in list(self.feeds):
                if feed.sent == uri:
                    feed.poke()
        elif (kind := _CHANGED.get(type(message))) is not None:
            self.stale(kind)

    def ended(self, why: str) -> None:
        """The connection ended: every feed ends, saying `why` (any thread; done on the client thread)."""
        if not RUNTIME.in_client_thread() and RUNTIME.call_soon(self.ended, why):
            return  # (no client thread, as at interpreter exit: done here, starting none)
        self.client = self._listening_lists = None
        self._tell(why)
        for feed in list(self.feeds):
            feed.stop(why)
        for task in list(self._tasks):
            task.cancel()
        self._subscribed.clear()

    # ------------------------------------------------------------------ resources

    def require_subscribe(self) -> None:
        """Raises (one line, before anything is sent) unless the server declares `resources.subscribe`."""
        info = self.ctx.learned.info
        resources = info.capabilities.resources if info is not None else None
        if resources is None or not resources.subscribe:
            raise brief(
                NotImplementedError(
                    f"{self.ctx.name!r} does not offer resource subscriptions: it declares no "
                    "`resources.subscribe` capability (nothing was sent)"
                )
            )

    def feed(self, uri: str, sent: str, *, initial: bool = False) -> Feed:
        """A feed of the resource (not started; `Feed.start` subscribes it)."""
        made = Feed(uri, sent, self._read, self._subscription, initial=initial)
        made.listeners.append(self._forget)
        return made

    def _forget(self, feed: Feed) -> None:
        if feed.ended is not None:
            self.feeds.discard(feed)

    async def _read(self, uri: str) -> mcp_types.ReadResourceResult:
        client = self._client()
        return await asyncio.wait_for(client.read_resource(uri), self.ctx.settings.timeout or REQUEST_TIMEOUT)

    def _client(self) -> Client:
        client = self.client
        if client is None:
            raise ConnectionError("the connection was closed")
        return client

    @contextlib.asynccontextmanager
    async def _subscription(self, feed: Feed) -> AsyncIterator[None]:
        client = self._client()
        self.feeds.add(feed)
        if is_modern(client.protocol_version):
            acked = asyncio.Event()
            listening = asyncio.ensure_future(self._listen(client, feed, acked))
            try:
                # Listening before the first read: no change between the two is missed.
                ready = asyncio.ensure_future(acked.wait())
                await asyncio.wait([listening, ready], return_when=asyncio.FIRST_COMPLETED)
                ready.cancel()
                yield
            finally:
                listening.cancel()
            return
        uri = feed.sent
        first = self._subscribed.get(uri, 0) == 0
        self._subscribed[uri] = self._subscribed.get(uri, 0) + 1
        try:
            if first:
                await self._legacy(client, "subscribe_resource", uri)
            yield
        finally:
            left = self._subscribed.get(uri, 0) - 1
            if left > 0:
                self._subscribed[uri] = left
            elif uri in self._subscribed:
                del self._subscribed[uri]
                if self.client is client:  # still connected: tell the server
                    with contextlib.suppress(Exception):
                        await self._legacy(client, "unsubscribe_resource", uri)

    async def _legacy(self, client: Client, method: str, uri: str) -> None:
        with warnings.catch_warnings():  # deprecated as of 2026-07-28; still the 2025-11-25 way
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            call = getattr(client, method)
            await asyncio.wait_for(call(uri), self.ctx.settings.timeout or REQUEST_TIMEOUT)

    async def _listen(self, client: Client, feed: Feed, acked: asyncio.Event) -> None:
        """2026-07-28: a listen stream for the feed's resource, listened again after a drop."""
        drops = 0
        while feed.ended is None:
            try:
                async with client.listen(resource_subscriptions=[feed.sent]) as sub:
                    acked.set()
                    if drops:
                        feed.poke()  # no replay: what changed meanwhile is read again
                    async for _event in sub:
                        drops = 0  # the notification itself reached `heard`, which pokes the feed
                feed.stop("the server ended the subscription")
                return
            except SubscriptionLost:
                drops += 1
                if self.client is not client or drops >= RELISTEN_TRIES:
                    feed.stop("the subscription was lost")
                    return
                await asyncio.sleep(0.1 * 2**drops)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                feed.fail(exc)
                return

    # ------------------------------------------------------------------ list changes

    def stale(self, kind: catalog.Kind) -> None:
        """A listing changed: fetch it again soon (client thread)."""
        self._stale.add(kind)
        if self._relisting is not None:
            self._relisting.set()

    async def _relister(self, client: Client) -> None:
        """Fetches the stale listings, at most one round per RELIST_INTERVAL."""
        assert self._relisting is not None
        loop = asyncio.get_running_loop()
        while self.client is client:
            await self._relisting.wait()
            self._relisting.clear()
            started = loop.time()
            kinds, self._stale = sorted(self._stale), set()
            for kind in kinds:
                try:
                    await asyncio.wait_for(catalog.fetch(self.ctx, client, kind, self.typed), REQUEST_TIMEOUT)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.debug("listing the %s of %s again failed", kind, self.ctx.name, exc_info=True)
                    continue
                self.relisted += 1
                for listener in list(self.on_listed):
                    listener(kind)
            await asyncio.sleep(max(0.0, started + RELIST_INTERVAL - loop.time()))

    async def _list_changes(self, client: Client, kinds: dict[catalog.Kind, bool]) -> None:
        """2026-07-28: one listen stream of the declared list changes, listened again after a drop."""
        drops = 0
        while self.client is client:
            try:
                async with client.listen(
                    tools_list_changed=kinds["tools"],
                    prompts_list_changed=kinds["prompts"],
                    resources_list_changed=kinds["resources"],
                ) as sub:
                    # No replay: what changed before the stream was acknowledged (since the listing was
                    # fetched, or during a drop) is fetched again.
                    for kind, declared in kinds.items():
                        if declared:
                            self.stale(kind)
                    async for _event in sub:
                        drops = 0  # the notification itself reached `heard`
                return
            except SubscriptionLost:
                drops += 1
                if drops >= RELISTEN_TRIES:
                    return
                await asyncio.sleep(0.1 * 2**drops)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.debug("%s refused to listen for list changes", self.ctx.name, exc_info=True)
                return

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
