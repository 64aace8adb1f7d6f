"""What a server offers (tools, resources, prompts) and who it is, as listed when connecting."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from mcp import Client
from mcp.shared.exceptions import MCPError

from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .record import CallRecord

if TYPE_CHECKING:
    from .context import ServerContext

log = logging.getLogger("mcp_widgets")


Kind = Literal["tools", "resources", "prompts"]


async def fetch(ctx: ServerContext, client: Client, kind: Kind) -> None:
    """Fetch every page of one listing into `ctx.learned` (client thread); none without the capability."""
    learned = ctx.learned
    if getattr(client.server_capabilities, kind) is None:
        return
    if kind == "tools":
        learned.tools = ToolList(await _all_pages(client.list_tools, "tools"))
    elif kind == "prompts":
        learned.prompts = PromptList(await _all_pages(client.list_prompts, "prompts"))
    else:
        resources = await _all_pages(client.list_resources, "resources")
        try:
            templates = await _all_pages(client.list_resource_templates, "resource_templates")
        except MCPError:  # a server may list resources but not implement templates
            log.debug("listing the resource templates of %s failed", ctx.name, exc_info=True)
            templates = []
        learned.resources = ResourceList([*resources, *templates])


RunCall = Callable[[CallRecord, Callable[[Client], Awaitable[None]]], Awaitable[None]]
"""Runs a request as a call of its own and waits for it (`Runner.launch`, then `Runner.wait`)."""


class Catalog:
    """A server's listings (tools, resources, prompts) on request, and who it is.

    Args:
        require_connected: Raises unless the server is connected (saying why).
        run: Runs a request as a call.
    """

    def __init__(self, ctx: ServerContext, require_connected: Callable[[], object], run: RunCall) -> None:
        self.ctx = ctx
        self.require_connected = require_connected
        self.run = run

    async def relist(self, kind: Kind) -> None:
        """Fetch one listing again, as a call of its own (kind "list")."""
        self.require_connected()
        await self.run(CallRecord(self.ctx, "list", kind), lambda c: fetch(self.ctx, c, kind))

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
