"""What a server offers (tools, resources, prompts) and who it is, as listed when connecting."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from mcp import Client
from mcp.shared.exceptions import MCPError

from .calls import _CallRecord
from .listings import PromptList, ResourceList, ServerInfo, ToolList

if TYPE_CHECKING:
    from .connection import Connection
    from .running import Runner
    from .server import Server

log = logging.getLogger("mcp_widgets")


Kind = Literal["tools", "resources", "prompts"]


class Catalog:
    """A server's listings (tools, resources, prompts), fetched when connecting and on request."""

    def __init__(self, server: Server, connection: Connection, runner: Runner) -> None:
        self.server = server
        self.connection = connection
        self.runner = runner
        self.tools: ToolList | None = None
        self.resources: ResourceList | None = None
        self.prompts: PromptList | None = None

    async def fetch(self, client: Client, kind: Kind) -> None:
        """Fetch every page of one listing and keep it (client thread); none without the capability."""
        if getattr(client.server_capabilities, kind) is None:
            return
        if kind == "tools":
            self.tools = ToolList(await _all_pages(client.list_tools, "tools"))
        elif kind == "prompts":
            self.prompts = PromptList(await _all_pages(client.list_prompts, "prompts"))
        else:
            resources = await _all_pages(client.list_resources, "resources")
            try:
                templates = await _all_pages(client.list_resource_templates, "resource_templates")
            except MCPError:  # a server may list resources but not implement templates
                log.debug("listing the resource templates of %s failed", self.server.name, exc_info=True)
                templates = []
            self.resources = ResourceList([*resources, *templates])

    async def relist(self, kind: Kind) -> None:
        """Fetch one listing again, as a call of its own (kind "list")."""
        self.connection.require_connected()
        record = _CallRecord(self.server, "list", kind)
        runner = self.runner
        await runner.wait(record, runner.launch(record, lambda c: self.fetch(c, kind)))

    def info(self) -> ServerInfo:
        """Who the server is, as learned when connecting (raises when it never connected)."""
        info = self.connection.info
        if info is None:
            self.connection.require_connected()  # never connected: says so
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
