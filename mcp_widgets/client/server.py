"""`Server`: a connected MCP server, a thin facade over the parts it is made of (`parts.assemble`).

No part holds the server: each gets the `ServerContext` (the person's settings, checked when set as
`connect` checks them; what the connection learned) and the parts it calls. The SDK client lives on the
client thread (`runtime`); a call's questions are shown on the kernel's main thread in the calling cell
(docs/architecture.md draws the path of one question). Each kind of request has one builder (`_tool`,
`_prompt`, `_resource`, `_template`, `_completion`); its awaited, `_sync` and `_background` methods are a
line each (`plans`).

One concept: the facade itself, every public method of a server with its documentation (each delegates in a
line or two to the part that does the work).
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import mcp_types

from .. import kernel
from ..core import exceptions as errors
from ..core import uri_template
from ..core.card import Handler
from ..core.completion import Completion
from ..core.completion_code import CodeArgument
from ..core.mcp_config import ServerConfig
from ..core.wire import DEFAULT_KEEP
from . import completion, options, parts, plans, registry
from .apps.host import AppList
from .call import Call, Done
from .configs import lookup as configs
from .context import ServerContext, Setting, Settings
from .display import DEFAULT_LOG_LEVEL
from .handshake import wait_connected
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .live import Updates, Watch
from .plans import Plan, Waitable
from .questions.bounds import MAX_QUESTIONS
from .registry import wire
from .results import result_text, show_results
from .targets import Mode, TransportName, resolve_target
from .tasks import experimental as tasks
from .wire.wire import Wire

if TYPE_CHECKING:
    import ipywidgets

    from ..widgets import AppView, Explorer, HistoryPanel, PendingList, PromptForm, TemplateForm, ToolForm
    from .functions import ToolFunctions

__all__ = ["Server", "wire"]


_BUILDING = threading.local()
"""Set while `build` makes a Server (connect, connect_sync, the servers table); one made elsewhere warns."""


def build(target: Any, **options: Any) -> Server:
    """A `Server` as `connect` makes it: not connected yet (`connect` starts it)."""
    _BUILDING.active = True
    try:
        return Server(target, **options)
    finally:
        _BUILDING.active = False


def _check_setting(srv: Server, field: str, value: Any) -> Any:
    """A setting set on `srv` (`srv.max_questions = 5`), checked as `connect` checks it."""
    if field == "name":
        return options.check_name(value, registry.names_held(but=srv))
    return options.CHECKS[field](value)


class Server:
    """A connected MCP server. Create it with `connect` / `connect_sync`; `name`, `declared_name` (what the
    server calls itself) and `protocol_version` say who it is."""

    @errors.argument_errors()  # a mistake in the arguments is one line (docs/troubleshooting.md)
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
        max_questions: int | tuple[int, int] = MAX_QUESTIONS,
        client_id: str | None = None,
        client_metadata_url: str | None = None,
        scopes: Sequence[str] | str | None = None,
        token_store: Any = None,
        config: str | os.PathLike[str] | ServerConfig | None = None,
        apps: bool = True,
        wire: int = DEFAULT_KEEP,
    ) -> None:
        if not getattr(_BUILDING, "active", False):
            warnings.warn(
                "Server(...) built directly never connects: use mw.connect(...) or mw.connect_sync(...) "
                "(building a Server directly is deprecated)",
                DeprecationWarning,
                stacklevel=3,
            )
        entry = configs.lookup(target, config)  # a server's name in an mcp.json file (docs/servers.md)
        hidden: tuple[str, ...] = ()
        if entry is not None:
            target, chosen = configs.server_arguments(
                entry, name=name, env=env, headers=headers, transport=transport
            )
            name, env, headers = chosen["name"], chosen["env"], chosen["headers"]
            transport, hidden = chosen["transport"], chosen["hidden"]
        kept = options.checked(  # each as `Settings` keeps it; the same checks as `srv.timeout = ...`
            {"mode": mode, "log_level": log_level, "max_questions": max_questions, "wire": wire}
            | {"handler": handler, "output": output, "timeout": timeout, "answer_timeout": answer_timeout},
            token_store,
            scopes,
        )
        resolved = resolve_target(target, env)
        if hidden:
            resolved.hide(hidden)  # a value from ${env:...} in `cwd` or `command` is never quoted back
        show_results()  # results read as results in a notebook, from the first server on
        kernel.complete_in_code(Server, _code_values)  # Tab in an argument string: the server's values
        if transport in ("http", "sse") and resolved.kind != "http":
            raise ValueError(f"transport={transport!r} needs an http(s) URL")
        settings = Settings(
            name=options.own_name(name, resolved.name, registry.names_held()), apps=bool(apps), **kept
        )
        self._ctx = ServerContext(settings)
        self._has_secrets = bool(headers or auth or env)
        self._history: HistoryPanel | None = None
        self._fn: tuple[object, ToolFunctions] | None = None
        signin = {"client_id": client_id, "client_metadata_url": client_metadata_url, "scopes": scopes}
        signin["store"] = token_store
        made = parts.assemble(
            self._ctx, resolved, transport=transport, headers=headers, auth=auth, signin=signin, wire=wire
        )  # each part after those it calls (parts.py); the server keeps those it delegates to
        self._wire, self._live, self._tables, self._apps = made.wire, made.live, made.tables, made.apps
        self._open_tasks, self._rounds, self._loose = made.open_tasks, made.rounds, made.loose
        self._connection, self._runner, self._catalog = made.connection, made.runner, made.catalog
        self._completer = made.completer
        registry.add(self, self._ctx, self._wire)

    # The person's settings and what the connection learned live in the context every part reads.
    name = Setting[str]("The name we know it by: `name=`, else the URL's host or the command.")
    handler = Setting["Handler | None"]("Answers its questions (None: the default handler, else the person).")
    mode = Setting[str]('"auto", "legacy" or a protocol version.')
    timeout = Setting["float | None"]("Seconds a request may take (the person's think time not counted).")
    answer_timeout = Setting["float | None"]("Seconds a question waits for an answer (None: no limit).")
    output = Setting["ipywidgets.Output | None"]("The ipywidgets Output calls show in (None: the cell).")
    log_level = Setting["str | None"]("The lowest server log level shown (None: no log messages).")
    max_questions = Setting["tuple[int, int]"]("(per call, open at once): bounds on a server's questions.")

    @property
    def declared_name(self) -> str | None:
        """What the server calls itself (its `serverInfo.name`), or None."""
        return self._ctx.learned.declared_name

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version."""
        return self._ctx.learned.protocol_version

    def _start(self) -> concurrent.futures.Future[None]:
        """Start connecting (for `connect`); the future resolves once the handshake is done."""
        return self._connection.start()

    def _signal_close(self) -> concurrent.futures.Future[None] | None:
        """Ask the connection to end (for `connect`, when connecting failed)."""
        return self._connection.signal_close()

    # -- requests: one builder per kind, each way of waiting for it a line (`plans`) -----------------------
    def _tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        output: Any = None,
        task: bool = False,
    ) -> Plan[mcp_types.CallToolResult]:
        """Call a tool; its questions appear as forms in this cell; returns the tool's result.

        A server that can only ask mid-call (fastmcp's `ctx.elicit`) answers a 2026-07-28 connection with a
        tool error result, returned as is; the cell then shows (and the log says, once per server) to
        connect with mode="legacy".

        Raises:
            SchemaError: On 2026-07-28, the server asked with an invalid schema (nothing was sent back).
            ServerError: The server answered with a protocol error.
            ConnectionClosedError: The server went away during the call.
            RequestTimeout: No answer within `timeout=` (the person's think time not counted).

        A 2025-11-25 tool whose `execution.taskSupport` is "required" runs as an MCP task (so does an
        "optional" one with `task=True`): its questions then wait as long as the task lives.
        """
        args = None if arguments is None else dict(arguments)
        request = tasks.tool_call(self._ctx, self._open_tasks, self._runner.display, name, args, task=task)
        return Plan(self._runner, "tool", name, request, args, output)

    call_tool = plans.awaited(_tool)
    call_tool_sync = plans.blocking(_tool)
    call_tool_background = plans.background(_tool)

    def _prompt(
        self, name: str, arguments: Mapping[str, str] | None = None, *, output: Any = None
    ) -> Plan[mcp_types.GetPromptResult]:
        """Get a prompt (questions the server asks on the way appear as forms, as for tools).

        Raises:
            TypeError: An argument is not text, or the prompt is listed with required arguments not
                given (nothing was sent).
        """
        args = None if arguments is None else dict(arguments)
        sent = self._tables.real_name("prompts", name)  # listed under a redacted name: the server's own
        return Plan(self._runner, "prompt", name, lambda c, _p: c.get_prompt(sent, args), args, output)

    get_prompt = plans.awaited(_prompt)
    get_prompt_sync = plans.blocking(_prompt)
    get_prompt_background = plans.background(_prompt)

    def _resource(self, uri: str, *, output: Any = None) -> Plan[mcp_types.ReadResourceResult]:
        """Read a resource (questions the server asks on the way appear as forms, as for tools).

        Raises:
            ValueError: Its URI still has a template's variables (`{id}`; nothing was sent).
        """
        sent = self._tables.real_name("resources", uri)  # listed under a redacted URI: the server's own
        return Plan(self._runner, "resource", uri, lambda c, _p: c.read_resource(sent), None, output)

    read_resource = plans.awaited(_resource)
    read_resource_sync = plans.blocking(_resource)
    read_resource_background = plans.background(_resource)

    def _template(
        self, template: Any, variables: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> Plan[mcp_types.ReadResourceResult]:
        """Read the resource a resource template names with `variables` (RFC 6570: each operator's values
        percent-encoded as the RFC says): `await srv.read_template("demo://text/{id}", {"id": 3})`.

        Raises:
            TemplateError: Before anything is sent: a required variable has no value (the message names
                the variables to give), `variables` names one the template lacks, or it is no template.
        """
        uri, values = uri_template.expanded(template, variables)
        return Plan(self._runner, "resource", uri, lambda c, _p: c.read_resource(uri), values, output)

    read_template = plans.awaited(_template)
    read_template_sync = plans.blocking(_template)
    read_template_background = plans.background(_template)

    def _form_run(self, build: Callable[..., Plan[Any]]) -> Callable[[str, dict[str, Any], Any], Call]:
        """What a form's Run starts: `build`'s request in the background, its arguments marked as typed (the
        wire names them, never their values)."""
        return lambda name, arguments, out: build(name, arguments, output=out).background(typed=True)

    def updates(self, uri: str) -> Updates:
        """A resource's updates as they come (docs/exploring.md): `async for update in srv.updates(uri):`
        (or `for` in synchronous code, blocking between updates) each `Update` has the re-read `contents`
        and `at` (when). Subscribed at once; unsubscribed when the loop is left or `aclose()`d; the loop ends
        when the server closes. Changes are coalesced (a few re-reads a second at most, the newest always
        read).

        Raises:
            NotImplementedError: The server declares no `resources.subscribe` (nothing was sent).
        """
        return Updates(self._feed(uri, initial=False))

    @errors.one_line
    def watch(self, uri: str) -> Watch:
        """A live view of a resource (docs/exploring.md): shown as a read result is, redrawn in place on each
        update under a status line ("updated 3 times, last 12:01:02"). It ends when its view is closed,
        `watch.stop()` is called or the server closes; `watch.text`, `.updates`, `.wait(n)` from Python.

        Raises:
            NotImplementedError: The server declares no `resources.subscribe` (nothing was sent).
        """
        return Watch(self._feed(uri, initial=True))

    def _feed(self, uri: str, *, initial: bool) -> Any:
        self._connection.require_connected()
        self._live.require_subscribe()
        return self._live.feed(uri, self._tables.real_name("resources", uri), initial=initial)

    @errors.one_line
    async def list_tools(self) -> ToolList:
        """Fetch the tool listing again (also refreshes `tools`)."""
        await self._catalog.relist("tools")
        return self.tools

    @errors.one_line
    async def list_resources(self) -> ResourceList:
        """Fetch the resources and resource templates again (also refreshes `resources`)."""
        await self._catalog.relist("resources")
        return self.resources

    @errors.one_line
    async def list_prompts(self) -> PromptList:
        """Fetch the prompt listing again (also refreshes `prompts`)."""
        await self._catalog.relist("prompts")
        return self.prompts

    @property
    def tools(self) -> ToolList:
        """The tools listed when connecting (`await srv.list_tools()` refreshes); displays as a table."""
        return self._listed("tools")  # type: ignore[no-any-return]

    @property
    def fn(self) -> ToolFunctions:
        """The tools as Python functions with real signatures and docstrings (docs/functions.md):
        `await srv.fn.weather(city="Oslo")`, `srv.fn.weather.sync(...)`, `srv.fn["get-x"]`."""
        from .functions import ToolFunctions

        tools = self.tools
        made = self._fn
        if made is None or made[0] is not tools:
            made = self._fn = (tools, ToolFunctions(tools, self.name, self.call_tool, self.call_tool_sync))
        return made[1]

    @property
    def resources(self) -> ResourceList:
        """The resources and resource templates listed when connecting; displays as a table.

        `await srv.list_resources()` refreshes; empty when the server has no resources capability.
        """
        return self._listed("resources")  # type: ignore[no-any-return]

    @property
    def prompts(self) -> PromptList:
        """The prompts listed when connecting (`await srv.list_prompts()` refreshes); displays as a table."""
        return self._listed("prompts")  # type: ignore[no-any-return]

    def _listed(self, kind: Literal["tools", "resources", "prompts"]) -> Any:
        self._live.want_lists()  # looked at: on 2026-07-28 its changes are listened for from now on
        return self._tables.mark(self._tables.listed(kind), kind)

    @property
    @errors.one_line
    def info(self) -> ServerInfo:
        """Who the server is (name, title, version), the protocol version and its capabilities, and its
        instructions: as learned when connecting (still there after `close`)."""
        return self._catalog.info()

    @errors.one_line
    def form(self, name: str) -> ToolForm:
        """A form for the tool `name`: fill in its arguments, click Run, see the result below it.

        Raises:
            KeyError: The server lists no tool of that name (refresh with `await srv.list_tools()`).
        """
        from ..widgets import tool_form

        return tool_form(self, name, run=self._form_run(self._tool))

    def _completion(
        self,
        *,
        prompt: str | None = None,
        template: str | None = None,
        argument: str,
        value: str = "",
        context: Mapping[str, str] | None = None,
    ) -> Waitable[Completion]:
        """What the server suggests for a prompt's argument or a resource template's variable, given what is
        typed so far (docs/exploring.md): `await srv.complete(prompt="p", argument="city", value="Os")`.

        Args:
            prompt: A listed prompt's name; or `template=`: a listed resource template's URI template.
            argument: The argument (or variable) to complete.
            value: What is typed so far.
            context: The other arguments already filled in (sent as `context.arguments`).

        Raises:
            NotImplementedError: The server declares no `completions` capability (nothing was sent).
            KeyError: It lists no such prompt or template (the message names those it lists).
        """
        subject = self._completer.subject(prompt, template)
        return completion.Asked(self._completer.submit(subject, argument, value, context))

    complete = plans.awaited(_completion)
    complete_sync = plans.blocking(_completion)  # no `_background`: a completion is no call (`Asked`)

    @errors.one_line
    def prompt_form(self, name: str) -> PromptForm:
        """A form for the prompt `name` (its arguments, required ones marked): click Run to see its messages
        below. Only prompts are looked at: a tool of the same name is never taken for it. Where the server
        declares `completions`, its text fields offer the server's values as you type.

        Raises:
            KeyError: The server lists no prompt of that name (refresh with `await srv.list_prompts()`).
        """
        from ..widgets import prompt_form

        asker = self._completer.asker(prompt=name)
        return prompt_form(self, name, result_text, asker, run=self._form_run(self._prompt))

    @errors.one_line
    def template_form(self, template: str) -> TemplateForm:
        """A form for a resource template's variables (by its URI template or its name): it shows the URI
        it will read as you type (and the server's completions, where it declares them); click Read to see
        the resource below.

        Raises:
            KeyError: The server lists no such template (refresh with `await srv.list_resources()`).
        """
        from ..widgets import template_form

        asker = self._completer.asker(template=template)
        return template_form(self, template, result_text, asker, run=self._form_run(self._template))

    @property
    def history(self) -> HistoryPanel:
        """A `HistoryPanel` of this server's questions (when, which call, outcome; never a value)."""
        panel = self._history
        if panel is None or getattr(panel, "_closed", False):
            from ..widgets import HistoryPanel

            panel = self._history = HistoryPanel(server=self.name)
        return panel

    @property
    def pending(self) -> PendingList:
        """This server's open questions, live (see `mw.pending()`), each answerable in the list."""
        from .questions.pending import pending

        return pending(self.name)

    @property
    def connected(self) -> bool:
        return self._connection.state == "connected"

    @errors.one_line
    def sign_out(self) -> None:
        """Forget this server's sign-in: the token store's entry and the tokens in use (the next request
        the server refuses asks again)."""
        self._connection.sign_out()

    @errors.one_line
    def reconnect(self, timeout: float = 10.0) -> Done:
        """Connect again (after the server dropped, or to start afresh): the calls following a 2026-07-28
        task resume polling it on the new connection, and its open questions stay answerable.

        Raises:
            ConnectError: The server could not be reached again.
        """
        ready = self._connection.reconnect(timeout)
        self._loose.reopen()
        wait_connected(ready, self._signal_close)
        return Done(f"reconnected to {self.name!r}")

    @property
    def wire(self) -> Wire:
        """Every JSON-RPC message of this connection, redacted as captured (nothing typed is kept): a cell
        ending with `srv.wire` shows them live, one row per call; `srv.wire.records()` gives plain dicts,
        `srv.wire.save(path)` JSON Lines. `connect(..., wire=N)` keeps the last N (default 5,000; 0: none)."""
        return self._wire

    @property
    def apps(self) -> AppList:
        """The MCP App views of this server live in the notebook (the newest last); displays as a table."""
        return AppList(self._apps.views)

    @errors.one_line
    def open_app(self, tool: str, arguments: Mapping[str, Any] | None = None) -> AppView:
        """Show a tool's MCP App without calling the tool (for app authors): the app gets `arguments` as its
        tool input and no result. Display the returned view (the last expression of a cell shows it).

        Raises:
            ValueError: The server lists no such tool with an app.
        """
        self._connection.require_connected()
        return self._apps.open_app(
            tool, None if arguments is None else dict(arguments), self._runner.app_call
        )

    @errors.one_line
    def close(self, timeout: float = 10.0) -> Done:
        """Disconnect (open forms end as withdrawn; apps are told and end; a stdio server process is
        stopped)."""
        self._apps.end_all("the server was closed")
        self._connection.close(timeout)
        self._closed()
        return Done(f"closed {self.name!r}")

    @errors.one_line
    async def aclose(self) -> None:
        """`close` for async code."""
        self._apps.end_all("the server was closed")
        await self._connection.aclose()
        self._closed()

    def _closed(self) -> None:
        kernel.flush_posted()  # plain python: the withdrawn forms are closed before close returns
        self._loose.close_all()

    async def __aenter__(self) -> Server:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def explore(self) -> Explorer:
        """The server in one view (docs/exploring.md): who it is, then its tools, prompts, resources,
        apps, wire and history, each section built when first opened; a cell ending in `srv` shows it."""
        from .explorer import of_server

        explorer = of_server(self, self._ctx.learned.info, apps=self._ctx.settings.apps)
        self._live.follow(explorer.show_connection)  # marked closed when the connection ends
        if self._connection.state in ("lost", "closed"):
            explorer.show_connection("the connection has ended")
        return explorer

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # The explorer where widgets render, its plain text the repr (what a saved notebook, GitHub and
        # nbconvert show); the repr alone without a frontend, or once the connection has ended.
        text = repr(self)
        if kernel.kernel_support() == "none" or not self.connected:
            return {"text/plain": text}
        return kernel.with_text(self.explore(), text)

    def __repr__(self) -> str:
        head = f"<Server {self.name!r}"
        if self.declared_name and self.declared_name != self.name:
            head += f" (calls itself {self.declared_name!r})"
        connection = self._connection
        parts = [head, f"{connection.via} {connection.target.where}"]
        if self.protocol_version:
            parts.append(f"protocol {self.protocol_version}")
        tools = self._ctx.learned.tools
        if tools is not None:
            parts.append(f"{len(tools)} tool{'' if len(tools) == 1 else 's'}")
        if self._has_secrets:
            parts.append("credentials redacted")
        parts.append(connection.state)
        return parts[0] + "\n  " + " · ".join(parts[1:]) + ">"  # JupyterLab breaks long lines mid-word


plans.name_variants(Server)
for _setting in vars(Server).values():
    if isinstance(_setting, Setting):
        _setting.check = _check_setting  # each setting checked when set, as `connect` checks it


def _code_values(srv: Server, code: CodeArgument) -> list[str]:
    """Tab in an argument string of a call on `srv` (`kernel.complete_in_code`): its completer's values."""
    return srv._completer.code_values(code)
