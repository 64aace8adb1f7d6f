"""A TCP proxy whose network can go away: `drop()` cuts every connection and refuses new ones, `restore()`
listens again on the same port. For a client that must survive its server dropping out of reach."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any


class DroppingProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`target` on a loop of its own (a daemon thread)."""

    def __init__(self, target: int) -> None:
        self.target = target
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port: int = probe.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.AbstractServer | None = None
        threading.Thread(target=self._loop.run_forever, daemon=True, name="dropping-proxy").start()
        self.restore()

    def restore(self) -> None:
        self._run(self._listen())

    def drop(self) -> None:
        self._run(self._drop())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.drop()
        self._loop.call_soon_threadsafe(self._loop.stop)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)

    async def _drop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
