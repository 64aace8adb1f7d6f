"""2025-11-25 tasks against a TypeScript-SDK server (tests/interop/tasks_server.mjs), over stdio and HTTP.

The server's tools run as tasks with the SDK's experimental task API and ask their question through the
task (input_required, then elicitation/create delivered through tasks/result). It gives up on a plain
elicitation after REQUEST_TIMEOUT_MS; a task's question waits as long as the task lives.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from mcp_widgets import handlers
from mcp_widgets import kernel as _bridge
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.outcome import Action, Reason
from tests.interop.nodejs import HERE, SDK, node_or_skip
from tests.servers.launch import serving

SERVER = HERE / "tasks_server.mjs"
REQUEST_TIMEOUT_MS = 5000
THINK_SECONDS = 8.0  # longer than the server's request timeout


class _After:
    """Awaitable in a handler: resumes after `seconds` (a handler runs on the main thread, not a loop)."""

    def __init__(self, seconds: float | None) -> None:
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if seconds is not None:
            threading.Timer(seconds, self.future.set_result, [None]).start()

    def __await__(self) -> Any:
        yield self.future


def answer_after(seconds: float, answer: dict[str, Any]) -> Callable[[Any], Any]:
    async def handler(card: Any) -> None:
        await _After(seconds)
        await handlers.scripted([answer])(card)

    return handler


@contextlib.contextmanager
def http_peer(node: str) -> Iterator[str]:
    """The server over streamable HTTP for as long as the block runs; yields its URL."""
    argv = [node, str(SERVER), "http", "0", str(REQUEST_TIMEOUT_MS)]
    with serving(argv, "the TypeScript task server") as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    node = node_or_skip(SDK)
    with contextlib.ExitStack() as stack:
        if request.param == "stdio":
            target: Any = [node, str(SERVER), "stdio", str(REQUEST_TIMEOUT_MS)]
        else:
            target = stack.enter_context(http_peer(node))
        srv = connect_sync(target, name="ts", timeout=60)
        stack.callback(srv.close)
        yield srv


def task_states(server: Server) -> dict[str, str]:
    return json.loads(server.call_tool_sync("task_states", {}).content[0].text)


def echo(result: Any) -> dict[str, Any]:
    text = result.content[0].text
    assert not result.is_error, text
    return json.loads(text)


def test_a_plain_call_of_a_task_required_tool_is_refused() -> None:
    # The defect, shown with the SDK's own client: without the task parameter the tool refuses.
    node = node_or_skip(SDK)

    async def call() -> Any:
        params = StdioServerParameters(command=node, args=[str(SERVER), "stdio"])
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("ask_required", {})

    result = asyncio.run(call())
    assert result.is_error
    assert "-32601" in result.content[0].text
    assert "requires task augmentation" in result.content[0].text


def test_the_listing_keeps_task_support(server: Server) -> None:
    support = {t.name: t.execution.task_support if t.execution else None for t in server.tools}
    assert support["ask_required"] == "required"
    assert support["ask_optional"] == "optional"
    assert support["ask_plain"] in (None, "forbidden")


def test_task_required_tool_runs_as_a_task(server: Server) -> None:
    before = task_states(server)
    script = handlers.scripted([{"name": "Ada"}])
    server.handler = script
    result = server.call_tool_sync("ask_required", {})
    assert echo(result) == {"action": "accept", "content": {"name": "Ada"}}
    assert script.remaining == 0
    new = {k: v for k, v in task_states(server).items() if k not in before}
    assert list(new.values()) == ["completed"]


def test_task_optional_tool_as_a_task_when_asked(server: Server) -> None:
    server.handler = handlers.scripted([{"name": "Grace"}, {"name": "Linus"}])
    assert echo(server.call_tool_sync("ask_optional", {}, task=True))["content"] == {"name": "Grace"}
    # Not asked: a plain call (the SDK runs its own task inside and asks the plain way).
    assert echo(server.call_tool_sync("ask_optional", {}))["content"] == {"name": "Linus"}


def test_task_true_on_a_tool_without_tasks_is_refused(server: Server) -> None:
    server.handler = handlers.decline
    with pytest.raises(ValueError, match="cannot run as a task"):
        server.call_tool_sync("ask_plain", {}, task=True)


def test_decline_reaches_the_task(server: Server) -> None:
    server.handler = handlers.decline
    assert echo(server.call_tool_sync("ask_required", {})) == {"action": "decline", "content": None}


def test_a_person_may_take_longer_than_the_request_timeout(server: Server) -> None:
    # Answered 8 s after asking: through the task it arrives; asked the plain way the server gave up at 5 s.
    server.handler = answer_after(THINK_SECONDS, {"name": "Ada"})
    assert echo(server.call_tool_sync("ask_required", {})) == {"action": "accept", "content": {"name": "Ada"}}
    server.handler = answer_after(THINK_SECONDS, {"name": "Ada"})
    plain = server.call_tool_sync("ask_plain", {})
    assert plain.is_error
    assert "timed out" in plain.content[0].text


def hold_open(seen: concurrent.futures.Future[Any]) -> Callable[[Any], Any]:
    async def handler(card: Any) -> None:
        seen.set_result(card)
        await _After(None)  # never answered here

    return handler


def test_cancel_ends_the_task_on_the_server(server: Server) -> None:
    before = task_states(server)
    seen: concurrent.futures.Future[Any] = concurrent.futures.Future()
    server.handler = hold_open(seen)
    call = server.call_tool_background("ask_required", {})
    card = _bridge.wait_sync(seen, timeout=60)
    assert call.cancel()
    with pytest.raises(concurrent.futures.CancelledError):
        call.result(timeout=60)
    assert call.state == "cancelled"
    assert card.outcome.action == Action.CANCEL
    assert card.outcome.reason == Reason.INTERRUPT
    # The call's future is cancelled at once; tasks/cancel goes out as its coroutine unwinds, just after.
    deadline = time.monotonic() + 30
    while True:
        new = {k: v for k, v in task_states(server).items() if k not in before}
        if list(new.values()) == ["cancelled"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert list(new.values()) == ["cancelled"]


def test_closing_the_server_cancels_its_tasks() -> None:
    # Over HTTP, where the server outlives the connection (its tasks are shared by every connection).
    with http_peer(node_or_skip(SDK)) as url:
        first = connect_sync(url, name="ts-close", timeout=60)
        before = task_states(first)
        seen: concurrent.futures.Future[Any] = concurrent.futures.Future()
        first.handler = hold_open(seen)
        first.call_tool_background("ask_required", {})
        _bridge.wait_sync(seen, timeout=60)
        first.close()
        with connect_sync(url, name="ts-close", timeout=60) as second:
            new = {k: v for k, v in task_states(second).items() if k not in before}
    assert list(new.values()) == ["cancelled"]
