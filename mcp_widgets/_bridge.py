"""Waiting for a person while a cell runs: the only module that touches ipykernel, IPython, comm or zmq.

A click on a form reaches the kernel as a `comm_msg` on the shell channel. Whether the kernel handles it
while a cell is still running depends on the ipykernel version and on how the cell waits (see the
project notes, kernel-waiting.md):

- ipykernel >= 7.4 dispatches comm messages while a running cell awaits ("native"): `wait_async` just
  awaits. ipykernel turns an interrupt of an awaiting cell into a cancellation scheduled without waking
  the event loop, so the wait also makes SIGINT wake the loop (and wakes every 0.25 s regardless).
- ipykernel 6.31 ... 7.3 queue them behind the running cell ("pump"): `wait_async` takes over the main
  shell stream's receive callback while it awaits, handles comm messages at once and passes everything
  else on to the kernel's own queue, in order. Comm messages the kernel queued before the wait began
  (the cell had already yielded to the event loop) are taken out of its queue when the wait starts.
- A blocking wait (`wait_sync`) stops the event loop on every version, so it always pumps: it reads the
  main shell socket itself on the main thread, dispatches comm messages, runs posted callbacks, and
  hands every other request (execute, complete, ...) to the kernel's own queue, where it runs after the
  wait, in arrival order, never re-entrantly.

The pump relies on private ipykernel attributes (`ZMQStream._recv_callback`, `kernel._parent_ident`,
`kernel.shell_handlers`, the subshell manager's socket pair on 7.x; for what the kernel queued, 6.x's
`msg_queue` and on 7.x the tasks waiting on `_main_asyncio_lock`). They are used nowhere else in the
package, are checked before use, and the real-kernel tests in tests/kernel pin them per release.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import inspect
import logging
import select
import signal
import socket
import sys
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

from ._exceptions import BlockingCallError

__all__ = [
    "KernelSupport",
    "attach",
    "blocking_supported",
    "call_on_main",
    "deliver_comms",
    "display",
    "display_as",
    "in_comm_handler",
    "is_viewed",
    "kernel_support",
    "kernel_version",
    "post",
    "seen_by_now",
    "track_views",
    "viewed_future",
    "wait_async",
    "wait_sync",
]

T = TypeVar("T")

KernelSupport = Literal["native", "pump", "background", "none"]
"""How a running cell can wait for widget clicks; see `kernel_support`."""

_NATIVE_SINCE = (7, 4)  # comms dispatched while a cell awaits
_PUMP_SINCE = (6, 31)  # oldest release the pump is tested against
_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
_WAKE_INTERVAL = 0.25  # bounds interrupt latency without a busy poll
_SETTLE = 0.1  # lets the kernel's loop run the messages it has read but not dispatched yet

_log = logging.getLogger("mcp_widgets")

_BLOCKING_HINT = "use `await` (call_tool) or call_tool_background instead"


# --------------------------------------------------------------------------- wake-ups and posted callbacks


class _Waker:
    """A socket pair that a blocked main thread sleeps on; any thread can wake it."""

    def __init__(self) -> None:
        self._recv, self._send = socket.socketpair()
        self._recv.setblocking(False)
        self._send.setblocking(False)

    def fileno(self) -> int:
        return self._recv.fileno()

    def wake(self) -> None:
        # A full buffer already means "wake up"; a closed one means shutdown.
        with contextlib.suppress(OSError):
            self._send.send(b"\0")

    def drain(self) -> None:
        with contextlib.suppress(OSError):
            while self._recv.recv(4096):
                pass

    def close(self) -> None:
        self._recv.close()
        self._send.close()


_waker = _Waker()
atexit.register(_waker.close)
_posted: deque[Callable[[], None]] = deque()
_local = threading.local()  # per thread: comm_depth (int), blocking (bool)
_plain_loops: list[asyncio.AbstractEventLoop] = []  # loops awaiting in wait_async without a kernel


def post(fn: Callable[[], None]) -> None:
    """Run `fn` on the kernel's main thread as soon as possible; callable from any thread.

    When the main thread is idle, `fn` runs from the kernel's event loop; while it is blocked in
    `wait_sync`, the wait runs it. Without a kernel, it runs in whichever thread is in `wait_sync` (or
    the loop awaiting in `wait_async`). Callbacks run in the order they were posted; an exception is
    logged, not raised.
    """
    _posted.append(fn)
    _waker.wake()
    kernel = _get_kernel()
    loops = [kernel.loop] if kernel is not None and kernel.loop is not None else list(_plain_loops)
    for loop in loops:
        # The loop may be closing at shutdown: then the waker or the next wait runs the callback.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_run_posted)


def call_on_main(fn: Callable[[], T]) -> concurrent.futures.Future[T]:
    """Like `post`, but return a future holding `fn`'s result or exception (for background threads)."""
    fut: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(fn())
        except BaseException as exc:
            fut.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    post(run)
    return fut


