"""What a server offers (tools, resources, prompts) and who it is, as listed when connecting."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from mcp import Client
from mcp.shared.exceptions import MCPError

from ..core.redaction import Matcher
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .privacy import redacted_listing
from .record import CallRecord

if TYPE_CHECKING:
    from .context import ServerContext

log = logging.getLogger("mcp_widgets")


Kind = Literal["tools", "resources", "prompts"]


async def fetch(
    ctx: ServerContext, client: Client, kind: Kind, typed: Callable[[], Matcher | None] | None = None
) -> None:
    """Fetch every page of one listing into `ctx.learned` (client thread); none without the capability.

    What a server lists may quote what was typed (it renamed a tool after the answer): `typed` gives that as
    a pattern, and the listing is redacted with it (`privacy.redacted_listing`).
    """
    learned = ctx.learned
    if getattr(client.server_capabilities, kind) is None:
        return
    pattern = typed() if typed is not None else None
    if kind == "tools":
        tools = await _all_pages(client.list_tools, "tools")
        learned.tools = _listed(ToolList, tools, learned.tools, pattern)
    elif kind == "prompts":
        prompts = await _all_pages(client.list_prompts, "prompts")
        learned.prompts = _listed(PromptList, prompts, learned.prompts, pattern)
    else:
        resources = await _all_pages(client.list_resources, "resources")
        try:
            templates = await _all_pages(client.list_resource_templates, "resource_templates")
        except MCPError:  # a server may list resources but not implement templates
            log.debug("listing the resource templates of %s failed", ctx.name, exc_info=True)
            templates = []
        learned.resources = _listed(ResourceList, [*resources, *templates], learned.resources, pattern)


L = TypeVar("L", ToolList, PromptList, ResourceList)


def _listed(kind: type[L], items: list[Any], before: L | None, typed: Matcher | None) -> L:
    shown, real, clean = redacted_listing(items, typed, before.clean if before is not None else frozenset())
    return kind(shown, real, clean)


RunCall = Callable[[CallRecord, Callable[[Client], Awaitable[None]]], Awaitable[None]]
"""Runs a request as a call of its own and waits for it (`Runner.launch`, then `Runner.wait`)."""


class Catalog:
    """A server's listings (tools, resources, prompts) on request, and who it is.

    Args:
        require_connected: Raises unless the server is connected (saying why).
        run: Runs a request as a call.
    """

    def __init__(
        self,
        ctx: ServerContext,
        require_connected: Callable[[], object],
        run: RunCall,
        typed: Callable[[], Matcher | None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.require_connected = require_connected
        self.run = run
        self.typed = typed
        """What was typed in the server's calls lately, as a pattern: a listing is redacted with it."""

    async def relist(self, kind: Kind) -> None:
        """Fetch one listing again, as a call of its own (kind "list")."""
        self.require_connected()
        await self.run(CallRecord(self.ctx, "list", kind), lambda c: fetch(self.ctx, c, kind, self.typed))

    def info(self) -> ServerInfo:
        """Who the server is, as learned when connecting (raises when it never connected)."""
        info = self.ctx.learned.info
        if info is None:
            self.require_connected()  # never connected: says so
        assert info is not None
        return info


async def _all_pages(list_page: Callable[..., Awaitable[Any]], items: str) -> list[Any]:
    """Every item of a paginated listing (`list_page(cursor=...)`), bounded at 100 pages."""
    out: list[Any] = []
    cursor = None
    for _ in range(100):
        page = await list_page(cursor=cursor, cache_mode="refresh")
        out.extend(getattr(page, items))
        cursor = page.next_cursor
        if cursor is None:
            break
    return out
