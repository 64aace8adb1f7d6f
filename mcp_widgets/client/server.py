"""`Server`: a connected MCP server, a thin facade over the parts of the client room it is made of.

Every connection's `mcp.Client` lives on one asyncio event loop in a daemon thread ("mcp-widgets-client",
`runtime`), so the kernel's own loop never runs SDK code and a blocked cell cannot stall the protocol. An
elicitation arrives on that loop (`intake`); it becomes a `PendingRequest`, is handed to the kernel's main
thread (`kernel.post`), which builds the form in the calling cell's container and lets the handler or the
person answer (`answering`), and the loop awaits the request's `reply` future. The calling cell waits on a
future too (`running`): `await` (`kernel.wait_async`), blocking (`kernel.wait_sync`) or not at all (`Call`).

Each call makes one display in its cell (by display id, `display`): empty text until the call has something
to show (a form, progress, a log line), then the call's `CallPanel` box, and plain text again once the call
ended, when every widget model of the call is closed. Progress and log notifications arrive on the client
thread and are coalesced into at most one panel update per FLUSH_INTERVAL on the main thread.

    main thread                        client thread (asyncio)
    -----------                        -----------------------
    call_tool()  -- submit -------->   Client.call_tool()
    display made in the cell             elicitation callback -> PendingRequest
    _present(): form, handler  <-- post --'  awaits request.reply
    click -> request.settle()  -------->   reply sent / call retried with the answer
    wait_async / wait_sync     <--------   result
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from mcp import Client

from ..core.requests import PendingRequest
from .answering import AnsweringMixin, Handler
from .calls import Call, _CallRecord
from .catalog import CatalogMixin
from .connection import ConnectionMixin
from .display import DEFAULT_LOG_LEVEL, LOG_LEVELS, CallDisplayMixin
from .intake import IntakeMixin
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .results import show_results
from .running import RunningMixin, _check_can_block
from .targets import Mode, TransportName, _resolve_target

if TYPE_CHECKING:
    import ipywidgets

    from ..widgets import HistoryPanel, ToolForm

__all__ = ["Server"]


class Server(ConnectionMixin, IntakeMixin, AnsweringMixin, CallDisplayMixin, RunningMixin, CatalogMixin):
    """A connected MCP server. Create it with `connect` / `connect_sync`.

    Attributes:
        name: The name we know it by: `name=`, else the URL's host or the command.
        declared_name: What the server calls itself (its `serverInfo.name`), or None.
        protocol_version: The negotiated protocol version.
    """

    def __init__(
        self,
        target: Any,
        *,
        name: str | None = None,
        handler: Handler | None = None,
        mode: Mode = "auto",
        timeout: float | None = None,
        answer_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        env: Mapping[str, str] | None = None,
        output: ipywidgets.Output | None = None,
        transport: TransportName = "auto",
        log_level: str | None = DEFAULT_LOG_LEVEL,
    ) -> None:
        if mode not in ("auto", "legacy") and not str(mode).startswith("20"):
            raise ValueError(f'mode must be "auto", "legacy" or a protocol version, not {mode!r}')
        if log_level is not None and log_level not in LOG_LEVELS:
            raise ValueError(f"log_level must be None or one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
        self._target = _resolve_target(target, env)
        show_results()  # results read as results in a notebook, from the first server on
        if transport in ("http", "sse") and self._target.kind != "http":
            raise ValueError(f"transport={transport!r} needs an http(s) URL")
        self.name = name or self._target.name
        self.declared_name: str | None = None
        self.protocol_version: str | None = None
        self.handler = handler
        self.mode = mode
        self.timeout = timeout
        self.answer_timeout = answer_timeout
        self.output = output
        self.log_level = log_level
        self._transport = transport
        self._via = "sse" if transport == "sse" else self._target.kind
        self._headers = dict(headers) if headers else {}
        self._auth = auth
        self._has_secrets = bool(headers or auth or env)
        self._client: Client | None = None
        self._state: Literal["new", "connecting", "connected", "closed", "lost"] = "new"
        self._calls: list[_CallRecord] = []  # client thread only
        self._pending: dict[PendingRequest, _CallRecord | None] = {}  # client thread only
        self._closing: asyncio.Event | None = None
        self._runner: concurrent.futures.Future[None] | None = None
        self._errlog: Any = None
        self._tools: ToolList | None = None
        self._resources: ResourceList | None = None
        self._prompts: PromptList | None = None
        self._info: ServerInfo | None = None
        self._history: HistoryPanel | None = None
        self._warned_legacy = False

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> mcp_types.CallToolResult:
        """Call a tool; its questions appear as forms in this cell; returns the tool's result.

        A server that can only ask mid-call (fastmcp's `ctx.elicit`) answers a 2026-07-28 connection with a
        tool error result, returned as is; the cell then shows (and the log says, once per server) to
        connect with mode="legacy".

        Raises:
            SchemaError: On 2026-07-28, the server asked with an invalid schema (nothing was sent back).
            ServerError: The server answered with a protocol error.
            ConnectionClosedError: The server went away during the call.
            RequestTimeout: No answer within `timeout=` (the person's think time not counted).
        """
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="await", arguments=args)
        progress = self._progress_callback(record)
        future = self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        return await self._await(record, future)

    def call_tool_sync(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> mcp_types.CallToolResult:
        """`call_tool` for synchronous code: blocks the cell, while clicks still reach the form.

        Raises:
            BlockingCallError: Inside a widget callback (use `call_tool_background` there), or on a kernel
                that cannot deliver clicks to a blocked cell.
        """
        _check_can_block()
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="sync", arguments=args)
        progress = self._progress_callback(record)
        future = self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        return self._block(record, future)

    def call_tool_background(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> Call:
        """Start a tool call and return at once with a `Call` handle (its forms still appear in this cell)."""
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="background", arguments=args)
        progress = self._progress_callback(record)
        return Call(
            record, self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        )

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None, *, output: Any = None
    ) -> mcp_types.GetPromptResult:
        """Get a prompt (questions the server asks on the way appear as forms, as for tools)."""
        args = dict(arguments) if arguments is not None else None
        record = self._begin("prompt", name, output, style="await", arguments=args)
        future = self._launch(record, lambda c: c.get_prompt(name, args))
        return await self._await(record, future)

    def get_prompt_sync(
        self, name: str, arguments: Mapping[str, str] | None = None, *, output: Any = None
    ) -> mcp_types.GetPromptResult:
        """`get_prompt` for synchronous code."""
        _check_can_block()
        args = dict(arguments) if arguments is not None else None
        record = self._begin("prompt", name, output, style="sync", arguments=args)
        return self._block(record, self._launch(record, lambda c: c.get_prompt(name, args)))

    async def read_resource(self, uri: str, *, output: Any = None) -> mcp_types.ReadResourceResult:
        """Read a resource (questions the server asks on the way appear as forms, as for tools)."""
        record = self._begin("resource", uri, output, style="await")
        future = self._launch(record, lambda c: c.read_resource(uri))
        return await self._await(record, future)

    def read_resource_sync(self, uri: str, *, output: Any = None) -> mcp_types.ReadResourceResult:
        """`read_resource` for synchronous code."""
        _check_can_block()
        record = self._begin("resource", uri, output, style="sync")
        return self._block(record, self._launch(record, lambda c: c.read_resource(uri)))

    def form(self, name: str) -> ToolForm:
        """A form for the tool `name`: fill in its arguments, click Run, see the result below it.

        Raises:
            KeyError: The server lists no tool of that name (refresh with `await srv.list_tools()`).
        """
        from ..widgets import tool_form

        return tool_form(self, name)

    @property
    def history(self) -> HistoryPanel:
        """A `HistoryPanel` of this server's questions (when, which call, outcome; never a value)."""
        panel = self._history
        if panel is None or getattr(panel, "_closed", False):
            from ..widgets import HistoryPanel

            panel = self._history = HistoryPanel(server=self.name)
        return panel

    @property
    def connected(self) -> bool:
        return self._state == "connected"

    def __repr__(self) -> str:
        head = f"<Server {self.name!r}"
        if self.declared_name and self.declared_name != self.name:
            head += f" (calls itself {self.declared_name!r})"
        parts = [head, f"{self._via} {self._target.where}"]
        if self.protocol_version:
            parts.append(f"protocol {self.protocol_version}")
        if self._tools is not None:
            parts.append(f"{len(self._tools)} tool{'' if len(self._tools) == 1 else 's'}")
        if self._has_secrets:
            parts.append("credentials redacted")
        parts.append(self._state)
        return parts[0] + "\n  " + " · ".join(parts[1:]) + ">"  # JupyterLab breaks long lines mid-word