def _run_posted() -> None:
    while True:
        try:
            fn = _posted.popleft()
        except IndexError:
            return
        try:
            fn()
        except Exception:
            _log.exception("mcp_widgets: a posted callback failed")


# --------------------------------------------------------------------------- comm handler detection


def in_comm_handler() -> bool:
    """True while this thread runs a comm handler (a widget callback reacting to the frontend)."""
    return getattr(_local, "comm_depth", 0) > 0


@contextlib.contextmanager
def _comm_scope() -> Iterator[None]:
    _local.comm_depth = getattr(_local, "comm_depth", 0) + 1
    try:
        yield
    finally:
        _local.comm_depth -= 1


def _wrap_comm_handler(handler: Callable[..., Any], owner: _Kernel | None = None) -> Callable[..., Any]:
    if getattr(handler, "_mcp_widgets_wrapped", False):
        return handler

    def comm_handler(*args: Any, **kwargs: Any) -> Any:
        if owner is not None and len(args) >= 3 and owner.handled_early(args[2]):
            return None  # we dispatched it from the kernel's queue already (see deliver_queued_comms)
        with _comm_scope():
            try:
                return handler(*args, **kwargs)
            finally:
                if owner is not None and owner.cell_parent is not None and len(args) >= 3:
                    owner.comm_handled_during_cell(args[2])

    comm_handler._mcp_widgets_wrapped = True  # type: ignore[attr-defined]
    return comm_handler


# --------------------------------------------------------------------------- the kernel adapter


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


