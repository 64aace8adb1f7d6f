"""Tools called as 2025-11-25 tasks (the spec's experimental `tasks` utility), on the SDK's public API.

A tool whose `execution.taskSupport` is "required" (or "optional", when the caller asks with `task=True`) is
called with a `task` parameter and a `ttl`; the server answers at once with a `CreateTaskResult`, and the
call follows the task with `tasks/get` at the server's `pollInterval`, showing its status (and status
message) in the call's panel. Once the task needs input or has ended, `tasks/result` is sent: through it the
server delivers its `elicitation/create` (carrying the task's related-task metadata, which names the call
it belongs to), answered with the usual form or URL card, and it returns the final `CallToolResult`. A
question asked this way lives as long as the task, not as long as a request; while it is open, `tasks/get`
pauses (the task waits for the person, and a pending `tasks/result` reports any end). Stopping the call
(a kernel interrupt, `call.cancel()`, closing the server) sends `tasks/cancel`.

SDK 2.3 has the task types but no client support, and its session checks a `tools/call` answer against
`CallToolResult`, which a `CreateTaskResult` fails. So `adapt` wraps the connection's transport: for the
requests this module sent with a `task` (and only those), a `CreateTaskResult` is handed on as an empty
`CallToolResult` carrying the task in `_meta` under our own key. Every other message passes untouched, and
the tasks/* requests go through `ClientSession.send_request`. This module gives way to the SDK's own task
support when there is one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp import Client
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

from ...core.exceptions import MalformedAnswer
from ...core.polling import backed_off, poll_interval
from ...core.protocol import is_modern
from ...core.text import clip_line
from ..privacy import scrubbed_line
from ..record import CURRENT_CALL
from ..targets import StreamProxy

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from ...widgets import Note
    from ..context import ServerContext
    from ..display import CallDisplay
    from ..record import CallRecord

log = logging.getLogger("mcp_widgets")

TTL = 3600.0
"""Seconds a task is asked to live: how long a person may take over its question (the server may say less)."""
CANCEL_WAIT = 5.0
"""Seconds `tasks/cancel` may take when a call stops (the stop must not hang on a silent server)."""
_CREATED = "io.github.mcp-widgets/created-task"
"""Where `adapt` puts a `CreateTaskResult`'s task in the `_meta` of the `CallToolResult` it hands on."""
_RELATED = "io.modelcontextprotocol/related-task"


class _Seen(mcp_types.Task):
    """A task as sent, its `pollInterval` untouched: `core.polling` judges it (a string, NaN or 1.5 must
    not fail the call, and "500" is not 500 ms)."""

    poll_interval: Any = None


class _Polled(mcp_types.GetTaskResult):
    """A `tasks/get` answer, its `pollInterval` as sent (see `_Seen`)."""

    poll_interval: Any = None


class Resumed(Exception):
    """A 2026-07-28 task's result, carried out of the call of a connection that has since ended (the task
    was resumed on a new one, which checked the result)."""

    def __init__(self, result: mcp_types.CallToolResult) -> None:
        super().__init__("the task was resumed on a new connection")
        self.result = result


@dataclass(eq=False)
class FollowedTask:
    """A task of one call (client thread, except `label`, which is the main thread's)."""

    ctx: ServerContext
    display: CallDisplay
    record: CallRecord
    session: ClientSession
    task_id: str
    text: str = ""
    """The status line shown last."""
    label: Note | None = None
    """The status line placed in the call's panel (main thread)."""
    cancelled: bool = False

    async def stop(self) -> None:
        """Send `tasks/cancel` once (a task that already ended answers an error: nothing to do)."""
        if self.cancelled:
            return
        self.cancelled = True
        request = mcp_types.CancelTaskRequest(params=mcp_types.CancelTaskRequestParams(task_id=self.task_id))
        await cancel_quietly(self, self.session.send_request(request, mcp_types.CancelTaskResult))


