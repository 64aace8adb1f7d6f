"""A 2026-07-28 server with the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), from its text.

No SDK serves the extension yet; this one is built on `MCPServer`'s extension points (`Extension`: new
methods and a `tools/call` interceptor). What it follows from the SEP:

- Task creation is the server's choice, and only for a request whose per-request client capabilities
  declare the extension: its tools then answer `resultType: "task"` with the task (`ttlMs`,
  `pollIntervalMs`). A task-only tool asked without the extension answers -32021 naming it.
- `tasks/get` answers the detailed task: `inputRequests` while `input_required`, `result` once
  `completed`, `error` once `failed`. Each input request key is unique over the task's life.
- `tasks/update` takes `inputResponses` for outstanding keys and ignores any other key (an empty ack);
  `tasks/cancel` acks, and the task ends `cancelled`. An unknown task id is a JSON-RPC error.
- After `ttlMs` a task that has not ended is marked `failed`; one more `ttlMs` later it is deleted.
- Over streamable HTTP every tasks/* request must carry `Mcp-Name: <taskId>` (else -32020).
- With `request_state=True`, every task-bearing answer carries a new `requestState`, and a tasks/* request
  must echo one issued no earlier than the last one echoed (-32602 otherwise: a stale state), as a
  stateless server behind a balancer would check. Not only the very latest: an answer lost with a dropped
  connection (the poll in flight when the network went) must not strand the client.
- `bound`: how long the plain (non-task) `ask_plain` keeps its question (its `requestState` says when it
  was asked): an answer after it is refused. A task's question waits as long as the task lives.

Tasks live in the server object, not in a connection: a client that reconnects resumes polling by id.

    python tasks2026.py http [TTL_MS] [state|plain] [POLL_MS]   (prints "PORT <n>", serves /mcp on 127.0.0.1)
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import mcp_types as t
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

EXTENSION = "io.modelcontextprotocol/tasks"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
POLL_MS = 100
NAME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"}},
    "required": ["name"],
}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat().replace("+00:00", "Z")


@dataclass(eq=False)
class _Task:
    task_id: str
    ttl_ms: int
    status: str = "working"
    status_message: str | None = None
    created_at: str = field(default_factory=_now)
    last_updated_at: str = field(default_factory=_now)
    input_requests: dict[str, Any] = field(default_factory=dict)
    """Outstanding requests by key (cleared as each is answered)."""
    answers: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    issued: int = 0
    """How many input requests were made: keys are never reused."""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    work: asyncio.Task[None] | None = None
    updates: list[str] = field(default_factory=list)
    """The keys of every input response received (in order; answered or not)."""
    cancels: int = 0
    poll_ms: int = POLL_MS
    spelling: str = "ms"
    states: int = 0
    """How many requestState values were issued (with `request_state`)."""
    echoed: int = 0
    """The newest requestState a request echoed (one older than it is refused)."""
    stateful: bool = False

    def set(self, status: str, message: str | None = None) -> None:
        if self.status in ("completed", "failed", "cancelled"):
            return  # terminal: stays as it is
        self.status = status
        self.status_message = message
        self.last_updated_at = _now()

    def wire(self) -> dict[str, Any]:
        """The detailed task (`DetailedTask`): the fields of its status only."""
        out: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
        }
        if self.spelling == "sep":  # the SEP text's names: the TTL in seconds
            out.update(ttl=self.ttl_ms / 1000, pollInterval=self.poll_ms)
        elif self.spelling == "draft":
            out.update(ttlSeconds=self.ttl_ms / 1000, pollIntervalMilliseconds=self.poll_ms)
        else:
            out.update(ttlMs=self.ttl_ms, pollIntervalMs=self.poll_ms)
        if self.stateful:
            self.states += 1
            out["requestState"] = f"{self.task_id}:{self.states}"
        if self.status_message:
            out["statusMessage"] = self.status_message
        if self.status == "input_required":
            out["inputRequests"] = dict(self.input_requests)
        elif self.status == "completed":
            out["result"] = self.result
        elif self.status == "failed":
            out["error"] = self.error
        return out

    def open(self, message: str, schema: dict[str, Any]) -> str:
        """Issue an input request (input_required until every open one is answered); returns its key."""
        self.issued += 1
        key = f"q{self.issued}"
        self.input_requests[key] = {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": message, "requestedSchema": schema},
        }
        self.answers[key] = asyncio.get_running_loop().create_future()
        self.set("input_required", f"Waiting for the answer to {key}")
        return key

    def close(self, key: str) -> None:
        """The request `key` is no longer outstanding (answered or withdrawn)."""
        self.input_requests.pop(key, None)
        self.answers.pop(key, None)
        if not self.input_requests:
            self.set("working", f"Got the answer to {key}")

    async def ask(self, message: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Ask through the task (input_required until answered); returns the ElicitResult as sent."""
        key = self.open(message, schema)
        try:
            return await self.answers[key]
        finally:
            self.close(key)


