"""Comm messages the kernel queued behind the running cell before a wait began (pump kernels).

On 6.x they sit in the kernel's `msg_queue`; on 7.x in the tasks waiting on `_main_asyncio_lock`, or in
tasks a blocking wait kept from starting. All are private ipykernel internals, checked before use (see
`Kernel._check_pump`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
from typing import TYPE_CHECKING, Any

from .posted import COMM_TYPES

_log = logging.getLogger("mcp_widgets")


class QueuedComms:
    """`Kernel`: take the comm messages out of the kernel's queue and handle them now, in order."""

    if TYPE_CHECKING:  # what `Kernel` provides (checked against it by mypy)
        kernel: Any
        loop: asyncio.AbstractEventLoop | None

        def msg_type(self, frames: list[Any]) -> str | None: ...
        def dispatch_comm(self, frames: list[Any], *, early: bool = False) -> None: ...

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
                is_comm = fn == dispatch and len(args) == 1 and self.msg_type(args[0]) in COMM_TYPES
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
        unstarted = [t for t in tasks if _unstarted(t)]
        for stage in _UNSTARTED_STAGES:
            ordered += sorted((t for t in unstarted if _coro_name(t) == stage), key=_task_number)
        for task in ordered:
            frames = _comm_frames(task, shell_main)
            if frames is not None and self.msg_type(frames) in COMM_TYPES:
                self.dispatch_comm(frames, early=True)


_UNSTARTED_STAGES = ("dispatch_shell", "shell_main", "run_in_context", "preserve_context")


def _unstarted(task: asyncio.Task[Any]) -> bool:
    coro = task.get_coro()
    return inspect.iscoroutine(coro) and inspect.getcoroutinestate(coro) == inspect.CORO_CREATED


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
