"""Tool calls that a 2026-07-28 server runs as tasks (the tasks extension, SEP-2663), on the SDK's public API.

The client declares `io.modelcontextprotocol/tasks` in every request's capabilities (a `ClientExtension`);
the server alone decides, per call, to answer a `tools/call` with `resultType: "task"`. The extension's
result claim then follows the task inside the same call: `tasks/get` at the server's poll interval, its
status and the time left in the call's panel. The input requests of an `input_required` task become the
usual forms and URL cards (through the connection's elicitation callback, so `max_questions`, history and
handlers apply as to any question); each key is asked once however often a poll repeats it, and each
answer goes back alone in a `tasks/update`. A key that leaves the task unanswered is withdrawn. Stopping
the call (an interrupt, `call.cancel()`, closing the server) sends `tasks/cancel`.

Field names follow the SEP text (`ttl` in seconds, `pollInterval` in milliseconds, `requestState`) and take
the other spellings servers send (`ttlMs`, `ttlSeconds`, `pollIntervalMs`, `pollIntervalMilliseconds`): the
most recent `requestState` is echoed on every tasks/* request. Over streamable HTTP each tasks/* request
carries `Mcp-Name: <taskId>` (the SDK's `name_param`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from ...core.exceptions import ConnectionClosedError, MalformedAnswer, RequestTimeout
from ...core.outcome import Reason
from ...core.polling import WAITING, backed_off, poll_interval
from ...core.requests import PendingRequest
from ...widgets import waited_text
from ..record import CURRENT_CALL
from . import experimental as tasks

if TYPE_CHECKING:
    from ..context import ServerContext
    from ..display import CallDisplay

log = logging.getLogger("mcp_widgets")

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")
LONGEST_TTL = 7 * 86400.0
"""Seconds: a longer TTL (or one past any number, `1e400`, `Infinity`) is taken as none: no countdown, no
expiry on the client's side (the call still ends when the task does)."""
WAITING_POLL = WAITING
"""Seconds between polls, at most, while only the person can move a task on (if the server asks for less)."""
_POLL_KEYS = ("pollIntervalMs", "pollIntervalMilliseconds", "pollInterval")
Answer = mcp_types.ElicitResult | mcp_types.ErrorData
Elicit = Callable[[Any, mcp_types.ElicitRequestParams], Awaitable[Answer]]
"""The connection's elicitation callback (`Intake.on_elicit`): a task's question is asked as any other."""

_ELICIT: TypeAdapter[mcp_types.ElicitRequestParams] = TypeAdapter(mcp_types.ElicitRequestParams)


