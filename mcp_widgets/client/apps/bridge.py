"""The bridge of one app view: the kernel answers the app's JSON-RPC, message by message (main thread).

The browser only relays (`assets/app_frame.js`); every decision is taken here. Each message is checked
(`core.app_policy.parse_message`); a malformed one gets a JSON-RPC error, never an exception in the
kernel. What the app may do, and how it shows:
- `ui/initialize` → host info, capabilities and the host context (theme and style variables from the front
  end, display mode `inline`, the width, locale, time zone); after `ui/notifications/initialized` the tool's
  input and, once the call ended, its result (or `tool-cancelled`) follow, and theme or width changes.
- `tools/call`: only tools this server lists with `"app"` in their visibility, run as calls of their own
  under the app (their questions show there), at most MAX_CALLS at once; more are refused, counted on a line.
- `resources/read` from this server; `notifications/message` as a line; `ui/notifications/size-changed`
  followed (bounded, at most SIZE_RATE a second: a resize storm cannot loop); `ui/open-link` as a URL card
  on the path every card takes (`links`: a handler may answer it, the history records it; never opened
  without a click); `ui/message` and `ui/update-model-context` kept on the view for Python (no model
  here), said by a line that never quotes them; `ui/request-display-mode` answers inline.
- Teardown: `ui/resource-teardown` (its answer awaited, briefly) before the view closes or the server goes.
- The frame's document must stay the app's own: a batch whose messages came from an origin other than an
  opaque one (`"null"`), or the relay's word that the app's frame loaded anything else (a navigation, even a
  blocked one), ends the app at once; nothing from its frame is taken again.

One concept: the host's half of one protocol (the bridge's methods, each checked and answered, and the
batching, pacing and bounds that keep a hostile app from flooding the kernel or the page), read best whole.
"""

from __future__ import annotations

import base64
import concurrent.futures
import logging
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types

from ... import kernel
from ...core import app_policy
from ...core.text import byte_size, clip_line, plural, shorten, shown
from ...core.version import __version__
from ..runtime import on_main_after

if TYPE_CHECKING:
    from ...widgets import AppView
    from ..call import Call

log = logging.getLogger("mcp_widgets.apps")

MAX_CALLS = 4
"""An app's tool calls in flight at once; more are refused (a runaway app is bounded like a server)."""
SIZE_RATE = 20
"""Height changes applied a second at most (the newest wins)."""
TEARDOWN_WAIT = 2.0
"""Seconds the app has to answer `ui/resource-teardown` before its view goes anyway."""
MAX_HEIGHT = 2000
GONE_GRACE = 60.0
"""Seconds a view that left the page is kept for a reload before it is closed."""
MAX_BATCH = 1000
"""Messages from an app taken in one batch from the front end at most (its relay sends 500)."""
CALLS_SHOWN = MAX_CALLS + 2
"""Entries kept under an app (its calls and link cards, the newest)."""


class AppCalls(Protocol):
    """Runs an app's tool call as a call of its own, shown in `output` (the runner's background call)."""

    def __call__(self, name: str, arguments: dict[str, Any] | None, output: Any) -> Call: ...


ReadResource = Callable[[str], "concurrent.futures.Future[mcp_types.ReadResourceResult]"]
"""Reads a resource of the app's server (on the client thread)."""

OpenLink = Callable[["AppView", str, Callable[[bool], None]], None]
"""Asks whether the app in a view may open a URL (`links.present`, the path every card takes); the callback
hears whether it was agreed to."""


def _dump(result: Any) -> Any:
    dump = getattr(result, "model_dump", None)
    return dump(by_alias=True, mode="json", exclude_none=True) if dump is not None else result