class OpenTasks:
    """A server's tasks in flight, by task id (client thread): closing the server cancels them, their
    questions find their call here."""

    def __init__(self) -> None:
        self._by_id: dict[str, FollowedTask] = {}

    def hold(self, task: FollowedTask) -> None:
        self._by_id[task.task_id] = task

    def release(self, task: FollowedTask) -> None:
        self._by_id.pop(task.task_id, None)

    def calls(self) -> set[CallRecord]:
        """The calls following a task now."""
        return {t.record for t in self._by_id.values()}

    async def cancel_all(self) -> None:
        """The connection is closing: cancel every task still in flight (before the close)."""
        tasks = list(self._by_id.values())
        if tasks:
            await asyncio.gather(*(t.stop() for t in tasks))

    def call_of(self, context: Any) -> CallRecord | None:
        """The call a server request belongs to, by its related-task metadata (None: not a task's)."""
        meta = getattr(context, "meta", None) or {}
        related = meta.get(_RELATED) if isinstance(meta, dict) else None
        task_id = related.get("taskId") if isinstance(related, dict) else None
        task = self._by_id.get(task_id) if isinstance(task_id, str) else None
        return task.record if task is not None else None


def tool_call(
    ctx: ServerContext,
    open_tasks: OpenTasks,
    display: CallDisplay,
    name: str,
    arguments: dict[str, Any] | None,
    *,
    task: bool = False,
) -> Callable[[Client, ProgressFnT | None], Awaitable[mcp_types.CallToolResult]]:
    """What `Server.call_tool` runs on the client thread: the plain call, or the call as a task."""

    async def call(client: Client, progress: ProgressFnT | None) -> mcp_types.CallToolResult:
        listed = ctx.learned.tools
        sent = listed.real_name(name) if listed is not None else name  # listed redacted: the server's name
        if not _as_task(ctx, client, name, task):
            try:
                return await client.call_tool(sent, arguments, progress_callback=progress)
            except Resumed as resumed:
                return resumed.result
        record = CURRENT_CALL.get()  # set by the runner for the call this request belongs to
        assert record is not None
        return await _run(ctx, open_tasks, display, record, client.session, sent, arguments, progress)

    return call


def _as_task(ctx: ServerContext, client: Client, name: str, asked: bool) -> bool:
    if is_modern(client.protocol_version):
        return False  # 2026-07-28 tasks are the server's choice (the tasks extension)
    tool = next((t for t in ctx.learned.tools or () if t.name == name), None)
    execution = tool.execution if tool is not None else None
    support = (execution.task_support if execution is not None else None) or "forbidden"
    caps = client.server_capabilities.tasks
    can = caps is not None and caps.requests is not None and caps.requests.tools is not None
    if asked and (support == "forbidden" or not can):
        raise ValueError(f"the tool {name!r} on {ctx.name!r} cannot run as a task (taskSupport {support})")
    # Without the server's tasks.requests.tools.call capability the spec forbids the task parameter.
    return can and (support == "required" or (support == "optional" and asked))


async def _run(
    ctx: ServerContext,
    open_tasks: OpenTasks,
    display: CallDisplay,
    record: CallRecord,
    session: ClientSession,
    name: str,
    arguments: dict[str, Any] | None,
    progress: Any,
) -> mcp_types.CallToolResult:
    params = mcp_types.CallToolRequestParams(
        name=name, arguments=arguments, task=mcp_types.TaskMetadata(ttl=int(TTL * 1000))
    )
    answer = await session.send_request(
        mcp_types.CallToolRequest(params=params), mcp_types.CallToolResult, progress_callback=progress
    )
    created = (answer.meta or {}).get(_CREATED)
    if created is None:
        return answer  # the server ran it as a plain call
    state: mcp_types.Task = _Seen.model_validate(created)
    poll = poll_interval(state.poll_interval)
    wait, calm = poll, 0
    task = FollowedTask(ctx, display, record, session, state.task_id)
    open_tasks.hold(task)
    payload: asyncio.Task[mcp_types.CallToolResult] | None = None
    try:
        while True:
            _show(task, state)
            if payload is None and state.status != "working":
                # Blocks until the task ends and answers what the call would have (a result or an error);
                # the task's questions arrive on the elicitation callback meanwhile.
                request = mcp_types.GetTaskPayloadRequest(
                    params=mcp_types.GetTaskPayloadRequestParams(task_id=task.task_id)
                )
                payload = asyncio.ensure_future(session.send_request(request, mcp_types.CallToolResult))
            if payload is not None:
                await asyncio.wait({payload}, timeout=wait)
                if payload.done():
                    result = payload.result()
                    _show(task, None, failed=bool(result.is_error))
                    if not result.is_error:  # as the SDK's own call_tool does
                        await session.validate_tool_result(name, result)
                    return result
                if record.waiting_for_answer():
                    # Its question is open: the task waits for the person, and tasks/result reports any end.
                    calm += 1
                    wait = backed_off(poll, calm)
                    continue
            else:
                await asyncio.sleep(wait)
            state = await session.send_request(
                mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=task.task_id)),
                _Polled,
            )
            if state.task_id != task.task_id:
                raise MalformedAnswer(
                    f"{record.describe()} failed: the server answered tasks/get with another task's state"
                    " (its taskId is not this call's task)"
                )
            poll = poll_interval(state.poll_interval, poll)
            wait, calm = poll, 0
    except asyncio.CancelledError:
        await task.stop()
        raise
    except Exception:
        if state.status not in ("completed", "failed", "cancelled"):
            await task.stop()  # we failed (a malformed answer...): the server's task must not run on
        raise
    finally:
        if payload is not None and not payload.done():
            payload.cancel()
        open_tasks.release(task)


