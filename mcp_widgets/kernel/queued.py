"""Comm messages the kernel queued behind the running cell before a wait began (pump kernels).

On 6.x they sit in the kernel's `msg_queue`; on 7.x in the tasks waiting on `_main_asyncio_lock`. Both are
private ipykernel internals, checked before use (see `_Kernel._check_pump`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .posted import _COMM_TYPES

_log = logging.getLogger("mcp_widgets")


class _QueuedComms:
    """`_Kernel`: take the comm messages out of the kernel's queue and handle them now, in order."""

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
        # 7.x: each message became a task running `shell_main(None, msg)`, waiting in FIFO order on the
        # main lock the running cell holds. They stay there (cancelling would log noise); the comm
        # messages among them are handled now and skipped when the kernel gets to them.
        waiters = list(getattr(self.kernel._main_asyncio_lock, "_waiters", None) or ())
        shell_main = getattr(type(self.kernel).shell_main, "__code__", None)
        if not waiters or shell_main is None or self.loop is None:
            return
        tasks = {
            id(waiter): task
            for task in asyncio.all_tasks(self.loop)
            if (waiter := getattr(task, "_fut_waiter", None)) is not None
        }
        for waiter in waiters:
            task = tasks.get(id(waiter))
            coro = task.get_coro() if task is not None else None
            frame = getattr(coro, "cr_frame", None)
            if frame is None or frame.f_code is not shell_main:
                continue
            local = frame.f_locals
            frames = local.get("msg")
            main_shell = local.get("subshell_id") is None and isinstance(frames, list)
            if main_shell and self.msg_type(frames) in _COMM_TYPES:
                self.dispatch_comm(frames, early=True)
