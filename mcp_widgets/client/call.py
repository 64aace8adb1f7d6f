"""`Call`: the handle of a call running in the background (`srv.call_tool_background`); `Done`: what
`srv.close()` and `srv.reconnect()` return."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Coroutine, Generator
from functools import partial
from typing import Any, Protocol, TypeVar

from .. import kernel
from ..core.exceptions import one_line
from .record import CallRecord, ending_of

__all__ = ["Call", "Done", "Waits"]

T = TypeVar("T")


class Waits(Protocol):
    """What a `Call` handle asks of the calls part (`Runner`)."""

    def interrupt(self, record: CallRecord, why: str = ...) -> None: ...

    def wait(self, record: CallRecord, future: concurrent.futures.Future[T]) -> Coroutine[Any, Any, T]: ...

    def block(
        self, record: CallRecord, future: concurrent.futures.Future[T], *, timeout: float | None = None
    ) -> T: ...


class Call:
    """A call running in the background: displays its state, then its result.

    `await call` gives the result, `call.result()` blocks for it like `call_tool_sync`; either one, when
    interrupted, interrupts the call.
    """

    def __init__(self, record: CallRecord, future: concurrent.futures.Future[Any], runner: Waits) -> None:
        self._record = record
        self._future = future
        self._runner = runner

    @property
    def state(self) -> str:
        """One of: running, waiting for an answer, done, failed (an error raised, or a tool's error result, as
        the call's line says), cancelled."""
        fut = self._future
        if fut.done():
            return ending_of(fut)
        return "waiting for an answer" if self._record.waiting_for_answer() else "running"

    def done(self) -> bool:
        return self._future.done()

    @property
    def ui(self) -> Any:
        """marimo: the call's line as a UI element (`mo.ui.anywidget`), the one its cell shows.

        Bound to a name (`line = call.ui`, in the cell that starts the call), it makes every cell that reads
        that name run again when the call ends: such a cell takes `call.result()` once `call.done()`, and
        no cell ever waits on the call (a waiting cell would keep the question's clicks out).

        Raises:
            RuntimeError: Not a background call started in marimo.
        """
        element = self._record.element
        if element is None:
            raise RuntimeError("Call.ui is the line of a background call started in a marimo notebook")
        return element

    @property
    def future(self) -> concurrent.futures.Future[Any]:
        """The call's future (its done callbacks run on the client thread; `add_done_callback` runs on the
        main thread)."""
        return self._future

    def cancel(self) -> bool:
        """Stop the call (its open questions end as interrupted)."""
        if self._future.done():
            return False
        self._runner.interrupt(self._record, "the call was cancelled")
        return True

    @one_line
    def result(self, timeout: float | None = None) -> Any:
        """Block until the call ends and return its result (raises what the call raised).

        Raises:
            TimeoutError: `timeout` passed first (the call keeps running).
        """
        return self._runner.block(self._record, self._future, timeout=timeout)

    def exception(self) -> BaseException | None:
        """The call's error once done (None while running or when it succeeded)."""
        if not self._future.done() or self._future.cancelled():
            return None
        return self._future.exception()

    def add_done_callback(self, fn: Callable[[Call], None]) -> None:
        """Run `fn(call)` on the main thread once the call has ended (at once if it has)."""
        self._future.add_done_callback(lambda _: kernel.post(partial(fn, self)))

    def __await__(self) -> Generator[Any, None, Any]:
        return self._wait().__await__()

    @one_line  # what the cell awaits: its error leaves as one line
    async def _wait(self) -> Any:
        return await self._runner.wait(self._record, self._future)

    def __repr__(self) -> str:
        return f"<Call {self._record.describe()}: {self.state}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return {"text/plain": repr(self)}

    def _ipython_display_(self) -> None:
        # Plain text kept up to date by id (no widget): it ends as the call's status line. Not in the cell
        # that shows the call's own display (`call = srv.call_tool_background(...)` then `call`): that one
        # starts with the same line, kept up to date the same way, and the line would read twice.
        record = self._record
        if kernel.kernel_support() == "none":
            print(repr(self))
            return
        if record.out is None and record.cell is not None and record.cell == kernel.running_cell():
            return
        kernel.display_as({"text/plain": record.status_line()}, record.display_id + "-status")
        record.status_shown = True


class Done:
    """What `close()` and `reconnect()` return once done: `await srv.close()` works as well as
    `srv.close()` (async code writes the first), and a cell ending with either shows nothing."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # a generator that ends at once: the work was done before

    def _ipython_display_(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<{self.what}>"