class TasksExtension(Extension):
    """The extension: task-running tools, and tasks/get, tasks/update, tasks/cancel."""

    identifier = EXTENSION

    def __init__(
        self, ttl_ms: int, request_state: bool = False, poll_ms: int = POLL_MS, spelling: str = "ms"
    ) -> None:
        self.spelling = spelling
        self.ttl_ms = ttl_ms
        self.request_state = request_state
        self.poll_ms = poll_ms
        self.tasks: dict[str, _Task] = {}
        self.tamper: Any = None
        """A hostile server rewriting each task-bearing answer: `tamper(answer) -> answer` (None: honest)."""
        self.work: dict[str, Any] = {}
        """Tool name -> `async def body(task, arguments) -> CallToolResult dict`, for tools run as tasks."""
        self.task_only: set[str] = set()

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", _TaskParams, self._get),
            MethodBinding("tasks/update", _UpdateParams, self._update),
            MethodBinding("tasks/cancel", _TaskParams, self._cancel),
        ]

    async def intercept_tool_call(
        self, params: t.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        body = self.work.get(params.name)
        if body is None:
            return await call_next(ctx)
        if not _declares_extension(ctx):
            if params.name in self.task_only:
                raise MCPError(
                    code=t.MISSING_REQUIRED_CLIENT_CAPABILITY,
                    message="Missing required client capability",
                    data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
                )
            return await call_next(ctx)
        task = _Task(
            uuid.uuid4().hex,
            self.ttl_ms,
            stateful=self.request_state,
            poll_ms=self.poll_ms,
            spelling=self.spelling,
        )
        self.tasks[task.task_id] = task  # durable before the answer: tasks/get resolves at once
        task.work = asyncio.get_running_loop().create_task(self._run(task, body, params.arguments or {}))
        asyncio.get_running_loop().call_later(self.ttl_ms / 1000, self._expire, task)
        return self._told({"resultType": "task", **task.wire()})

    def _told(self, answer: dict[str, Any]) -> dict[str, Any]:
        return answer if self.tamper is None else self.tamper(answer)

    async def _run(self, task: _Task, body: Any, arguments: dict[str, Any]) -> None:
        try:
            result = await body(task, arguments)
        except asyncio.CancelledError:
            return
        except MCPError as exc:
            task.error = {"code": exc.code, "message": str(exc)}
            task.set("failed", "The tool failed")
            return
        task.result = result
        task.set("completed", "Done")

    def _expire(self, task: _Task) -> None:
        if task.status not in ("completed", "failed", "cancelled"):
            task.error = {"code": t.INTERNAL_ERROR, "message": f"the task's TTL of {task.ttl_ms} ms elapsed"}
            task.set("failed", "Expired")
            if task.work is not None:
                task.work.cancel()
        asyncio.get_running_loop().call_later(task.ttl_ms / 1000, self.tasks.pop, task.task_id, None)

    def _find(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> _Task:
        request = ctx.request
        headers = getattr(request, "headers", None)
        if headers is not None and headers.get("mcp-name") != params.task_id:
            raise MCPError(code=t.HEADER_MISMATCH, message="Mcp-Name must be the taskId for tasks/* requests")
        task = self.tasks.get(params.task_id)
        if task is None:
            raise MCPError(code=t.INVALID_PARAMS, message=f"unknown task {params.task_id!r}")
        if task.stateful:
            sent = params.request_state
            prefix = f"{task.task_id}:"
            digits = sent[len(prefix) :] if isinstance(sent, str) and sent.startswith(prefix) else ""
            number = int(digits) if digits.isdigit() else -1
            if not max(task.echoed, 1) <= number <= task.states:
                stale = "requestState is older than the last one echoed, or was never issued"
                raise MCPError(code=t.INVALID_PARAMS, message=stale)
            task.echoed = number
        return task

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        return self._told({"resultType": "complete", **self._find(ctx, params).wire()})

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams) -> HandlerResult:
        task = self._find(ctx, params)
        task.updates.extend(params.input_responses)
        for key, response in params.input_responses.items():
            waiting = task.answers.get(key)
            if waiting is not None and not waiting.done():  # other keys: never issued or already answered
                waiting.set_result(response)
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        task = self._find(ctx, params)
        task.cancels += 1
        task.set("cancelled", "Cancelled by the client")
        if task.work is not None:
            task.work.cancel()
        return {"resultType": "complete"}


class _TaskParams(t.RequestParams):
    task_id: str
    request_state: str | None = None


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


def _declares_extension(ctx: ServerRequestContext[Any, Any]) -> bool:
    caps = (ctx.meta or {}).get(CAPABILITIES_META)
    return isinstance(caps, dict) and EXTENSION in (caps.get("extensions") or {})


def _text(value: Any) -> dict[str, Any]:
    """A tool's `-> str` result: the text, and the structured content its output schema asks for."""
    text = json.dumps(value)
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}}