async def cancel_quietly(task: FollowedTask, sending: Awaitable[Any]) -> None:
    """Await a `tasks/cancel`, bounded by CANCEL_WAIT; its failure is only logged."""
    try:
        await asyncio.wait_for(sending, CANCEL_WAIT)
    except Exception:
        log.debug("tasks/cancel of %s on %s failed", task.task_id, task.ctx.name, exc_info=True)


def _show(task: FollowedTask, state: mcp_types.Task | None, *, failed: bool = False) -> None:
    """Show the task's status in its call's panel (None: the result arrived); a line only when it changed."""
    status = state.status if state is not None else ("failed" if failed else "completed")
    show_status(task, status, state.status_message if state is not None else None)


def show_status(task: FollowedTask, status: str, message: str | None, suffix: str = "") -> None:
    """The task's status line in its call's panel ("Task input required: message · suffix"), if changed.

    The server's message may quote what the person typed: redacted before it is clipped (a cut could leave
    the start of a typed value), as the line ends as the call's closing text, which a saved notebook keeps.
    """
    line = f"Task {status.replace('_', ' ')}" + (f": {message}" if message else "")
    line = scrubbed_line(task.record, line)
    text = clip_line(line, 480) + suffix
    if text != task.text:
        task.text = text
        task.record.post(partial(_place, task, text))


def _place(task: FollowedTask, text: str) -> None:
    """Main thread: one line in the panel, kept up to date (it ends as the call's closing line)."""
    record = task.record
    if record.ended or record.panel is None:
        return
    if task.label is None:
        task.label = record.panel.line(text)
        task.display.place(record, task.label)
    else:
        record.panel.set_line(task.label, text)


# -- the transport adapter ---------------------------------------------------------------------------------


def adapt(kind: str, transport: Any) -> Any:
    """`transport` with `CreateTaskResult`s of our task-augmented calls passing the session (see above)."""
    if kind == "inproc":
        return transport  # an in-process server has no wire to adapt (and serves no 2025-11-25 tasks)
    return _adapted(transport)


@contextlib.asynccontextmanager
async def _adapted(transport: Any) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read, write):
        sent: set[Any] = set()
        yield _Reading(read, sent), _Writing(write, sent)


class _Writing(StreamProxy):
    """A write stream noting the ids of `tools/call` requests sent with a `task`."""

    def __init__(self, stream: Any, sent: set[Any]) -> None:
        super().__init__(stream)
        self._sent = sent

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if (
            isinstance(message, mcp_types.JSONRPCRequest)
            and message.method == "tools/call"
            and isinstance(message.params, dict)
            and "task" in message.params
        ):
            self._sent.add(message.id)
        await self._stream.send(item)


class _Reading(StreamProxy):
    """A read stream handing a noted request's `CreateTaskResult` on as a `CallToolResult` (see above)."""

    def __init__(self, stream: Any, sent: set[Any]) -> None:
        super().__init__(stream)
        self._sent = sent

    async def receive(self) -> Any:
        item = await self._stream.receive()
        message = getattr(item, "message", None)
        if isinstance(message, mcp_types.JSONRPCError):
            self._sent.discard(message.id)
            return item
        if not isinstance(message, mcp_types.JSONRPCResponse) or message.id not in self._sent:
            return item
        self._sent.discard(message.id)
        result = message.result
        if not isinstance(result, dict) or not isinstance(result.get("task"), dict) or "content" in result:
            return item
        meta = dict(result.get("_meta") or {})
        meta[_CREATED] = result["task"]
        result = {"content": [], "_meta": meta}
        wrapped = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
        return SessionMessage(message=wrapped, metadata=item.metadata)
