"""One running ipykernel, seen through the few (partly private) attributes the waits need."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from .posted import COMM_TYPES, wrap_comm_handler
from .pump import Pump
from .queued import QueuedComms

KernelSupport = Literal["native", "pump", "background", "none"]
"""How a running cell can wait for widget clicks; see `kernel_support`."""

_NATIVE_SINCE = (7, 4)  # comms dispatched while a cell awaits
_PUMP_RELEASES = frozenset({(6, 17), (6, 31), (7, 3)})
"""The releases the pump is tested against in every CI run (6.17 is Google Colab's); 7.4 and newer await
natively and pump only for a blocking wait. Any other release waits in the background (a path nobody ran
hangs): add a release here with its kernel venv in the tests."""


_log = logging.getLogger("mcp_widgets")


def _parse_version(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split(".")[:3]:
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def support_of(version: str, *, pumps: bool = True) -> KernelSupport:
    """How a cell waits on ipykernel `version` (`pumps`: the pump found the internals it needs)."""
    parsed = _parse_version(version)
    if len(parsed) < 2:
        return "background"
    if parsed[:2] >= _NATIVE_SINCE:
        return "native"
    return "pump" if parsed[:2] in _PUMP_RELEASES and pumps else "background"


class Kernel(QueuedComms, Pump):
    """One running ipykernel, seen through the few (partly private) attributes the waits need."""

    def __init__(self, kernel: Any, version: str) -> None:
        self.kernel = kernel
        self.version = version
        io_loop = getattr(kernel, "io_loop", None)
        self.loop: asyncio.AbstractEventLoop | None = getattr(io_loop, "asyncio_loop", None)
        self.async_waiters = 0
        self._tasks: set[asyncio.Future[Any]] = set()
        self._saved_recv: tuple[Callable[..., Any], bool] | None = None
        self._stream: Any = None
        self._early: set[str] = set()  # msg_ids of comm messages taken from 7.x's queue (still in it)
        self._incoming: deque[list[Any]] = deque()  # comm messages an async wait received, not handled yet
        self._flush_due = False
        self.pump_problem = self._check_pump()
        # The parent message of the cell now running, or None between cells (see comm_handled_during_cell).
        # We may be attached by the very cell that is running, after its pre_run_cell event.
        self.cell_parent: dict[str, Any] | None = None
        with contextlib.suppress(Exception):
            parent = kernel.get_parent("shell")
            if parent and parent.get("header", {}).get("msg_type") == "execute_request":
                self.cell_parent = parent
        handlers = getattr(kernel, "shell_handlers", None)
        if isinstance(handlers, dict):
            for msg_type in COMM_TYPES:
                if msg_type in handlers:
                    handlers[msg_type] = wrap_comm_handler(handlers[msg_type], self)
        events = getattr(getattr(kernel, "shell", None), "events", None)
        if events is not None:
            # Not pre/post_execute: the `comm` package fires those around every comm message too.
            events.register("pre_run_cell", self._cell_started)
            events.register("post_run_cell", self._cell_ended)
        self.support: KernelSupport = support_of(version, pumps=self.pump_problem is None)
        self._mend_shell_replies()

    def _mend_shell_replies(self) -> None:
        """On ipykernel 7.3, send the main shell's replies through the shell stream, as 7.4 does.

        7.3 (like the 7.x before it, which the tests never run: left as they are) sends a reply raw on the
        shell ROUTER socket whose stream also reads requests from it: the raw send can take the socket's
        edge-triggered read edge, and a request that arrives meanwhile is then never read. Every later
        request waits behind it, and the kernel answers nothing more, every thread idle (seen here under
        load: 52 of 300 queued requests never answered, the main shell's socket empty). ipykernel 7.4 fixed
        it by sending through the stream, which reads what is pending before it waits again; this does the
        same, from the shell channel thread, whose stream it is.
        """
        if _parse_version(self.version)[:2] != (7, 3):
            return
        k = self.kernel
        manager = getattr(getattr(k, "shell_channel_thread", None), "manager", None)
        stream = getattr(k, "shell_stream", None)
        pair = getattr(manager, "_main_to_shell_channel", None)
        loop = getattr(manager, "_shell_channel_io_loop", None)
        if manager is None or stream is None or pair is None or loop is None:
            return
        if not hasattr(manager, "_send_on_shell_channel") or not hasattr(pair, "on_recv"):
            return

        def send_on_shell_channel(msg: Any) -> None:
            stream.send_multipart(msg)

        manager._send_on_shell_channel = send_on_shell_channel  # the subshells made from now on
        loop.add_callback(pair.on_recv, loop, send_on_shell_channel)  # the main shell's replies

    def _cell_started(self, _info: Any = None) -> None:
        with contextlib.suppress(Exception):
            self.cell_parent = self.kernel.get_parent("shell") or None

    def _cell_ended(self, _result: Any = None) -> None:
        self.cell_parent = None

    def comm_handled_during_cell(self, msg: Any) -> None:
        """Say "idle" for a comm message handled while a cell runs, then "busy" again for the cell.

        Between cells the kernel wraps every message in busy/idle itself, but a comm message handled
        during a running cell (our pump, or ipykernel 7.4's concurrent comm dispatch) gets no status.
        The widget frontend counts a sent update as pending until it sees "idle" for it, and holds back
        that widget's next updates meanwhile: without this, only a person's first keystroke per control
        would ever reach the kernel while a cell waits.
        """
        if isinstance(msg, dict) and "header" in msg:
            self.publish_status("idle", msg)
            self.publish_status("busy", self.cell_parent)  # the kernel indicator stays busy: the cell runs on

    def publish_status(self, state: str, parent: dict[str, Any] | None) -> None:
        """Publish a shell status ("busy"/"idle") on IOPub for `parent`."""
        try:
            self.kernel._publish_status(state, "shell", parent=parent)
        except Exception:
            _log.debug("mcp_widgets: could not publish a status", exc_info=True)

    def _check_pump(self) -> str | None:
        """Return why the pump cannot work on this kernel, or None when it can."""
        k = self.kernel
        for name in ("session", "shell_handlers", "set_parent", "get_parent", "_parent_ident"):
            if not hasattr(k, name):
                return f"the kernel has no {name!r}"
        if self.loop is None:
            return "the kernel has no asyncio event loop"
        try:
            stream = self.stream()
        except Exception as exc:
            return f"the main shell stream is not reachable ({type(exc).__name__})"
        if stream is None or not all(hasattr(stream, a) for a in ("_recv_callback", "_recv_copy", "socket")):
            return "the main shell stream has an unknown shape"
        return None

    def stream(self) -> Any:
        """The ZMQStream that feeds shell requests to the main thread."""
        if self._stream is None:
            try:
                from ipykernel.eventloops import get_shell_stream  # 7.x: the subshell socket pair
            except ImportError:
                self._stream = self.kernel.shell_stream
            else:
                self._stream = get_shell_stream(self.kernel)
        return self._stream

    # -- messages

    def msg_type(self, frames: list[Any]) -> str | None:
        """The message type from the header alone (no content unpacked, no signature recorded)."""
        session = self.kernel.session
        try:
            _, rest = session.feed_identities(frames, copy=False)
            header = session.deserialize(rest, content=False, copy=False)["header"]
        except Exception:
            return None  # not ours to judge: the kernel reports it when it sees it
        msg_type = header.get("msg_type")
        return msg_type if isinstance(msg_type, str) else None

    def hand_over(self, frames: list[Any]) -> None:
        """Give a request to the kernel's own receive callback, as the stream would have.

        The kernel only queues it (behind its main lock on 7.x, in its message queue on 6.x); it runs
        after the cell, in arrival order, never inside a wait.
        """
        callback = self._saved_recv[0] if self._saved_recv is not None else self.stream()._recv_callback
        try:
            result = callback(frames)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result, loop=self.loop)
                self._tasks.add(task)  # the loop keeps only weak references
                task.add_done_callback(self._tasks.discard)
        except Exception:
            _log.error("mcp_widgets: could not hand a shell message to the kernel", exc_info=True)

    def dispatch_comm(self, frames: list[Any], *, early: bool = False) -> None:
        """Run the kernel's handler for a comm message, under that message as the parent.

        `early`: the kernel still holds the message and dispatches it itself later; leave its signature
        unrecorded (else the kernel rejects it as a replay) and make that later dispatch a no-op.
        """
        k = self.kernel
        session = k.session
        idents, rest = session.feed_identities(frames, copy=False)
        try:
            # content=False checks the signature without recording it.
            msg = session.deserialize(rest, content=not early, copy=False)
            if early:
                msg["content"] = session.unpack(msg["content"])
        except Exception:
            _log.error("mcp_widgets: invalid comm message", exc_info=True)
            return
        handler = k.shell_handlers.get(msg["header"]["msg_type"])
        if handler is None:
            return
        # Widget callbacks print under the comm message; the cell's own output must go back to the cell.
        saved_parent = k.get_parent("shell")
        saved_ident = k._parent_ident["shell"]
        k.set_parent(idents, msg, channel="shell")
        # Between cells nobody else says busy/idle for it (during a cell, comm_handled_during_cell does).
        between_cells = self.cell_parent is None
        if between_cells:
            self.publish_status("busy", msg)
        try:
            result = handler(self.stream(), idents, msg)
            if inspect.isawaitable(result):
                _finish_now(result)
        except Exception:
            _log.error("mcp_widgets: exception in comm handler", exc_info=True)
        finally:
            k.set_parent(saved_ident, saved_parent, channel="shell")
            if between_cells:
                self.publish_status("idle", msg)
            if early:  # only now: the wrapped handler skips ids in this set
                self._early.add(str(msg["header"].get("msg_id")))

    def handled_early(self, msg: Any) -> bool:
        """True (once) for the kernel's own dispatch of a comm message `dispatch_comm(early=True)` handled."""
        if not self._early or not isinstance(msg, dict):
            return False
        msg_id = str(msg.get("header", {}).get("msg_id"))
        if msg_id in self._early:
            self._early.discard(msg_id)
            return True
        return False


def _finish_now(awaitable: Any) -> None:
    """Drive a handler coroutine that does not really suspend (comm handlers are synchronous)."""
    coro = awaitable if inspect.iscoroutine(awaitable) else None
    if coro is None:
        return
    try:
        coro.send(None)
    except StopIteration:
        return
    coro.close()
    _log.warning("mcp_widgets: a comm handler suspended while the cell was waiting; it was dropped")