class _Kernel:
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
            for msg_type in _COMM_TYPES:
                if msg_type in handlers:
                    handlers[msg_type] = _wrap_comm_handler(handlers[msg_type], self)
        events = getattr(getattr(kernel, "shell", None), "events", None)
        if events is not None:
            # Not pre/post_execute: the `comm` package fires those around every comm message too.
            events.register("pre_run_cell", self._cell_started)
            events.register("post_run_cell", self._cell_ended)
        parsed = _parse_version(version)
        if len(parsed) < 2:
            self.support: KernelSupport = "background"
        elif parsed[:2] >= _NATIVE_SINCE:
            self.support = "native"
        elif parsed[:2] >= _PUMP_SINCE and self.pump_problem is None:
            self.support = "pump"
        else:
            self.support = "background"

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

    def receive(self, frames: list[Any]) -> None:
        """Dispatch a comm message now; queue anything else in the kernel, behind the running cell."""
        if self.msg_type(frames) in _COMM_TYPES:
            self.dispatch_comm(frames)
        else:
            self.hand_over(frames)

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

    # -- comm messages the kernel queued behind the running cell (pump kernels)

    def deliver_queued_comms(self) -> None:
        """Handle the comm messages the kernel already queued behind the running cell, in arrival order.

        Whatever reached the kernel after the cell started and before a wait took over the stream sits in
        the kernel's own queue: ipykernel 6.x's `msg_queue`, or on 7.x tasks blocked on the main shell
        lock, one per message. Without this a click in that window would wait for the cell to end, which
        waits for the click. Everything else (execute, complete, ...) stays queued, in order.
        """
        try:
            if hasattr(self.kernel, "msg_queue"):
                self._deliver_from_msg_queue()
            elif hasattr(self.kernel, "_main_asyncio_lock"):
                self._deliver_from_lock_waiters()
        except Exception:
            _log.error("mcp_widgets: could not take queued comm messages from the kernel", exc_info=True)

    def _deliver_from_msg_queue(self) -> None:
        # 6.x: a tornado Queue of (index, dispatch, args); the running cell's dispatch already left it.
        queue = self.kernel.msg_queue
        dispatch = getattr(self.kernel, "dispatch_shell", None)
        comms: list[list[Any]] = []
        keep: list[Any] = []
        for item in [queue.get_nowait() for _ in range(queue.qsize())]:
            try:
                _, fn, args = item
                is_comm = fn == dispatch and len(args) == 1 and self.msg_type(args[0]) in _COMM_TYPES
            except Exception:  # an unknown shape: not ours, and it must go back
                is_comm = False
            if is_comm:
                comms.append(args[0])
            else:
                keep.append(item)
        for item in keep:
            queue.put_nowait(item)  # same order, same index
        for frames in comms:
            self.dispatch_comm(frames)

    def _deliver_from_lock_waiters(self) -> None:
        # 7.x: a message read from the stream becomes a task (`run_in_context`) that starts another
        # (`shell_main(None, msg)`), which waits in FIFO order on the main lock the running cell holds
        # (7.4 dispatches a comm at once, in a third task). They stay there (cancelling would log noise);
        # the comm messages among them are handled now and skipped when the kernel gets to them. A
        # blocking wait keeps the loop from starting any of these tasks: a message read just before it
        # began would otherwise wait for its end. Earlier stages hold older messages, so: lock waiters
        # first, then tasks not started yet, from the last stage to the first, each in creation order.
        if self.loop is None:
            return
        shell_main = getattr(type(self.kernel).shell_main, "__code__", None)
        tasks = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
        by_waiter = {id(w): t for t in tasks if (w := getattr(t, "_fut_waiter", None)) is not None}
        waiters = list(getattr(self.kernel._main_asyncio_lock, "_waiters", None) or ())
        ordered = [t for w in waiters if (t := by_waiter.get(id(w))) is not None]
        unstarted = [t for t in tasks if inspect.getcoroutinestate(t.get_coro()) == inspect.CORO_CREATED]
        for stage in _UNSTARTED_STAGES:
            ordered += sorted((t for t in unstarted if _coro_name(t) == stage), key=_task_number)
        for task in ordered:
            frames = _comm_frames(task, shell_main)
            if frames is not None and self.msg_type(frames) in _COMM_TYPES:
                self.dispatch_comm(frames, early=True)

    # -- the blocking pump

    def drain_socket(self) -> None:
        """Take every message waiting on the shell socket (leaving none behind an edge-triggered fd)."""
        import zmq

        sock = self.stream().socket
        while sock.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            try:
                frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            self.receive(frames)

    def pump_until(self, fut: concurrent.futures.Future[Any], deadline: float | None) -> None:
        import zmq

        sock = self.stream().socket
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        poller.register(_waker.fileno(), zmq.POLLIN)
        if self.support == "pump":
            self.flush_incoming()  # older than anything still on the socket
        self.deliver_queued_comms()  # native too: the blocked loop cannot start what it has read
        while True:
            _waker.drain()
            _run_posted()
            self.drain_socket()
            if fut.done():
                return
            poller.poll(_next_slice(deadline) * 1000)

    # -- the asyncio-side interception (pump kernels, `wait_async`)

    def intercept(self) -> None:
        stream = self.stream()
        if self.async_waiters == 0:
            self._saved_recv = (stream._recv_callback, stream._recv_copy)
            stream.on_recv(self.receive_soon, copy=False)
        self.async_waiters += 1

    def receive_soon(self, frames: list[Any]) -> None:
        """The stream's callback during async waits: `receive`, with comm messages kept in arrival order.

        On 7.x a message the kernel read just before the wait began is still on its way to the kernel's
        queue (through two tasks) for a couple of loop turns; a comm message read now must not overtake
        it (a click before the typing that preceded it). So comm messages are handled two turns later,
        after what the kernel queued meanwhile.
        """
        if self.msg_type(frames) not in _COMM_TYPES:
            self.hand_over(frames)
            return
        self._incoming.append(frames)
        if not self._flush_due and self.loop is not None:
            self._flush_due = True
            self.loop.call_soon(self.loop.call_soon, self.flush_incoming)

    def flush_incoming(self) -> None:
        """Handle what the kernel queued, then the comm messages `receive_soon` kept, in order."""
        self._flush_due = False
        if self.async_waiters == 0 and not self._incoming:
            return  # the wait is over: the kernel handles its queue itself
        self.deliver_queued_comms()
        while self._incoming:
            self.dispatch_comm(self._incoming.popleft())

    def release(self) -> None:
        self.async_waiters -= 1
        try:
            if self.async_waiters == 0:
                self.flush_incoming()  # nothing received during the wait may be left behind
        finally:  # an interrupt landing in a handler must not leave the stream with us
            if self.async_waiters == 0 and self._saved_recv is not None:
                callback, copy = self._saved_recv
                self._saved_recv = None
                self.stream().on_recv(callback, copy=copy)

    def rearm(self) -> None:
        """Make the stream look at its socket again (its fd is edge-triggered and we read behind it)."""
        stream = self.stream()
        stream.on_recv(stream._recv_callback, copy=stream._recv_copy)


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


