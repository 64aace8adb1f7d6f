"""How the wire sees a connection: its transport's streams, or an in-process client's dispatcher.

Both only watch: each message is handed to `Captures` as it passes (the SDK's `SessionMessage`, or a dict
for what an in-process dispatcher passes without JSON-RPC framing) and goes on unchanged, with no task or
buffer in between. `WireCapture` (capture.py) decides what is kept.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, Protocol

import mcp_types

from ..targets import StreamProxy

__all__ = ["Captures", "TappedDispatcher", "tapped"]


class Captures(Protocol):
    """Where what passes goes (`WireCapture`): a transport's message, or a dict that stands for one."""

    def capture(self, direction: Literal["out", "in"], item: Any) -> None: ...

    def capture_dict(self, direction: Literal["out", "in"], body: dict[str, Any]) -> None: ...


@contextlib.asynccontextmanager
async def tapped(wire: Captures, transport: Any) -> AsyncIterator[tuple[Any, Any]]:
    """`transport` with every message it passes, either way, handed to `wire`."""
    async with transport as (read, write):
        yield _Reading(read, wire), _Writing(write, wire)


class _Writing(StreamProxy):
    def __init__(self, stream: Any, wire: Captures) -> None:
        super().__init__(stream)
        self._wire = wire

    async def send(self, item: Any) -> None:
        self._wire.capture("out", item)
        await self._stream.send(item)


class _Reading(StreamProxy):
    def __init__(self, stream: Any, wire: Captures) -> None:
        super().__init__(stream)
        self._wire = wire

    async def receive(self) -> Any:
        item = await self._stream.receive()
        self._wire.capture("in", item)
        return item


class TappedDispatcher:
    """An in-process client's dispatcher, seen through: each request, its answer or error, each notification
    and progress report is kept as the JSON-RPC message it stands for; everything else is the dispatcher's."""

    def __init__(self, inner: Any, wire: Captures) -> None:
        self._inner = inner
        self._wire = wire
        self._ids = itertools.count(1)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        wire, ident = self._wire, next(self._ids)
        wire.capture_dict("out", _message(ident, method, params))
        opts = dict(opts or {})
        progress = opts.get("on_progress")
        if progress is not None:

            async def on_progress(
                done: float, total: float | None = None, message: str | None = None
            ) -> None:
                report = {"progressToken": ident, "progress": done, "total": total, "message": message}
                note = {k: v for k, v in report.items() if v is not None}
                wire.capture_dict("in", _message(None, "notifications/progress", note))
                await progress(done, total, message)

            opts["on_progress"] = on_progress
        try:
            result: dict[str, Any] = await self._inner.send_raw_request(method, params, opts, **kwargs)
        except Exception as exc:
            wire.capture_dict("in", _error(ident, exc))
            raise
        wire.capture_dict("in", {"jsonrpc": "2.0", "id": ident, "result": result})
        return result

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        self._wire.capture_dict("out", _message(None, method, params))
        await self._inner.notify(method, params, opts)

    async def run(
        self, on_request: Any, on_notify: Any, on_notify_intercept: Any = None, **kwargs: Any
    ) -> None:
        wire = self._wire

        async def request(dctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
            ident = getattr(dctx, "request_id", None)
            ident = f"s{next(self._ids)}" if ident is None else ident
            wire.capture_dict("in", _message(ident, method, params))
            try:
                result: dict[str, Any] = await on_request(dctx, method, params)
            except Exception as exc:
                wire.capture_dict("out", _error(ident, exc))
                raise
            wire.capture_dict("out", {"jsonrpc": "2.0", "id": ident, "result": result})
            return result

        async def notified(dctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
            if on_notify_intercept is None:
                wire.capture_dict("in", _message(None, method, params))
            await on_notify(dctx, method, params)

        def intercept(method: str, params: Mapping[str, Any] | None) -> bool:
            wire.capture_dict("in", _message(None, method, params))
            consumed: bool = on_notify_intercept(method, params)
            return consumed

        await self._inner.run(request, notified, intercept if on_notify_intercept else None, **kwargs)


def _message(ident: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if ident is not None:
        body["id"] = ident
    body["method"] = method
    if params is not None:
        body["params"] = dict(params)
    return body


def _error(ident: Any, exc: Exception) -> dict[str, Any]:
    """The JSON-RPC error an exception stands for (an `MCPError` carries one; any other is internal)."""
    error: Any = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    if code is None:
        detail: dict[str, Any] = {"code": mcp_types.INTERNAL_ERROR, "message": type(exc).__name__}
    else:
        detail = {"code": code, "message": getattr(error, "message", "")}
        if getattr(error, "data", None) is not None:
            detail["data"] = error.data
    return {"jsonrpc": "2.0", "id": ident, "error": detail}
