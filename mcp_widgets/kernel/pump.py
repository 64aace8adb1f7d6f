"""The pump: a wait reads the main shell socket itself, or intercepts the stream's messages, and hands on
everything but comm messages to the kernel's own queue, in arrival order."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .posted import COMM_TYPES, WAKER, next_slice, run_posted
from .signals import interrupt_deferred, raise_lost_interrupt


class Pump:
    """`Kernel`: the blocking pump (`pump_until`) and the asyncio-side interception (`intercept` ...)."""

    if TYPE_CHECKING:  # what `Kernel` provides (checked against it by mypy)
        loop: asyncio.AbstractEventLoop | None
        support: str
        async_waiters: int
        _saved_recv: tuple[Callable[..., Any], bool] | None
        _incoming: deque[list[Any]]
        _flush_due: bool

        def stream(self) -> Any: ...
        def msg_type(self, frames: list[Any]) -> str | None: ...
        def hand_over(self, frames: list[Any]) -> None: ...
        def dispatch_comm(self, frames: list[Any], *, early: bool = False) -> None: ...
        def deliver_queued_comms(self) -> None: ...

    def drain_socket(self) -> None:
        """Take every message waiting on the shell socket (leaving none behind an edge-triggered fd).

        An interrupt is held back while one message is read and a request handed to the kernel: landing
        between two frames it would split the message, and the kernel would drop the rest ("DELIM not in
        msg_list") and never answer that request. A comm handler runs with interrupts as usual.
        """
        import zmq

        sock = self.stream().socket
        while sock.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            with interrupt_deferred() as held:
                try:
                    frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    frames = None
                comm = frames is not None and self.msg_type(frames) in COMM_TYPES
                if frames is not None and not comm:
                    self.hand_over(frames)
            try:
                if comm:
                    assert frames is not None
                    self.dispatch_comm(frames)
            finally:
                held.deliver()
            if frames is None:
                return

    def pump_until(self, fut: concurrent.futures.Future[Any], deadline: float | None) -> None:
        import zmq

        sock = self.stream().socket
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        poller.register(WAKER.fileno(), zmq.POLLIN)
        if self.support == "pump":
            self.flush_incoming()  # older than anything still on the socket
        self.deliver_queued_comms()  # native too: the blocked loop cannot start what it has read
        while True:
            WAKER.drain()
            raise_lost_interrupt()
            run_posted()
            self.drain_socket()
            if fut.done():
                return
            poller.poll(int(next_slice(deadline) * 1000))  # what poll does with a float

    def intercept(self) -> None:
        stream = self.stream()
        if self.async_waiters == 0:
            self._saved_recv = (stream._recv_callback, stream._recv_copy)
            stream.on_recv(self.receive_soon, copy=False)
        self.async_waiters += 1

    def receive_soon(self, frames: list[Any]) -> None:
        """The stream's callback during async waits: requests to the kernel, comm messages to their widgets.

        On 7.x a message the kernel read just before the wait began is still on its way to the kernel's
        queue (through two tasks) for a couple of loop turns; a comm message read now must not overtake
        it (a click before the typing that preceded it). So comm messages are handled two turns later,
        after what the kernel queued meanwhile.
        """
        if self.msg_type(frames) not in COMM_TYPES:
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
