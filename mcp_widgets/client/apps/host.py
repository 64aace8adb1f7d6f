"""A server's MCP Apps: which tools have one, their documents, and the app views live in the notebook.

A call of a tool whose `_meta.ui.resourceUri` names a `ui://` resource shows the app under the call's line in
the calling cell (or as an entry of its `output=`): the view appears at once, its document is read with
`resources/read` (once per connection, then cached), and the call's arguments and result reach the app
through its bridge (`bridge`). No app is shown where nobody can see one (plain Python, a headless run: a
call never waits for an app), nor when the server was connected with `apps=False` (then the extension is not
advertised either, and the server sends text only).
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.client.extension import ClientExtension, advertise

from ... import kernel
from ...core import app_policy
from ..listings import Table
from ..record import sent_by
from ..runtime import RUNTIME, on_main_after
from . import links
from .bridge import AppBridge, AppCalls, show_in
from .questions import QUESTION_START, QuestionBridge, answer_later

if TYPE_CHECKING:
    from ...widgets import AppView, ElicitationForm
    from ..context import ServerContext
    from ..record import CallRecord

log = logging.getLogger("mcp_widgets.apps")

__all__ = ["MAX_VIEWS", "AppHost", "AppList", "app_tool"]

MAX_VIEWS = 20
"""Live app views per server at most; a further one closes the oldest (a loop of calls stays bounded)."""


def app_tool(tools: Any, name: str) -> tuple[mcp_types.Tool, str] | None:
    """The listed tool `name` and its app's `ui://` URI, or None when it has no app."""
    for tool in tools or ():
        if tool.name == name:
            uri = app_policy.app_resource_uri(tool.meta)
            return (tool, uri) if uri is not None else None
    return None


class AppList(Table):
    """A server's app views live in the notebook (`srv.apps`: `AppView`s, the newest last), as a table like
    the server's other listings. An app showing a question (no tool) reads "(a question)" as its tool."""

    columns = ("tool", "app", "state")
    noun = "apps"

    def row(self, item: AppView) -> tuple[str, ...]:
        state = "closed" if item.closed else "live" if item.initialized else "starting"
        return (item.tool or "(a question)", item.resource_uri, state)


