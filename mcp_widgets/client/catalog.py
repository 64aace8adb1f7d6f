"""What a server offers (tools, resources, prompts) and who it is, as listed when connecting."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcp import Client
from mcp.shared.exceptions import MCPError

from .calls import _CallRecord
from .listings import PromptList, ResourceList, ServerInfo, ToolList

log = logging.getLogger("mcp_widgets")


class CatalogMixin:
    """`Server`: the listings, fetched when connecting and on request."""

    async def _fetch_listing(self, client: Client, kind: Literal["tools", "resources", "prompts"]) -> None:
        """Fetch every page of one listing and keep it (client thread); none without the capability."""
        if getattr(client.server_capabilities, kind) is None:
            return
        if kind == "tools":
            self._tools = ToolList(await _all_pages(client.list_tools, "tools"))
        elif kind == "prompts":
            self._prompts = PromptList(await _all_pages(client.list_prompts, "prompts"))
        else:
            resources = await _all_pages(client.list_resources, "resources")
            try:
                templates = await _all_pages(client.list_resource_templates, "resource_templates")
            except MCPError:  # a server may list resources but not implement templates
                log.debug("listing the resource templates of %s failed", self.name, exc_info=True)
                templates = []
            self._resources = ResourceList([*resources, *templates])

    async def _relist(self, kind: Literal["tools", "resources", "prompts"]) -> None:
        self._require_connected()
        record = _CallRecord(self, "list", kind)
        await self._await(record, self._launch(record, lambda c: self._fetch_listing(c, kind)))

    async def list_tools(self) -> ToolList:
        """Fetch the tool listing again (also refreshes `tools`)."""
        await self._relist("tools")
        return self.tools

    async def list_resources(self) -> ResourceList:
        """Fetch the resources and resource templates again (also refreshes `resources`)."""
        await self._relist("resources")
        return self.resources

    async def list_prompts(self) -> PromptList:
        """Fetch the prompt listing again (also refreshes `prompts`)."""
        await self._relist("prompts")
        return self.prompts

    @property
    def tools(self) -> ToolList:
        """The tools listed when connecting (`await srv.list_tools()` refreshes); displays as a table."""
        return self._tools if self._tools is not None else ToolList()

    @property
    def resources(self) -> ResourceList:
        """The resources and resource templates listed when connecting; displays as a table.

        `await srv.list_resources()` refreshes; empty when the server has no resources capability.
        """
        return self._resources if self._resources is not None else ResourceList()

    @property
    def prompts(self) -> PromptList:
        """The prompts listed when connecting (`await srv.list_prompts()` refreshes); displays as a table."""
        return self._prompts if self._prompts is not None else PromptList()

    @property
    def info(self) -> ServerInfo:
        """Who the server is (name, title, version), the protocol version and its capabilities, and its
        instructions: as learned when connecting (still there after `close`)."""
        if self._info is None:
            self._require_connected()  # never connected: says so
        assert self._info is not None
        return self._info


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
