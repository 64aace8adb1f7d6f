"""The 2026-07-28 tasks-extension test server (tests/servers/tasks2026.py), driven by the raw SDK client.

The SDK has no client support for the extension: these tests speak it by hand, as SEP-2663 describes
(a result claim for `resultType: "task"`, then tasks/get, tasks/update, tasks/cancel as custom requests).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import mcp_types as t
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from tests.servers import SERVERS
from tests.servers.tasks2026 import EXTENSION, build_server

SERVER = SERVERS / "tasks2026.py"
RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


class CreatedTask(t.Result):
    """A `CreateTaskResult` (`resultType: "task"`)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


async def _unresolved(result: CreatedTask, ctx: ClaimContext) -> t.CallToolResult:
    raise AssertionError("these tests drive the task themselves (allow_claimed=True)")


class Tasks(ClientExtension):
    """Declares the extension in every request's capabilities, and lets a task result through."""

    identifier = EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_unresolved)]


class TaskParams(t.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


class GetTask(t.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # Mcp-Name over streamable HTTP, as the SEP requires


class UpdateTask(t.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateParams
    name_param = "taskId"


class CancelTask(t.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class GetTaskNoHeader(GetTask):
    name_param = None


async def start(client: Client, name: str, arguments: dict[str, Any]) -> CreatedTask:
    created = await client.session.call_tool(name, arguments, allow_claimed=True)
    assert isinstance(created, CreatedTask), created
    return created


async def get(client: Client, task_id: str) -> dict[str, Any]:
    return await client.session.send_request(GetTask(params=TaskParams(task_id=task_id)), RAW)


async def update(client: Client, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    request = UpdateTask(params=UpdateParams(task_id=task_id, input_responses=responses))
    return await client.session.send_request(request, RAW)


async def until(client: Client, task_id: str, status: str, limit: float = 10.0) -> dict[str, Any]:
    """Poll at the task's pollIntervalMs until it has `status`."""
    with anyio.fail_after(limit):
        while True:
            task = await get(client, task_id)
            if task["status"] == status:
                return task
            await asyncio.sleep(task["pollIntervalMs"] / 1000)


def accept(name: str) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": name}}


@asynccontextmanager
async def connected(server: MCPServer | str, *, tasks: bool = True) -> AsyncIterator[Client]:
    extensions = [Tasks()] if tasks else []
    async with Client(server, mode="2026-07-28", extensions=extensions) as client:
        yield client


def test_a_tool_call_becomes_a_task_that_asks_through_tasks_update() -> None:
    async def scenario() -> None:
        server, _ = build_server()
        async with connected(server) as client:
            created = await start(client, "ask_names", {"count": 2})
            assert created.ttl_ms == 60_000 and created.poll_interval_ms == 100
            first = await until(client, created.task_id, "input_required")
            # Polled again, the same outstanding request, under the same key (a client shows it once).
            again = await get(client, created.task_id)
            assert first["inputRequests"] == again["inputRequests"]
            (key,) = first["inputRequests"]
            request = first["inputRequests"][key]
            assert request["method"] == "elicitation/create"
            assert request["params"]["requestedSchema"]["required"] == ["name"]
            ack = await update(client, created.task_id, {key: accept("Ada")})
            assert ack["resultType"] == "complete" and set(ack) <= {"resultType", "_meta"}  # an empty ack
            second = await until(client, created.task_id, "input_required")
            (key2,) = second["inputRequests"]
            assert key2 != key  # a key is never reused over the task's life
            await update(client, created.task_id, {key2: accept("Bea")})
            done = await until(client, created.task_id, "completed")
            answers = json.loads(done["result"]["content"][0]["text"])
            assert answers == [accept("Ada"), accept("Bea")]

    asyncio.run(scenario())


def test_without_the_extension_there_is_no_task() -> None:
    async def scenario() -> None:
        server, extension = build_server()
        async with connected(server, tasks=False) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("ask_names", {})
            assert caught.value.error.code == t.MISSING_REQUIRED_CLIENT_CAPABILITY
            assert caught.value.error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
            plain = await client.call_tool("work", {"seconds": 0.05})
            assert json.loads(plain.content[0].text) == "worked"  # type: ignore[union-attr]
        assert extension.tasks == {}

    asyncio.run(scenario())


def test_update_ignores_keys_that_are_not_outstanding() -> None:
    async def scenario() -> None:
        server, _ = build_server()
        async with connected(server) as client:
            created = await start(client, "ask_names", {"count": 2})
            (key,) = (await until(client, created.task_id, "input_required"))["inputRequests"]
            await update(client, created.task_id, {"never-issued": accept("X")})
            assert list((await get(client, created.task_id))["inputRequests"]) == [key]
            await update(client, created.task_id, {key: accept("Ada")})
            (key2,) = (await until(client, created.task_id, "input_required"))["inputRequests"]
            await update(client, created.task_id, {key: accept("again"), key2: accept("Bea")})
            done = await until(client, created.task_id, "completed")
            assert json.loads(done["result"]["content"][0]["text"]) == [accept("Ada"), accept("Bea")]

    asyncio.run(scenario())


def test_cancel_ends_the_task() -> None:
    async def scenario() -> None:
        server, extension = build_server()
        async with connected(server) as client:
            created = await start(client, "work", {"seconds": 30})
            request = CancelTask(params=TaskParams(task_id=created.task_id))
            ack = await client.session.send_request(request, RAW)
            assert ack["resultType"] == "complete"
            task = await until(client, created.task_id, "cancelled")
            assert "result" not in task and "error" not in task
            work = extension.tasks[created.task_id].work
            assert work is not None and work.done()

    asyncio.run(scenario())


def test_a_task_past_its_ttl_fails_then_is_gone() -> None:
    async def scenario() -> None:
        server, _ = build_server(ttl_ms=300)
        async with connected(server) as client:
            created = await start(client, "ask_names", {})
            assert (await get(client, created.task_id))["status"] in ("working", "input_required")
            failed = await until(client, created.task_id, "failed")
            assert "TTL" in failed["error"]["message"]
            await asyncio.sleep(0.5)  # one more ttl: deleted
            with pytest.raises(MCPError) as caught:
                await get(client, created.task_id)
            assert caught.value.error.code == t.INVALID_PARAMS

    asyncio.run(scenario())


def test_a_new_connection_resumes_by_task_id() -> None:
    async def scenario() -> None:
        server, _ = build_server()
        async with connected(server) as first:
            created = await start(first, "ask_names", {})
            asked = await until(first, created.task_id, "input_required")
        # The first connection is gone; the task and its question are not.
        async with connected(server) as second:
            again = await get(second, created.task_id)
            assert again["inputRequests"] == asked["inputRequests"]
            (key,) = again["inputRequests"]
            await update(second, created.task_id, {key: accept("Cy")})
            done = await until(second, created.task_id, "completed")
            assert json.loads(done["result"]["content"][0]["text"]) == [accept("Cy")]

    asyncio.run(scenario())


def test_over_http_tasks_requests_need_the_mcp_name_header() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), "the tasks server did not start"
        url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"

        async def scenario() -> None:
            async with connected(url) as client:
                created = await start(client, "ask_names", {})
                asked = await until(client, created.task_id, "input_required")
                with pytest.raises(MCPError) as caught:
                    bare = GetTaskNoHeader(params=TaskParams(task_id=created.task_id))
                    await client.session.send_request(bare, RAW)
                assert caught.value.error.code == t.HEADER_MISMATCH
                (key,) = asked["inputRequests"]
                await update(client, created.task_id, {key: accept("Di")})
                await until(client, created.task_id, "completed")

        asyncio.run(scenario())
    finally:
        proc.terminate()
        proc.wait(10)
