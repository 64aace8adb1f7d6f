"""Waiting in the cell for a server's handshake (`connect`, `connect_sync`, `srv.reconnect`): clicks still
reach a sign-in card meanwhile, and a wait that fails or is interrupted ends the connection."""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Callable, Iterator

from .. import kernel
from .runtime import RUNTIME

__all__ = ["await_connected", "wait_connected"]


def wait_connected(ready: concurrent.futures.Future[None], end: Callable[[], object]) -> None:
    """Block until the handshake is done (the connection bounds it), letting clicks through meanwhile (a
    sign-in card may wait in this cell). A wait that fails or is interrupted ends the connection (`end`)."""
    with _ended_if_abandoned(end):
        if kernel.in_comm_handler() or RUNTIME.in_client_thread():
            ready.result()  # nothing to pump: connecting needs no clicks
        else:
            kernel.wait_sync(ready)


async def await_connected(ready: concurrent.futures.Future[None], end: Callable[[], object]) -> None:
    """`wait_connected` for an awaiting cell."""
    with _ended_if_abandoned(end):
        await kernel.wait_async(ready)


@contextlib.contextmanager
def _ended_if_abandoned(end: Callable[[], object]) -> Iterator[None]:
    try:
        yield
    except BaseException:
        end()
        raise