class CreatedTask(mcp_types.Result):
    """A `CreateTaskResult` (`resultType: "task"`); its other fields are read as sent (`model_extra`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str = "working"


class _Raw(BaseModel):
    """A tasks/* answer as sent (`model_extra`): its fields differ in spelling between drafts."""

    model_config = ConfigDict(extra="allow")


class _TaskParams(mcp_types.RequestParams):
    task_id: str
    request_state: str | None = None


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class _Get(mcp_types.Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: _TaskParams
    name_param = "taskId"  # Mcp-Name over streamable HTTP


class _Update(mcp_types.Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: _UpdateParams
    name_param = "taskId"


class _Cancel(mcp_types.Request[_TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: _TaskParams
    name_param = "taskId"


def extensions(
    ctx: ServerContext, display: CallDisplay, open_tasks: tasks.OpenTasks, ask: Elicit
) -> list[ClientExtension]:
    """What `Connection` passes to `Client(extensions=...)`."""
    return [TasksExtension(ctx, display, open_tasks, ask)]


class TasksExtension(ClientExtension):
    """The tasks extension: advertised on every request; a `resultType: "task"` answer is followed here."""

    identifier = EXTENSION

    def __init__(
        self, ctx: ServerContext, display: CallDisplay, open_tasks: tasks.OpenTasks, ask: Elicit
    ) -> None:
        self.ctx = ctx
        self.display = display
        self.open_tasks = open_tasks
        self.ask = ask

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self._resolve)]

    async def _resolve(self, created: CreatedTask, claim: ClaimContext) -> mcp_types.CallToolResult:
        record = CURRENT_CALL.get()  # the runner's call this tools/call belongs to
        if record is None:
            raise RuntimeError("a task answered a call this client did not make through a Server")
        task = _Task2026(self.ctx, self.display, record, claim.session, created.task_id)
        state = {**(created.model_extra or {}), "status": created.status}
        result = await task.follow(state, self.ask, self.open_tasks)
        if task.session is not claim.session:  # resumed: the call's own client has gone
            if not result.is_error:
                await task.session.validate_tool_result(claim.tool_name, result)
            raise tasks.Resumed(result)
        return result


@dataclass(eq=False)
class _Task2026(tasks.FollowedTask):
    """One 2026-07-28 task of one call (client thread)."""

    request_state: str | None = None
    poll: float = 1.0
    """Seconds between polls (the server's interval, kept within the rule of `core.polling`)."""
    deadline: float | None = None
    """Monotonic time the task's TTL runs out (None: unlimited)."""
    ttl: float | None = None
    started: float = field(default_factory=time.monotonic)
    asking: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    """The input requests being asked, by key (asked once, however often a poll repeats them)."""
    answered: set[str] = field(default_factory=set)
    """Keys whose answer was given (never withdrawn, even while the server has not yet seen it)."""
    failure: BaseException | None = None
    """Why an answer could not be sent (ends the call)."""
    last_status: str = "working"
    last_message: str | None = None
    calm: int = 0
    """Polls since the person last moved the task on (the interval grows while only they can)."""
    nudge: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when an answer was sent (or a question failed): the next poll comes at once."""

    def seen(self, state: dict[str, Any]) -> None:
        """Take what a task-bearing message says about polling, TTL and request state."""
        if "requestState" in state:
            value = state.get("requestState")
            self.request_state = value if isinstance(value, str) else None
        else:
            self.request_state = None  # the SEP: no value last time, none on the next request
        # The first usable spelling; none usable (0, negative, NaN, a string...): the interval stays.
        self.poll = next((s for k in _POLL_KEYS if (s := poll_interval(state.get(k), 0.0))), self.poll)
        ttl_ms = _number(state, ("ttlMs",))
        ttl = ttl_ms / 1000 if ttl_ms is not None else _number(state, ("ttlSeconds", "ttl"))
        if ttl is not None and not ttl <= LONGEST_TTL:  # 1e400 in JSON, `Infinity`: no limit
            self.ttl = self.deadline = None
        elif ttl is not None:
            self.ttl = ttl
            self.deadline = self.started + ttl
        elif any(state.get(k, 0) is None for k in ("ttl", "ttlSeconds", "ttlMs")):
            self.ttl = self.deadline = None  # null: unlimited

    def left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    async def follow(
        self, state: dict[str, Any], ask: Elicit, open_tasks: tasks.OpenTasks
    ) -> mcp_types.CallToolResult:
        open_tasks.hold(self)
        try:
            self.seen(state)
            while True:
                self._show(state)
                if self.failure is not None:
                    await self.stop()
                    raise self.failure
                if state.get("status") in TERMINAL:
                    return self._ended(state)
                if self.deadline is not None and time.monotonic() > self.deadline + max(self.poll, 1.0):
                    await self.stop()
                    raise self._expired()
                await self._sleep()
                try:
                    answer = await self._send(lambda: _Get(params=self._params()))
                except MCPError:
                    if self.deadline is not None and time.monotonic() >= self.deadline:
                        raise self._expired() from None  # the server dropped the expired task
                    raise
                state = dict(answer.model_extra or {})
                if state.get("taskId", self.task_id) != self.task_id:
                    raise MalformedAnswer(
                        f"{self.record.describe()} failed: the server answered tasks/get with another task's"
                        " state (its taskId is not this call's task)"
                    )
                self.seen(state)
                if state.get("status") not in TERMINAL:
                    needed = state.get("status") == "input_required"
                    self._take(state.get("inputRequests") if needed else {}, ask)
        except asyncio.CancelledError:
            await self.stop()
            raise
        except BaseException:
            if self.last_status not in TERMINAL:
                await self.stop()  # we failed (a malformed answer...): the server's task must not run on
            raise
        finally:
            for asking in self.asking.values():
                asking.cancel()
            open_tasks.release(self)

    async def _sleep(self) -> None:
        """Wait one poll interval, refreshing the countdown meanwhile.

        While only the person can move the task on (every input request asked, none answered since), the
        interval doubles from poll to poll up to WAITING_POLL: a cancel or an expiry still shows within
        seconds, and an answer sent wakes the wait at once.
        """
        interval = self.poll
        if self.last_status == "input_required" and any(not t.done() for t in self.asking.values()):
            interval = backed_off(self.poll, self.calm)
            self.calm = min(self.calm + 1, 16)
        else:
            self.calm = 0
        end = time.monotonic() + interval
        self.nudge.clear()
        while (wait := end - time.monotonic()) > 0 and not self.nudge.is_set():
            tick = self._tick()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.nudge.wait(), min(wait, tick))
            if wait > tick:
                self._show(None)

    def _tick(self) -> float:
        """Seconds until the countdown shown would change (it counts seconds only under two minutes)."""
        left = self.left()
        if left is None:
            return 3600.0
        return 1.0 if left < 121 else left % 60 + 0.05

    def _take(self, requests: Any, ask: Elicit) -> None:
        """Elicit each new key; withdraw those no longer outstanding."""
        keys = requests if isinstance(requests, dict) else {}
        for key in [k for k, t in self.asking.items() if k not in keys and not t.done()]:
            if key in self.answered:
                continue  # answered: the server may not have seen it yet
            self.asking[key].cancel()  # answered elsewhere or superseded: the server withdrew it
        for key, request in keys.items():
            if key not in self.asking:
                self.asking[key] = asyncio.ensure_future(self._answer(key, request, ask))

    async def _answer(self, key: str, request: Any, ask: Elicit) -> None:
        method = request.get("method") if isinstance(request, dict) else None
        try:
            if method != "elicitation/create":
                raise MCPError(
                    code=mcp_types.METHOD_NOT_FOUND, message=f"this client cannot answer {method!r} in a task"
                )
            params = _ELICIT.validate_python(request.get("params") or {})
        except (MCPError, ValidationError) as exc:
            self.failure = exc
            self.nudge.set()
            return
        before = {r.id for r in self.record.requests}
        pending = asyncio.ensure_future(ask(None, params))
        await asyncio.sleep(0)  # the question is taken in: note when its time runs out
        mine = [r for r in self.record.requests if r.id not in before]
        for asked in mine:
            asked.deadline = self.deadline
        try:
            answer = await pending
        except asyncio.CancelledError:
            pending.cancel()
            raise
        finally:
            for asked in mine:
                asked.deadline = None
        self.answered.add(key)
        if self.record.style != "background" and any(_interrupted(r) for r in mine):
            return  # the interrupt of the waiting cell stops the call (tasks/cancel), not this answer
        if isinstance(answer, mcp_types.ErrorData):
            self.failure = MCPError(code=answer.code, message=answer.message, data=answer.data)
            self.nudge.set()
            return
        response = answer.model_dump(by_alias=True, mode="json", exclude_none=True)

        def update() -> _Update:
            params = self._params()
            return _Update(params=_UpdateParams(**params.model_dump(), input_responses={key: response}))

        try:
            await self._send(update)
        except MCPError as exc:
            self.failure = exc
        self.calm = 0
        self.nudge.set()  # poll now: the answer may have moved the task on

    async def _send(self, request: Callable[[], mcp_types.Request[Any, Any]]) -> _Raw:
        """Send a tasks/* request; when the connection dropped, wait for `srv.reconnect()` and resend it
        on the new one (the task lives in the server, not in the connection)."""
        while True:
            session = self.session
            try:
                return await session.send_request(request(), _Raw)
            except Exception as exc:
                if not self._dropped(session, exc):
                    raise
            await self._resumed(session)

    def _dropped(self, session: ClientSession, exc: Exception) -> bool:
        link = self.ctx.link
        client = link.client
        closed = isinstance(exc, MCPError) and exc.error.code == mcp_types.CONNECTION_CLOSED
        return closed or client is None or client.session is not session or link.state != "connected"

    async def _resumed(self, old: ClientSession) -> None:
        """Wait until the server is connected again (on a new session), until the task's TTL runs out."""
        link = self.ctx.link
        self._show({"status": self.last_status, "statusMessage": "disconnected: waiting for srv.reconnect()"})
        while True:
            client = link.client
            if link.state == "connected" and client is not None and client.session is not old:
                self.session = client.session
                log.info("%s: resuming task %s on the new connection", self.ctx.name, self.task_id)
                return
            if link.state == "closed" and not link.resuming:
                raise ConnectionClosedError(
                    f"{self.record.describe()} was stopped: the connection was closed",
                    code=mcp_types.CONNECTION_CLOSED,
                )
            if self.deadline is not None and time.monotonic() >= self.deadline:
                raise self._expired()
            await asyncio.sleep(0.1)

    def _params(self) -> _TaskParams:
        return _TaskParams(task_id=self.task_id, request_state=self.request_state)

    async def stop(self) -> None:
        if self.cancelled:
            return
        self.cancelled = True
        await tasks.cancel_quietly(self, self._send(lambda: _Cancel(params=self._params())))

    def _ended(self, state: dict[str, Any]) -> mcp_types.CallToolResult:
        status = state.get("status")
        if status == "completed":
            return mcp_types.CallToolResult.model_validate(state.get("result") or {"content": []})
        if status == "cancelled":
            message = state.get("statusMessage") or "the server cancelled the task"
            raise MCPError(code=mcp_types.INTERNAL_ERROR, message=f"task cancelled: {message}")
        if self.deadline is not None and time.monotonic() >= self.deadline - max(self.poll, 0.5):
            raise self._expired()  # the server's TTL (its clock started a moment before ours)
        sent = state.get("error")
        error: dict[str, Any] = sent if isinstance(sent, dict) else {}
        code = error["code"] if isinstance(error.get("code"), int) else mcp_types.INTERNAL_ERROR
        message = str(error.get("message") or "the task failed")
        raise MCPError(code=code, message=message, data=error.get("data"))

    def _expired(self) -> RequestTimeout:
        return RequestTimeout(
            f"{self.record.describe()} ended: its task's time to live ({self.ttl or 0:g} s) ran out"
            " before it finished"
        )

    def _show(self, state: dict[str, Any] | None) -> None:
        if state is not None:
            message = state.get("statusMessage")
            self.last_status = str(state.get("status") or "working")
            self.last_message = message if isinstance(message, str) else None
        status = self.last_status
        left = self.left()
        suffix = "" if left is None or status in TERMINAL else f" · {waited_text(left)} left"
        tasks.show_status(self, status, self.last_message, suffix)


def _interrupted(request: PendingRequest) -> bool:
    outcome = request.outcome
    return outcome is not None and outcome.reason is Reason.INTERRUPT


def _number(state: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = state.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return None