_UNSTARTED_STAGES = ("dispatch_shell", "shell_main", "run_in_context", "preserve_context")


def _coro_name(task: asyncio.Task[Any]) -> str:
    return str(getattr(task.get_coro(), "__name__", ""))


def _task_number(task: asyncio.Task[Any]) -> int:
    # asyncio names tasks "Task-N" from one counter: N orders them by creation.
    _, _, number = task.get_name().rpartition("-")
    return int(number) if number.isdigit() else sys.maxsize


def _comm_frames(task: asyncio.Task[Any], shell_main: Any) -> list[Any] | None:
    """The raw message a main-shell task of the kernel holds, or None (not such a task)."""
    coro = task.get_coro()
    frame = getattr(coro, "cr_frame", None)
    if frame is None:
        return None
    local = frame.f_locals
    if frame.f_code is shell_main or _coro_name(task) == "dispatch_shell":
        frames = local.get("msg")
        return frames if local.get("subshell_id") is None and isinstance(frames, list) else None
    args = local.get("args")  # run_in_context(*args): only the main shell's stream runs on this loop
    if isinstance(args, tuple) and len(args) == 1 and isinstance(args[0], list):
        return args[0]
    return None


_kernel_lock = threading.Lock()
_kernel_cache: list[_Kernel] = []  # empty until a kernel is found
_warned_background = False


def _get_kernel() -> _Kernel | None:
    if _kernel_cache:
        return _kernel_cache[0]
    # Without IPython's shell loaded there is no kernel; don't import it just to find out. (What
    # `IPython.get_ipython()` does, without the two imports it makes on each call: this runs on every
    # post and wait.)
    shells = sys.modules.get("IPython.core.interactiveshell")
    shell = None
    if shells is not None:
        with contextlib.suppress(Exception):
            if shells.InteractiveShell.initialized():
                shell = shells.InteractiveShell.instance()
    kernel_obj = getattr(shell, "kernel", None) if shell is not None else None
    if kernel_obj is None:
        return None  # not cached: a kernel may still start around us (imported from sitecustomize, say)
    with _kernel_lock:
        if not _kernel_cache:
            import ipykernel

            _kernel_cache.append(_Kernel(kernel_obj, getattr(ipykernel, "__version__", "")))
    return _kernel_cache[0]


def kernel_version() -> str | None:
    """The running ipykernel's version, or None without a kernel."""
    kernel = _get_kernel()
    return kernel.version if kernel is not None else None


def attach() -> None:
    """Hook into the running kernel, if any: cheap and idempotent; widgets call it when they are built.

    Among other things this makes widget updates that arrive while a cell is running acknowledged to the
    frontend (see `_Kernel.comm_handled_during_cell`), whether or not the cell waits through this module.
    """
    _get_kernel()


