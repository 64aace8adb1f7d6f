"""What a server offers (tools, resources, prompts) and who it is, as listed when connecting."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from mcp import Client
from mcp.shared.exceptions import MCPError

from ..core.exceptions import brief
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .privacy import resource_name
from .record import CallRecord

if TYPE_CHECKING:
    from .context import ServerContext

log = logging.getLogger("mcp_widgets")


Kind = Literal["tools", "resources", "prompts"]
_VARIABLE = r"[A-Za-z0-9_.%]+(?::[0-9]+|\*)?"
_EXPRESSION = re.compile(rf"\{{[+#./;?&=,!@|]?({_VARIABLE}(?:,{_VARIABLE})*)\}}")
"""An RFC 6570 expression (`{id}`, `{+path}`, `{?q,lang}`): a template's variables, never part of a URI."""


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


def check_prompt(ctx: ServerContext, name: str, arguments: Mapping[str, Any] | None) -> None:
    """Refuse, before sending, an argument that is not text, and a listed prompt without its required
    arguments (a prompt not listed, or listed before it changed, is sent as asked: the server decides)."""
    given = arguments or {}
    wrong = [key for key, value in given.items() if not isinstance(value, str)]
    if wrong:  # MCP's prompt arguments are text (the SDK would call it a malformed answer)
        raise brief(
            TypeError(
                f"prompt {name!r} on {ctx.name!r} was not sent: its arguments are text, and "
                f"{', '.join(map(repr, wrong))} {'is' if len(wrong) == 1 else 'are'} not"
            )
        )
    listed = next((p for p in ctx.learned.prompts or () if p.name == name), None)
    if listed is None:
        return
    wanted = listed.arguments or []
    missing = [a.name for a in wanted if a.required and a.name not in given]
    if missing:
        takes = ", ".join(a.name + ("" if a.required else " (optional)") for a in wanted)
        raise brief(
            TypeError(
                f"prompt {name!r} on {ctx.name!r} was not sent: it needs "
                f"{'the argument' if len(missing) == 1 else 'the arguments'} "
                f"{', '.join(map(repr, missing))} (it takes {takes})"
            )
        )


def check_uri(ctx: ServerContext, uri: str) -> None:
    """Refuse, before sending, a URI with a template's variables left in it (`file:///{path}`, as
    `srv.resources` lists a template): a URI never has one. A listed resource's own URI passes."""
    listed = ctx.learned.resources or ()
    if any(str(getattr(r, "uri", "")) == uri for r in listed):
        return
    names = [v.rstrip("*").split(":")[0] for e in _EXPRESSION.findall(uri) for v in e.split(",")]
    if names:
        raise brief(
            ValueError(
                f"resource {resource_name(listed, uri)!r} on {ctx.name!r} was not read: its URI "
                f"still has the template's {'variable' if len(names) == 1 else 'variables'} "
                f"{', '.join(dict.fromkeys(names))}: fill {'it' if len(names) == 1 else 'them'} in "
                "first (srv.resources.templates lists the templates)"
            )
        )


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