class AppBridge:
    """The kernel's side of one app view: checks and answers what the app sends, tells it what happens."""

    def __init__(
        self,
        view: AppView,
        *,
        tool: mcp_types.Tool | None,
        arguments: Mapping[str, Any] | None,
        server: str,
        tools: Callable[[], list[mcp_types.Tool]],
        call: AppCalls,
        read: ReadResource,
        open_link: OpenLink,
    ) -> None:
        self.view = view
        self.tool = tool
        self.arguments = dict(arguments or {})
        self.server = server
        self.tools = tools
        self.call = call
        self.read = read
        self.open_link = open_link
        self.document: app_policy.AppDocument | None = None
        self.failed: str | None = None
        self.bound: str | None = None
        """The front-end view the app runs in (the newest that said ready)."""
        self.context: dict[str, Any] = {}
        self._initialized = False
        self.ended: tuple[str, Any] | None = None
        """How the call ended: ("result", the result as JSON) or ("cancelled", why); None while it runs."""
        self.in_flight = 0
        self.refused = 0
        self.gone = False
        self.left: str | None = None
        """Why the app's frame stopped holding the app's document (then the app ended), or None."""
        self._size: float | None = None
        self._size_due = False
        self._refusal = ""
        self._refusal_due = False
        self._next_id = 0
        self._batching = False
        self._outbox: list[dict[str, Any]] = []
        self._waiting: dict[str | int, Callable[[Any], None]] = {}
        view.frame.on_msg(self._on_frontend)

    @property
    def initialized(self) -> bool:
        """The app said `ui/notifications/initialized` in its current document (the view shows the same)."""
        return self._initialized

    @initialized.setter
    def initialized(self, value: bool) -> None:
        self._initialized = self.view.initialized = value  # one state, shown on the view too

    # -- from the host side ----------------------------------------------------------------------------------
    def show(self, document: app_policy.AppDocument) -> None:
        """The app's document arrived: show it in the bound view (or the first one to say ready)."""
        self.document = document
        notes = []
        if document.granted:
            notes.append(f"may use: {', '.join(document.granted)}")
        if document.domains:
            notes.append(f"may reach: {', '.join(document.domains)}")
        if notes:
            self.view.say(f"This app {'; '.join(notes)}")
        if document.dropped:
            self.view.say(f"Left out of the app's policy (not plain origins): {', '.join(document.dropped)}")
        if self.bound is not None:
            self._send_document()

    def fail(self, why: str) -> None:
        """The app cannot be shown: say why where it would have been."""
        self.failed = why
        self.view.say(f"The app could not be shown: {why}")
        if self.bound is not None:
            self._frame({"kind": "closed", "text": f"The app could not be shown: {why}"})

    def finished(self, result: Any = None, cancelled: str | None = None) -> None:
        """The call the app belongs to ended: its result (or why it was cancelled) goes to the app."""
        if self.ended is not None:
            return
        if cancelled is not None:
            self.ended = ("cancelled", cancelled)
        else:
            self.ended = ("result", _dump(result))
        if self.initialized:
            self._send_ending()

    def teardown(self, reason: str, then: Callable[[], None]) -> None:
        """Tell the app it is going (`ui/resource-teardown`), then run `then` once it answered or after
        TEARDOWN_WAIT seconds, whichever comes first."""
        done = False

        def finish(_: Any = None) -> None:
            nonlocal done
            if done:
                return
            done = True
            then()

        if not self.initialized or self.bound is None or self.gone:
            finish()
            return
        msg_id = self._request("ui/resource-teardown", {"reason": reason}, finish)
        on_main_after(TEARDOWN_WAIT, lambda: self._timed_out(msg_id, finish))

    def _timed_out(self, msg_id: str | int, finish: Callable[[Any], None]) -> None:
        if self._waiting.pop(msg_id, None) is not None:
            finish(None)

    def close_frame(self, text: str) -> None:
        """End the app in the browser: its frame goes, `text` stays in its place."""
        self.initialized = False
        self._frame({"kind": "closed", "text": text})
        self.bound = None

    # -- from the front end ----------------------------------------------------------------------------------
    def _on_frontend(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or self.view.closed:
            return
        view_id = content.get("view")
        kind = content.get("kind")
        if not isinstance(view_id, str) or len(view_id) > 100:
            return
        if kind == "ready":
            self._ready(view_id, content.get("context"))
            return
        if view_id != self.bound:
            return  # an older view (the page reloaded, a second view): the newest one runs the app
        self._batching = True
        try:
            if kind == "left" or (kind == "rpc" and content.get("origin") != "null"):
                # The app's document is no longer what talks: its messages are refused, unread.
                why = content.get("why") if kind == "left" else "origin"
                self._left(_LEFT.get(why if isinstance(why, str) else "", _LEFT["origin"]))
            elif kind == "rpc":
                texts = content.get("texts")
                if isinstance(texts, list):
                    for text in texts[:MAX_BATCH]:
                        if isinstance(text, str):
                            self._receive(text)
            elif kind == "bad":
                msg_id = content.get("id")
                reason = "too large" if content.get("reason") == "too large" else "not JSON"
                if isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool):
                    self._error(msg_id, app_policy.INVALID_REQUEST, f"message {reason}")
                self._note_refusal(f"a message {reason}")
            elif kind == "context":
                self._context_changed(content.get("context"))
            elif kind == "gone":
                self.gone = True
                self.initialized = False
                self._forget_if_still_gone(view_id)
        except Exception:  # a bug of ours must not take the kernel's comm handling down
            log.exception("mcp_widgets: handling a message from an app failed")
        finally:
            self._batching = False
            self._flush()

    def _forget_if_still_gone(self, view_id: str) -> None:
        """The app's view left the page (its output cleared, the cell run again, the page closed): unless a
        view says ready within GONE_GRACE seconds (a reload), the view is closed and its models freed."""

        def check() -> None:
            if self.gone and self.bound == view_id and not self.view.closed:
                self.view.close()

        on_main_after(GONE_GRACE, check)

    def _left(self, why: str) -> None:
        """The app's frame no longer holds its document (it navigated away, or another origin speaks): the
        app ends here, with a line saying why, and is never shown again in this view's place."""
        if self.left is not None:
            return
        self.left = why
        self._waiting.clear()
        log.info("an app ended: %s", why)
        self.close_frame(f"{self.view.title.value}: ended ({why})")

    def _ready(self, view_id: str, context: Any) -> None:
        self.bound = view_id
        self.gone = False
        self.initialized = False  # a new document in a new view: the app starts again
        self.context = _context(context)
        if self.left is not None:  # the app ended: a new view shows the line and takes nothing from its frame
            self.close_frame(f"{self.view.title.value}: ended ({self.left})")
        elif self.document is not None:
            self._send_document()
        elif self.failed is not None:
            self._frame({"kind": "closed", "text": f"The app could not be shown: {self.failed}"})

    def _send_document(self) -> None:
        assert self.document is not None
        if self.left is not None:
            return
        doc = self.document
        self._frame({"kind": "document", "html": doc.html, "allow": doc.allow, "frames": doc.frame_policy})

    def _context_changed(self, raw: Any) -> None:
        new = _context(raw)
        old, self.context = self.context, new
        if not self.initialized:
            return
        changed: dict[str, Any] = {}
        if new.get("theme") != old.get("theme"):
            changed["theme"] = new.get("theme")
        if new.get("variables") != old.get("variables"):
            changed["styles"] = {"variables": new.get("variables", {})}
        if new.get("width") != old.get("width"):
            changed["containerDimensions"] = self._dimensions()
        if changed:
            self._notify("ui/notifications/host-context-changed", changed)

    # -- messages from the app -------------------------------------------------------------------------------
    def _receive(self, text: str) -> None:
        message = app_policy.parse_message(text)
        if isinstance(message, dict):
            self._send(message)
            self._note_refusal("a malformed message")
            return
        if message.kind == "response":
            waiter = self._waiting.pop(message.id, None) if message.id is not None else None
            if waiter is not None:
                waiter(message.result)
            return
        if message.kind == "notification":
            self._notification(message.method, message.params)
            return
        assert message.id is not None
        handler = _REQUESTS.get(message.method)
        if handler is None:
            why = f"not offered by this host: {message.method}"
            self._error(message.id, app_policy.METHOD_NOT_FOUND, why)
            return
        handler(self, message.id, message.params)

    def _notification(self, method: str, params: Mapping[str, Any]) -> None:
        if method == "ui/notifications/initialized":
            if self.initialized:
                return
            self.initialized = True
            self._started()
        elif method == "ui/notifications/size-changed":
            height = params.get("height")
            if isinstance(height, (int, float)) and not isinstance(height, bool) and height == height:
                self._resize(float(height))
        elif method == "notifications/message":
            level = params.get("level") if isinstance(params.get("level"), str) else "info"
            data = params.get("data")
            text = data if isinstance(data, str) else repr(data)
            self.view.say(f"[{shorten(str(level), 20)}] app: {shown(clip_line(text, 300))}")
        elif method == "ui/notifications/request-teardown":
            self.view.say("The app asked to be closed.")
            kernel.post(self.view.close)

    def _started(self) -> None:
        """The app completed its handshake: its tool's input, and the result once the call ended."""
        self._notify("ui/notifications/tool-input", {"arguments": self.arguments})
        if self.ended is not None:
            self._send_ending()

    def _host_extras(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What this kind of view adds to the initialize result: (capabilities, host context)."""
        return {}, {"toolInfo": {"tool": _dump(self.tool)}} if self.tool is not None else {}

    def _initialize(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        granted: dict[str, dict[str, Any]] = {name: {} for name in _granted_keys(self.document)}
        capabilities: dict[str, Any] = {
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "message": {"text": {}},
            "downloadFile": {},
            "updateModelContext": {"text": {}},
            "sandbox": {"permissions": granted, "csp": _declared(self.document)},
        }
        context: dict[str, Any] = {
            "theme": self.context.get("theme", "light"),
            "styles": {"variables": self.context.get("variables", {})},
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "containerDimensions": self._dimensions(),
            "platform": "web",
            "userAgent": f"mcp-widgets/{__version__} (Jupyter)",
            "deviceCapabilities": {"touch": bool(self.context.get("touch")), "hover": True},
        }
        for key in ("locale", "timeZone"):
            if self.context.get(key):
                context[key] = self.context[key]
        more_capabilities, more_context = self._host_extras()
        capabilities.update(more_capabilities)
        context.update(more_context)
        self._result(
            msg_id,
            {
                "protocolVersion": app_policy.PROTOCOL_VERSION,
                "hostInfo": {"name": "mcp-widgets", "version": __version__},
                "hostCapabilities": capabilities,
                "hostContext": context,
            },
        )

    def _dimensions(self) -> dict[str, Any]:
        width = self.context.get("width")
        dims: dict[str, Any] = {"maxHeight": MAX_HEIGHT}
        if isinstance(width, int) and width > 0:
            dims["width"] = width
        return dims

    def _tools_call(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str) or not name or len(name) > 200:
            self._error(msg_id, app_policy.INVALID_PARAMS, "tools/call needs a tool name")
            return
        if arguments is not None and not isinstance(arguments, dict):
            self._error(msg_id, app_policy.INVALID_PARAMS, "arguments must be an object")
            return
        listed = next((tool for tool in self.tools() if tool.name == name), None)
        if listed is None:
            self._deny(msg_id, f"the app asked for a tool {self.server!r} does not list: {shown(name)!r}")
            return
        if not app_policy.callable_by_app(listed.meta):
            self._deny(msg_id, f"the tool {name!r} of {self.server!r} is not open to apps (its visibility)")
            return
        if self.in_flight >= MAX_CALLS:
            self._error(msg_id, app_policy.DENIED, f"more than {MAX_CALLS} tool calls at once")
            self._note_refusal(f"tool calls beyond {MAX_CALLS} at once")
            return
        try:
            handle = self.call(name, arguments, self.view.calls)
        except Exception as exc:  # not connected, say
            self._error(msg_id, app_policy.DENIED, clip_line(str(exc), 300))
            return
        self.in_flight += 1
        handle.future.add_done_callback(lambda fut: kernel.post(lambda: self._call_done(msg_id, fut)))

    def _call_done(self, msg_id: str | int, fut: concurrent.futures.Future[Any]) -> None:
        self.in_flight -= 1
        _trim(self.view.calls, CALLS_SHOWN)
        if fut.cancelled():
            self._error(msg_id, app_policy.DENIED, "the call was cancelled")
        elif (exc := fut.exception()) is not None:
            self._error(msg_id, getattr(exc, "code", None) or app_policy.DENIED, clip_line(str(exc), 500))
        else:
            self._result(msg_id, _dump(fut.result()))

    def _resources_read(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri or len(uri) > app_policy.MAX_URI:
            self._error(msg_id, app_policy.INVALID_PARAMS, "resources/read needs a uri")
            return
        if self.in_flight >= MAX_CALLS:
            self._error(msg_id, app_policy.DENIED, f"more than {MAX_CALLS} requests at once")
            self._note_refusal(f"requests beyond {MAX_CALLS} at once")
            return
        self.in_flight += 1
        self.read(uri).add_done_callback(lambda fut: kernel.post(lambda: self._call_done(msg_id, fut)))

    def _open_link(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        url = params.get("url")
        if not isinstance(url, str):
            self._error(msg_id, app_policy.INVALID_PARAMS, "ui/open-link needs a url")
            return

        def answered(agreed: bool) -> None:
            # A refusal is a result with isError (what the ext-apps SDK's apps read), not a JSON-RPC error.
            self._result(msg_id, {} if agreed else {"isError": True})

        self.open_link(self.view, url, answered)  # a URL card, as every other: handler, history, consent

    def _message(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        content = params.get("content")
        if params.get("role") != "user" or not isinstance(content, (list, dict)):
            self._error(msg_id, app_policy.INVALID_PARAMS, 'ui/message needs role "user" and content')
            return
        blocks = content if isinstance(content, list) else [content]
        self.view.messages.append({"role": "user", "content": blocks})
        del self.view.messages[:-20]
        # Never quoted: the app may send what the person typed; Python reads it from the view.
        self.view.say(
            f"The app sent a message ({plural(len(blocks), 'block')}; no model here: read it as "
            "view.messages[-1])"
        )
        self._result(msg_id, {})

    def _update_model_context(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        self.view.model_context = dict(params)
        self.view.say("The app updated its model context (no model here: read it as view.model_context)")
        self._result(msg_id, {})

    def _display_mode(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        mode = params.get("mode")
        if mode != "inline":
            self.view.say(f"The app asked for {shown(str(mode))[:20]} display: a notebook shows apps inline")
        self._result(msg_id, {"mode": "inline"})

    def _download(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        """Files the app offers: embedded ones as they are, linked ones read from this server; the person
        says yes (the browser saves them) or no (`isError`, as the ext-apps SDK reads a refusal)."""
        contents = params.get("contents")
        if not isinstance(contents, list) or not 0 < len(contents) <= 10:
            self._error(msg_id, app_policy.INVALID_PARAMS, "ui/download-file needs 1 to 10 contents")
            return
        files: list[app_policy.AppFile] = []
        links: list[str] = []
        try:
            for item in contents:
                kind = item.get("type") if isinstance(item, dict) else None
                if kind == "resource":
                    files.append(app_policy.file_from(item.get("resource")))
                elif kind == "resource_link" and isinstance(item.get("uri"), str):
                    links.append(item["uri"])
                else:
                    raise app_policy.AppError("contents must be embedded resources or resource links")
        except app_policy.AppError as exc:
            self._error(msg_id, app_policy.INVALID_PARAMS, str(exc))
            return
        if not links:
            self._offer_files(msg_id, files)
            return
        reads = [self.read(uri) for uri in links]

        def all_read() -> None:
            try:
                for fut in reads:
                    result = _dump(fut.result())
                    files.append(app_policy.file_from((result.get("contents") or [None])[0]))
            except Exception as exc:  # the server's error, or a file we refuse
                self._error(msg_id, app_policy.DENIED, clip_line(f"reading the file failed: {exc}", 300))
                self._flush()
                return
            self._offer_files(msg_id, files)
            self._flush()

        pending = len(reads)

        def one_done(_: Any) -> None:
            nonlocal pending
            pending -= 1
            if pending == 0:
                all_read()

        for fut in reads:
            fut.add_done_callback(lambda f: kernel.post(lambda: one_done(f)))

    def _offer_files(self, msg_id: str | int, files: list[app_policy.AppFile]) -> None:
        size = sum(len(f.data) for f in files)
        if size > app_policy.MAX_DOWNLOAD:
            limit = app_policy.MAX_DOWNLOAD // (1024 * 1024)
            self._error(msg_id, app_policy.DENIED, f"files larger than {limit} MB")
            return
        named = ", ".join(f"{f.name} ({shown(f.mime)[:60]}, {byte_size(len(f.data))})" for f in files)

        def answered(yes: bool) -> None:
            if yes:
                for f in files:
                    data = base64.b64encode(f.data).decode()
                    self._frame({"kind": "download", "name": f.name, "data": data})
                self.view.say(f"Saved what the app offered: {named}")
                self._result(msg_id, {})
            else:
                self.view.say("Declined the app's download")
                self._result(msg_id, {"isError": True})
            self._flush()

        self.view.offer(f"The app offers {plural(len(files), 'file')} to save: {named}", "Save", answered)

    def _ping(self, msg_id: str | int, params: Mapping[str, Any]) -> None:
        self._result(msg_id, {})

    # -- sending ---------------------------------------------------------------------------------------------
    def _resize(self, height: float) -> None:
        self._size = max(0.0, min(float(MAX_HEIGHT), height))
        if self._size_due:
            return
        self._size_due = True
        on_main_after(1 / SIZE_RATE, self._apply_size)

    def _apply_size(self) -> None:
        self._size_due = False
        if self._size is not None:
            self._frame({"kind": "size", "height": round(self._size)})

    def _send_ending(self) -> None:
        assert self.ended is not None
        kind, value = self.ended
        if kind == "result":
            self._notify("ui/notifications/tool-result", value)
        else:
            self._notify("ui/notifications/tool-cancelled", {"reason": value})

    def _request(self, method: str, params: dict[str, Any], then: Callable[[Any], None]) -> str:
        self._next_id += 1
        msg_id = f"mcp-widgets-{self._next_id}"
        self._waiting[msg_id] = then
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def _notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _result(self, msg_id: str | int, result: Any) -> None:
        self._send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def _error(self, msg_id: str | int | None, code: int, message: str) -> None:
        code = code if isinstance(code, int) else app_policy.DENIED
        self._send(app_policy.error_response(msg_id, code, message))

    def _deny(self, msg_id: str | int, why: str) -> None:
        self._error(msg_id, app_policy.DENIED, why)
        self._note_refusal(why)

    def _note_refusal(self, what: str) -> None:
        """Count a refusal; the line saying so is updated at most SIZE_RATE times a second (a flood of
        refusals must not become a flood of widget updates)."""
        self.refused += 1
        self._refusal = what
        if self._refusal_due:
            return
        self._refusal_due = True
        on_main_after(1 / SIZE_RATE, self._say_refusals)

    def _say_refusals(self) -> None:
        self._refusal_due = False
        if not self.view.closed:
            text = f"Refused: {self._refusal} ({plural(self.refused, 'refusal')} so far)"
            self.view.say(text, key="refused")

    def _send(self, message: dict[str, Any]) -> None:
        """Send a message to the app: at once, or with the others answering one batch from the front end."""
        if self.bound is None or self.gone:
            return
        self._outbox.append(message)
        if not self._batching:
            self._flush()

    def _flush(self) -> None:
        if self._outbox:
            messages, self._outbox = self._outbox, []
            self._frame({"kind": "rpc", "messages": messages})

    def _frame(self, content: dict[str, Any]) -> None:
        if self.bound is None or self.view.closed:
            return
        self.view.frame.send({**content, "view": self.bound})


_REQUESTS: dict[str, Callable[[AppBridge, str | int, Mapping[str, Any]], None]] = {
    "ui/initialize": AppBridge._initialize,
    "tools/call": AppBridge._tools_call,
    "resources/read": AppBridge._resources_read,
    "ui/open-link": AppBridge._open_link,
    "ui/message": AppBridge._message,
    "ui/update-model-context": AppBridge._update_model_context,
    "ui/request-display-mode": AppBridge._display_mode,
    "ui/download-file": AppBridge._download,
    "ping": AppBridge._ping,
}


def _context(raw: Any) -> dict[str, Any]:
    """What a front end said about itself, kept only where well formed."""
    if not isinstance(raw, dict):
        return {}
    ctx: dict[str, Any] = {}
    if raw.get("theme") in ("light", "dark"):
        ctx["theme"] = raw["theme"]
    ctx["variables"] = app_policy.style_variables(raw.get("variables"))
    width = raw.get("width")
    if isinstance(width, int) and not isinstance(width, bool) and 0 < width < 100_000:
        ctx["width"] = width
    for key in ("locale", "timeZone"):
        value = raw.get(key)
        if isinstance(value, str) and _NAME.fullmatch(value):
            ctx[key] = value
    ctx["touch"] = raw.get("touch") is True
    return ctx


_LEFT = {
    "navigated": "the app tried to navigate its own frame",
    "origin": "a message came from another origin than the app's",
}
"""Why an app's frame stopped being the app's, as the relay says it."""

_NAME = re.compile(r"[A-Za-z0-9_+/-]{1,64}")


def _granted_keys(document: app_policy.AppDocument | None) -> list[str]:
    return [] if document is None else app_policy.permission_keys(document.granted)


def _declared(document: app_policy.AppDocument | None) -> dict[str, list[str]]:
    return {} if document is None else {key: list(values) for key, values in document.approved.items()}


def show_in(out: Any, widget: Any, *, keep: int | None = None) -> None:
    """Show `widget` as the newest entry of an Output (its outputs set directly: no cell context needed),
    keeping only the newest `keep` entries when given."""
    entry = {"output_type": "display_data", "data": kernel.bundle_of(widget), "metadata": {}}
    outputs = (*tuple(out.outputs), entry)
    out.outputs = outputs if keep is None else outputs[-keep:]


def _trim(out: Any, keep: int) -> None:
    """Keep the newest `keep` entries of an Output (an app's calls and cards: a runaway app stays bounded)."""
    if len(out.outputs) > keep:
        out.outputs = tuple(out.outputs)[-keep:]