def kernel_support() -> KernelSupport:
    """How a running cell can wait for widget clicks on this kernel.

    Returns:
        "native": ipykernel >= 7.4; a top-level `await` receives comms by itself.
        "pump": a known older release (6.31 ... 7.3); waits pump comms themselves.
        "background": an unknown or unsupported kernel; warns once; callers should run calls in the
            background and let the cell return.
        "none": no IPython kernel (plain python, terminal IPython).
    """
    global _warned_background
    kernel = _get_kernel()
    if kernel is None:
        return "none"
    if kernel.support == "background" and not _warned_background:
        _warned_background = True
        why = kernel.pump_problem or "this release is not supported"
        warnings.warn(
            f"mcp_widgets: ipykernel {kernel.version or '(unknown version)'} cannot deliver widget clicks "
            f"to a waiting cell ({why}); calls run in the background instead",
            RuntimeWarning,
            stacklevel=2,
        )
    return kernel.support


def blocking_supported() -> bool:
    """True when `wait_sync` can wait for clicks here (the pump works, or there is no kernel)."""
    kernel = _get_kernel()
    if kernel is None:
        return True
    return kernel.support != "background" and kernel.pump_problem is None


def deliver_comms() -> None:
    """Handle now the widget messages that already reached the kernel; other requests stay queued.

    A frontend's messages wait behind a running cell unless it waits through this module (behind any
    cell on ipykernel 6.31-7.3; behind a busy synchronous cell on every release), and just after such a
    cell they may still be unread. Call this before deciding on what a frontend has said, such as whether
    it showed a form. A no-op off the kernel's main thread, inside a widget callback, or without a kernel.
    """
    kernel = _get_kernel()
    if (
        kernel is None
        or kernel.support not in ("native", "pump")
        or kernel.pump_problem is not None
        or in_comm_handler()
        or threading.current_thread() is not threading.main_thread()
    ):
        return
    if kernel.support == "pump":
        kernel.deliver_queued_comms()  # older than anything still on the socket
    try:
        kernel.drain_socket()
    finally:
        kernel.rearm()


def seen_by_now(widget: Any) -> concurrent.futures.Future[bool]:
    """Whether a frontend has rendered `widget`, judged once what frontends sent so far was handled.

    A view report can wait behind a busy cell, or be read but not yet dispatched when the cell ends;
    asking `is_viewed` at an arbitrary moment can then miss it. This delivers pending widget messages,
    and if the widget still looks unseen, lets the kernel run what it has already read and looks again.
    The future resolves on the kernel's main thread (at once without a kernel). Needs `track_views`.
    """
    fut: concurrent.futures.Future[bool] = concurrent.futures.Future()

    def second() -> None:
        deliver_comms()
        fut.set_result(is_viewed(widget))

    def first() -> None:
        deliver_comms()
        kernel = _get_kernel()
        if is_viewed(widget) or kernel is None or kernel.loop is None:
            fut.set_result(is_viewed(widget))
        else:
            # Not the kernel loop's call_later: a blocking wait keeps that loop from running (the look
            # would never come); `post` reaches the main thread whether it idles or blocks.
            timer = threading.Timer(_SETTLE, post, (second,))
            timer.daemon = True
            timer.start()

    if _get_kernel() is None:
        fut.set_result(is_viewed(widget))
    else:
        post(first)
    return fut


# --------------------------------------------------------------------------- waits