class AppHost:
    """A server's apps: the extension it advertises, app documents (cached per connection), live views."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.views: list[AppView] = []
        self._documents: dict[str, concurrent.futures.Future[app_policy.AppDocument]] = {}
        self._documents_of: object = None
        self._bridges: dict[int, AppBridge] = {}

    def extensions(self) -> list[ClientExtension]:
        """What the connection advertises: the apps extension (with app-rendered questions), unless
        `apps=False`."""
        if not self.ctx.settings.apps:
            return []
        offer = {"mimeTypes": [app_policy.APP_MIME_TYPE], "elicitation": {}}
        return [advertise(app_policy.EXTENSION_ID, offer)]

    def renders_questions(self) -> bool:
        """Both sides said so: apps are on here, and the server declared app-rendered questions."""
        client = self.ctx.link.client
        if not self.ctx.settings.apps or client is None:
            return False
        extensions = getattr(client.server_capabilities, "extensions", None) or {}
        ours = extensions.get(app_policy.EXTENSION_ID) if isinstance(extensions, dict) else None
        return isinstance(ours, dict) and isinstance(ours.get("elicitation"), dict)

    def render_question(self, form: ElicitationForm, uri: str, params: Mapping[str, Any]) -> AppView:
        """Show the server's app `uri` in `form` instead of its fields; the app's answer answers the form
        (checked by it), and any failure brings the plain form back (see `questions`)."""
        from ...widgets import AppView

        view = AppView(tool="", resource_uri=uri, server=self.ctx.name, label=f"The app of {self.ctx.name}")
        view.title.layout.display = "none"  # the form's header already names the server
        bridge = QuestionBridge(
            view,
            params=params,
            server=self.ctx.name,
            read=self._read,
            open_link=partial(links.present, self.ctx),
            answered=partial(answer_later, form),
            failed=lambda why: kernel.post(partial(form.use_plain_form, f"The plain form instead: {why}.")),
        )
        view.on_close(lambda: bridge.close_frame("The question ended."))
        view.set_teardown(bridge.teardown)
        form.embed(view)
        # After the answer went out (the form's first done callbacks send it), the app is told and goes;
        # so too when the question ends otherwise (withdrawn, the call or connection gone).
        form.add_done_callback(lambda _: kernel.post(partial(view.end, "the question ended")))
        self._document(uri).add_done_callback(lambda fut: kernel.post(lambda: _deliver(bridge, fut)))
        on_main_after(QUESTION_START, bridge.timed_out)
        return view

    # -- showing an app --------------------------------------------------------------------------------------
    def begin(self, record: CallRecord, arguments: Mapping[str, Any] | None, calls: AppCalls) -> None:
        """A tool call started where someone sees it: show its app under it, if it has one (main thread)."""
        if not self.ctx.settings.apps or record.kind != "tool" or record.panel is None:
            return
        found = app_tool(self.ctx.learned.tools, record.name)
        if found is None:
            return
        tool, uri = found
        view, bridge = self._view(tool, uri, arguments, calls)
        record.app = bridge
        if record.out is None:
            kernel.display_as(kernel.bundle_of(view), f"{record.display_id}-app")
        else:
            show_in(record.out, view)

    def ended(self, record: CallRecord) -> None:
        """The call ended: its result, or why it stopped, goes to its app (main thread)."""
        bridge = getattr(record, "app", None)
        fut = record.future
        if not isinstance(bridge, AppBridge) or fut is None or not fut.done():
            return
        if fut.cancelled():
            bridge.finished(cancelled=record.why or "the call was cancelled")
        elif (exc := fut.exception()) is not None:
            bridge.finished(cancelled=str(exc)[:500] or type(exc).__name__)
        else:
            bridge.finished(fut.result())

    def open_app(self, name: str, arguments: Mapping[str, Any] | None, calls: AppCalls) -> AppView:
        """A tool's app without calling the tool (for app authors): the app gets the arguments, no result."""
        found = app_tool(self.ctx.learned.tools, name)
        if found is None:
            known = [t.name for t in self.ctx.learned.tools or () if app_policy.app_resource_uri(t.meta)]
            raise ValueError(
                f"{self.ctx.name!r} lists no tool {name!r} with an app"
                + (f" (tools with an app: {', '.join(known)})" if known else " (none of its tools has one)")
            )
        tool, uri = found
        view, _ = self._view(tool, uri, arguments, calls)
        # An app opened this way waits for a result that never comes ("Waiting for the roll..."): say so,
        # and how to see it with one.
        given = "the arguments given and no result" if arguments is not None else "no tool input or result"
        view.say(
            f"Opened without calling {tool.name}: the app gets {given}. Call the tool to see it with one."
        )
        return view

    def _view(
        self, tool: mcp_types.Tool, uri: str, arguments: Mapping[str, Any] | None, calls: AppCalls
    ) -> tuple[AppView, AppBridge]:
        from ...widgets import AppView

        while len(self.views) >= MAX_VIEWS:  # a runaway caller: the oldest app goes
            oldest = self.views.pop(0)
            oldest.end(f"more than {MAX_VIEWS} apps of {self.ctx.name!r} were open")
        label = f"App {tool.name} from {self.ctx.name}"
        view = AppView(tool=tool.name, resource_uri=uri, server=self.ctx.name, label=label)
        bridge = AppBridge(
            view,
            tool=tool,
            arguments=arguments,
            server=self.ctx.name,
            tools=lambda: list(self.ctx.learned.tools or ()),
            call=calls,
            read=self._read,
            open_link=partial(links.present, self.ctx),
        )
        self.views.append(view)
        self._bridges[id(view)] = bridge
        view.on_close(lambda: self._closed(view))
        view.set_teardown(bridge.teardown)
        self._document(uri).add_done_callback(lambda fut: kernel.post(lambda: _deliver(bridge, fut)))
        return view, bridge

    def _closed(self, view: AppView) -> None:
        bridge = self._bridges.pop(id(view), None)
        if view in self.views:
            self.views.remove(view)
        if bridge is not None:
            bridge.close_frame("The app was closed.")

    def end_all(self, reason: str) -> None:
        """The server goes: every app is told, then shows one line where it was (main thread)."""
        for view in list(self.views):
            bridge = self._bridges.pop(id(view), None)
            self.views.remove(view)
            if bridge is None:
                continue
            bridge.teardown(reason, partial(_ended_line, bridge, view, reason))

    # -- documents -------------------------------------------------------------------------------------------
    def _document(self, uri: str) -> concurrent.futures.Future[app_policy.AppDocument]:
        client = self.ctx.link.client
        if client is not self._documents_of:  # a new connection: the server may have changed its apps
            self._documents_of = client
            self._documents.clear()
        fut = self._documents.get(uri)
        if fut is None or (fut.done() and fut.exception() is not None):
            fut = RUNTIME.submit(self._fetch(uri))
            self._documents[uri] = fut
        return fut

    async def _fetch(self, uri: str) -> app_policy.AppDocument:
        client = self.ctx.link.client
        if client is None:
            raise app_policy.AppError(f"{self.ctx.name!r} is not connected")
        with sent_by(f"app {uri}: its document"):  # the wire's group of its own
            result = await client.read_resource(uri)
        contents = [c.model_dump(by_alias=True, mode="json") for c in result.contents]
        return app_policy.read_document(uri, contents)

    def _read(self, uri: str) -> concurrent.futures.Future[mcp_types.ReadResourceResult]:
        client = self.ctx.link.client

        async def read() -> mcp_types.ReadResourceResult:
            if client is None:
                raise app_policy.AppError(f"{self.ctx.name!r} is not connected")
            return await client.read_resource(uri)

        return RUNTIME.submit(read())


def _deliver(bridge: AppBridge, fut: concurrent.futures.Future[app_policy.AppDocument]) -> None:
    exc = fut.exception()
    if exc is None:
        bridge.show(fut.result())
        return
    why = str(exc) if isinstance(exc, app_policy.AppError) else f"reading its resource failed: {exc}"
    log.info("an app could not be shown: %s", why)
    bridge.fail(why[:500])


def _ended_line(bridge: AppBridge, view: AppView, reason: str) -> None:
    bridge.close_frame(f"{view.title.value}: ended ({reason})")  # in the app's place: said once