def build_server(
    ttl_ms: int = 60_000,
    *,
    request_state: bool = False,
    bound: float = 60.0,
    poll_ms: int = POLL_MS,
    spelling: str = "ms",
) -> tuple[MCPServer, TasksExtension]:
    """The server and its extension (whose `tasks` a test may read).

    `spelling`: how the TTL and poll interval are named: "ms" (`ttlMs`, `pollIntervalMs`), "sep" (`ttl` in
    seconds, `pollInterval`: the SEP text) or "draft" (`ttlSeconds`, `pollIntervalMilliseconds`).
    """
    tasks = TasksExtension(ttl_ms, request_state, poll_ms, spelling)
    server = MCPServer("tasks-2026", extensions=[tasks])

    async def ask_names(task: _Task, arguments: dict[str, Any]) -> dict[str, Any]:
        answers = []
        for i in range(int(arguments.get("count", 1))):
            answers.append(await task.ask(f"Name number {i + 1}?", NAME_SCHEMA))
        return _text(answers)

    async def work(task: _Task, arguments: dict[str, Any]) -> dict[str, Any]:
        task.set("working", "Working")
        await asyncio.sleep(float(arguments.get("seconds", 1.0)))
        return _text("worked")

    @server.tool(
        name="ask_names", description="Asks for `count` names through a task (needs the tasks extension)."
    )
    async def ask_names_tool(count: int = 1) -> str:
        raise AssertionError("runs as a task only")  # the interceptor answers first

    @server.tool(
        name="work", description="Works for `seconds`; a task when the client takes tasks, else a plain call."
    )
    async def work_tool(seconds: float = 1.0) -> str:
        await asyncio.sleep(seconds)
        return json.dumps("worked")

    async def ask_changing(task: _Task, arguments: dict[str, Any]) -> dict[str, Any]:
        # Two questions at once; the first is then superseded by a third (the key set changes).
        first = task.open("First?", NAME_SCHEMA)
        second = task.open("Second?", NAME_SCHEMA)
        await asyncio.sleep(float(arguments.get("supersede_after", 0.5)))
        task.close(first)
        third = task.open("Third?", NAME_SCHEMA)
        answers = {}
        for key in (second, third):
            try:
                answers[key] = await task.answers[key]
            finally:
                task.close(key)
        return _text(answers)

    @server.tool(
        name="ask_changing", description="Asks two questions at once, then supersedes the first by a third."
    )
    async def ask_changing_tool(supersede_after: float = 0.5) -> str:
        raise AssertionError("runs as a task only")

    @server.tool(
        name="ask_plain",
        description="Asks for a name with an input-required round (no task); the answer must come in time.",
    )
    async def ask_plain(ctx: Context[Any, Any]) -> Any:
        if ctx.request_state is None:
            asking = {
                "name": t.ElicitRequest(
                    params=t.ElicitRequestFormParams(message="Your name?", requested_schema=NAME_SCHEMA)
                )
            }
            return t.InputRequiredResult(input_requests=asking, request_state=json.dumps(time.time()))
        if time.time() - float(json.loads(ctx.request_state)) > bound:
            raise MCPError(code=t.INVALID_PARAMS, message=f"the question expired: it is kept {bound:g} s")
        return json.dumps((ctx.input_responses or {}).get("name"), default=str)

    async def ask_then_echo(task: _Task, arguments: dict[str, Any]) -> dict[str, Any]:
        # A server quoting the answer back in its status messages, then ending as `end` says.
        from tests.servers.hostile import echo  # here: run as a script, the server has no such tool

        answer = await task.ask("Your name?", NAME_SCHEMA)
        said = echo(str(arguments.get("echo", "plain")), "you said", [answer.get("content") or {}])
        task.set("working", f"Working on it: {said}")
        await asyncio.sleep(float(arguments.get("linger", 0.3)))  # polls see the working message
        end = arguments.get("end", "completed")
        if end == "failed":
            task.error = {"code": t.INTERNAL_ERROR, "message": f"it failed: {said}"}
        elif end == "completed":
            task.result = _text("done")
        task.set(end, f"Ended: {said}")
        await asyncio.Event().wait()  # the status above is the task's last word
        raise AssertionError("never")

    @server.tool(name="ask_then_echo", description="Asks a name, then quotes it in its status messages.")
    async def ask_then_echo_tool(end: str = "completed", linger: float = 0.3, echo: str = "plain") -> str:
        raise AssertionError("runs as a task only")

    @server.tool(name="ask_many", description="Asks `count` questions in one input-required round (no task).")
    async def ask_many(ctx: Context[Any, Any], count: int = 2) -> Any:
        if ctx.request_state is None:
            form = t.ElicitRequestFormParams(message="Your name?", requested_schema=NAME_SCHEMA)
            asking = {f"name{i}": t.ElicitRequest(params=form) for i in range(count)}
            return t.InputRequiredResult(input_requests=asking, request_state="asked")
        return json.dumps(len(ctx.input_responses or {}))

    tasks.work = {
        "ask_names": ask_names,
        "work": work,
        "ask_changing": ask_changing,
        "ask_then_echo": ask_then_echo,
    }
    tasks.task_only = {"ask_names", "ask_changing", "ask_then_echo"}
    return server, tasks


def main() -> None:
    import anyio
    import uvicorn

    ttl_ms = int(sys.argv[2]) if len(sys.argv) > 2 else 60_000
    poll_ms = int(sys.argv[4]) if len(sys.argv) > 4 else POLL_MS
    server, _ = build_server(ttl_ms, request_state=sys.argv[3:4] == ["state"], poll_ms=poll_ms)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1"), log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