@contextlib.contextmanager
def _raising_sigint() -> Iterator[None]:
    """Make SIGINT raise KeyboardInterrupt during a blocking wait.

    In a cell with a top-level `await`, ipykernel's SIGINT handler only schedules a cancellation on the
    event loop, which a blocking wait never returns to.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler or previous in (signal.SIG_IGN, None):
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _WakingSigint:
    """A SIGINT handler that runs the previous one, then wakes the event loop.

    In an awaiting cell ipykernel's handler schedules the cell's cancellation with a plain `call_soon`,
    which does not wake a loop sleeping in `select`; without this the interrupt would wait for the next
    timer. Shared by concurrent waits (`users`), removed by the last one.
    """

    def __init__(self, previous: Callable[..., Any], loop: asyncio.AbstractEventLoop) -> None:
        self.previous = previous
        self.loop = loop
        self.users = 0

    def __call__(self, signum: int, frame: Any) -> None:
        try:
            self.previous(signum, frame)
        finally:
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(_noop)


def _noop() -> None:
    pass


@contextlib.contextmanager
def _waking_sigint(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    current = signal.getsignal(signal.SIGINT)
    if isinstance(current, _WakingSigint):
        handler = current
    elif callable(current) and current is not signal.default_int_handler:
        handler = _WakingSigint(current, loop)
        signal.signal(signal.SIGINT, handler)
    else:
        yield  # idle kernel (SIG_IGN) or a plain KeyboardInterrupt: nothing to speed up
        return
    handler.users += 1
    try:
        yield
    finally:
        handler.users -= 1
        if handler.users == 0 and signal.getsignal(signal.SIGINT) is handler:
            signal.signal(signal.SIGINT, handler.previous)


def _check_blocking_allowed() -> None:
    if in_comm_handler():
        raise BlockingCallError(
            f"a blocking wait inside a widget callback would freeze the kernel; {_BLOCKING_HINT}"
        )
    if getattr(_local, "blocking", False):
        raise BlockingCallError(f"a blocking wait is already running on this thread; {_BLOCKING_HINT}")


def wait_sync(fut: concurrent.futures.Future[T], *, timeout: float | None = None) -> T:
    """Block until `fut` is done while widget clicks and posted callbacks keep being handled.

    On the kernel's main thread this pumps the shell channel: comm messages reach their widgets, posted
    callbacks run, and every other request (cells queued meanwhile, completions, ...) runs after the
    wait, in arrival order, never inside it. KeyboardInterrupt propagates; `fut` is left as it is
    (cancel it yourself).

    Args:
        fut: the future to wait for.
        timeout: seconds to wait at most.

    Returns:
        The future's result (its exception is raised).

    Raises:
        BlockingCallError: inside a widget callback, inside another blocking wait, or on a kernel
            where blocking waits cannot receive clicks.
        TimeoutError: `timeout` passed first.
    """
    _check_blocking_allowed()
    deadline = None if timeout is None else time.monotonic() + timeout
    kernel = _get_kernel()
    on_main = threading.current_thread() is threading.main_thread()
    if kernel is not None and not on_main:
        # Another thread (a subshell, a worker): the main loop keeps handling comms by itself.
        return _result(fut, deadline)
    if kernel is not None and not blocking_supported():
        raise BlockingCallError(
            f"ipykernel {kernel.version} cannot deliver widget clicks to a blocked cell; {_BLOCKING_HINT}"
        )
    fut.add_done_callback(lambda _: _waker.wake())
    _local.blocking = True
    try:
        with _raising_sigint():
            if kernel is None:
                _wait_plain(fut, deadline)
            else:
                try:
                    kernel.pump_until(fut, deadline)
                finally:
                    try:
                        kernel.drain_socket()  # leave nothing unread: clicks still reach their widgets
                    finally:
                        kernel.rearm()
    finally:
        _local.blocking = False
    return fut.result()


def _next_slice(deadline: float | None) -> float:
    """How long a wait may sleep before it looks again: the wake-up interval, cut short by the deadline."""
    if deadline is None:
        return _WAKE_INTERVAL
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("timed out waiting for the result")
    return min(_WAKE_INTERVAL, remaining)


def _wait_plain(fut: concurrent.futures.Future[Any], deadline: float | None) -> None:
    while True:
        _waker.drain()
        _run_posted()
        if fut.done():
            return
        select.select([_waker.fileno()], [], [], _next_slice(deadline))


def _result(fut: concurrent.futures.Future[T], deadline: float | None) -> T:
    # Short slices so that KeyboardInterrupt is seen promptly on every platform.
    while True:
        timeout = _WAKE_INTERVAL
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("timed out waiting for the result")
            timeout = min(timeout, remaining)
        with contextlib.suppress(concurrent.futures.TimeoutError):
            return fut.result(timeout)


async def wait_async(fut: asyncio.Future[T] | concurrent.futures.Future[T]) -> T:
    """Await `fut` in a cell while widget clicks keep being handled.

    A kernel interrupt, which ipykernel turns into a cancellation of an awaiting cell, wakes the loop at
    once (and a 0.25 s wake-up bounds it anyway). On "pump" kernels the main shell stream is intercepted
    for the duration: comm messages are handled at once, anything else is queued in the kernel as usual.
    CancelledError and KeyboardInterrupt propagate; `fut` is not cancelled (cancel it yourself).

    Returns:
        The future's result (its exception is raised).
    """
    loop = asyncio.get_running_loop()
    waited: asyncio.Future[T] = (
        asyncio.wrap_future(fut, loop=loop) if isinstance(fut, concurrent.futures.Future) else fut
    )
    kernel = _get_kernel()
    pumping = (
        kernel is not None
        and kernel.support == "pump"
        and threading.current_thread() is threading.main_thread()
        and loop is kernel.loop
    )
    plain = kernel is None
    if pumping:
        assert kernel is not None
        kernel.intercept()
    if plain:
        _plain_loops.append(loop)
        loop.call_soon(_run_posted)
    try:
        if pumping:
            assert kernel is not None
            kernel.deliver_queued_comms()  # what arrived before the wait; newer messages now come to us
        with _waking_sigint(loop):
            while not waited.done():
                await asyncio.wait({waited}, timeout=_WAKE_INTERVAL)
                if pumping and kernel is not None and not waited.done():
                    # On 7.x a message read just before the wait began reaches the kernel's queue a few
                    # loop turns later (it goes through two tasks first): look again at every wake-up.
                    kernel.flush_incoming()
    finally:
        if pumping:
            assert kernel is not None
            kernel.release()
        if plain:
            _plain_loops.remove(loop)
    return waited.result()


# --------------------------------------------------------------------------- is anyone looking?


def display(obj: Any) -> None:
    """Show `obj` in the output of the current cell (IPython's display; a repr without a frontend)."""
    from IPython.display import display as ipython_display

    ipython_display(obj)


def display_as(bundle: dict[str, Any], display_id: str, *, update: bool = False) -> None:
    """Show a mimebundle under `display_id`; with `update`, replace every output shown under that id.

    A later cell may send the update: frontends route `update_display_data` by id, not by cell.
    """
    from IPython.display import display as ipython_display

    ipython_display(bundle, raw=True, display_id=display_id, update=update)


_ever_viewed: weakref.WeakSet[Any] = weakref.WeakSet()


def track_views(widget: Any) -> None:
    """Ask the frontend to count the views it renders of `widget`; call before displaying it."""
    if widget._view_count is None:
        widget._view_count = 0
    widget.observe(_note_view, names="_view_count")


def _note_view(change: dict[str, Any]) -> None:
    if change["new"]:
        _ever_viewed.add(change["owner"])


def is_viewed(widget: Any) -> bool:
    """True once a frontend reported rendering `widget`, even if that view has closed since.

    A closed view is a person who may come back (a notebook reopened, a tab restored): once someone has
    seen a question, nobody may decide for them that nobody is looking.
    """
    return widget in _ever_viewed or bool(getattr(widget, "_view_count", None))


def viewed_future(widget: Any) -> concurrent.futures.Future[None]:
    """A future resolved when a frontend first renders `widget` (needs `track_views` before display)."""
    fut: concurrent.futures.Future[None] = concurrent.futures.Future()
    if is_viewed(widget):
        fut.set_result(None)
        return fut

    def seen(change: dict[str, Any]) -> None:
        if change["new"] and not fut.done():
            widget.unobserve(seen, names="_view_count")
            fut.set_result(None)

    widget.observe(seen, names="_view_count")
    fut.add_done_callback(lambda _: _quiet_unobserve(widget, seen))
    return fut


def _quiet_unobserve(widget: Any, handler: Callable[..., Any]) -> None:
    with contextlib.suppress(ValueError):
        widget.unobserve(handler, names="_view_count")


# Detect the kernel at import, so that comm handlers are marked before any widget callback runs.
_get_kernel()
