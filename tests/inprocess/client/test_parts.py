"""The client's parts on their own: each is built from a `ServerContext` and a few lambdas, as `Server`
builds them, with no server, connection or kernel behind it."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import mcp_types
import pytest

from mcp_widgets.client.catalog import Catalog
from mcp_widgets.client.context import Learned, ServerContext, Setting, Settings
from mcp_widgets.client.display import CallDisplay
from mcp_widgets.client.in_flight import CallsInFlight
from mcp_widgets.client.privacy import LateLines
from mcp_widgets.client.questions.rounds import ROUND_TTL, Rounds
from mcp_widgets.client.record import CallRecord
from mcp_widgets.client.tasks.experimental import OpenTasks, _Task
from mcp_widgets.core.exceptions import ConnectError
from mcp_widgets.core.redaction import REDACTED


def context(name: str = "parts", **settings: Any) -> ServerContext:
    return ServerContext(Settings(name=name, **settings))


def test_a_setting_set_on_the_facade_is_what_every_part_reads() -> None:
    class Facade:
        timeout = Setting["float | None"]("seconds")

        def __init__(self, ctx: ServerContext) -> None:
            self._ctx = ctx

    ctx = context(timeout=3.0)
    facade = Facade(ctx)
    assert facade.timeout == 3.0
    facade.timeout = 7.5
    assert ctx.settings.timeout == 7.5
    assert isinstance(Facade.timeout, Setting) and Facade.timeout.__doc__ == "seconds"


def test_the_catalog_asks_its_callbacks_and_reads_what_was_learned() -> None:
    ctx = context()
    asked: list[str] = []

    def not_connected() -> None:
        asked.append("connected?")
        raise ConnectError("'parts' is new, not connected")

    ran: list[CallRecord] = []

    async def run(record: CallRecord, request: Any) -> None:
        ran.append(record)

    catalog = Catalog(ctx, not_connected, run)
    with pytest.raises(ConnectError, match="not connected"):
        catalog.info()
    with pytest.raises(ConnectError):
        asyncio.run(catalog.relist("tools"))
    assert asked == ["connected?", "connected?"] and ran == []

    catalog = Catalog(ctx, lambda: None, run)
    asyncio.run(catalog.relist("prompts"))
    (record,) = ran
    assert (record.kind, record.name, record.ctx) == ("list", "prompts", ctx)
    ctx.learned = Learned(info=SimpleNamespace(name="x"))  # type: ignore[arg-type]
    assert catalog.info().name == "x"  # type: ignore[attr-defined]


def test_open_tasks_find_the_call_a_question_belongs_to() -> None:
    ctx = context()
    tasks = OpenTasks()
    record = CallRecord(ctx, "tool", "slow")
    task = _Task(ctx, None, record, None, "t-1")  # type: ignore[arg-type]
    tasks.hold(task)
    related = SimpleNamespace(meta={"io.modelcontextprotocol/related-task": {"taskId": "t-1"}})
    assert tasks.call_of(related) is record
    assert tasks.call_of(SimpleNamespace(meta={})) is None
    not_an_id = SimpleNamespace(meta={"io.modelcontextprotocol/related-task": {"taskId": 1}})
    assert tasks.call_of(not_an_id) is None
    assert tasks.calls() == {record}
    tasks.release(task)
    assert tasks.calls() == set() and tasks.call_of(related) is None


def test_late_lines_are_redacted_with_the_last_calls_answers_only() -> None:
    ctx = context()
    late = LateLines()
    record = CallRecord(ctx, "tool", "book")
    record.answered = ["Hunter2-secret"]
    assert late.scrub("echo Hunter2-secret") == "echo Hunter2-secret"  # nothing remembered yet
    late.remember(record)
    assert late.scrub("echo Hunter2-secret") == f"echo {REDACTED}"
    assert LateLines().scrub("echo Hunter2-secret") == "echo Hunter2-secret"  # another server's


def test_the_display_logs_a_line_without_a_call_under_the_servers_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ctx = context("weather", log_level="warning")
    display = CallDisplay(ctx, CallsInFlight())
    record = CallRecord(ctx, "tool", "book")
    record.answered = ["Hunter2-secret"]
    display.late.remember(record)

    def log(level: str, data: str) -> None:
        params = mcp_types.LoggingMessageNotificationParams(level=level, data=data)  # type: ignore[arg-type]
        asyncio.run(display.on_log(params))

    with caplog.at_level(logging.DEBUG, logger="mcp_widgets"):
        log("info", "below the level")
        log("error", "saw Hunter2-secret")
    assert [r.getMessage() for r in caplog.records] == [f"weather: [error]: saw {REDACTED}"]
    ctx.settings.name = "renamed"  # read when used
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="mcp_widgets"):
        log("critical", "again")
    assert [r.getMessage() for r in caplog.records] == ["renamed: [critical]: again"]


def test_rounds_keep_the_shortest_time_a_server_kept_a_question() -> None:
    rounds = Rounds(context(), display=None)  # type: ignore[arg-type]
    assert rounds.limit() == ROUND_TTL and rounds.kept is None
    rounds.kept = 42.0
    assert rounds.limit() == 42.0


def test_a_2025_question_goes_to_the_call_that_has_yet_to_ask() -> None:
    """2025-11-25 names no call: of the calls with no open question, the one that asked fewest is taken, so
    a question of a second call in flight does not go to a first call whose question was just answered."""
    from mcp_widgets.core.requests import PendingRequest

    ctx = context()
    calls = CallsInFlight()
    first, second = CallRecord(ctx, "tool", "ask"), CallRecord(ctx, "tool", "ask")
    assert calls.guess() is None
    calls.add(first)
    assert calls.guess() is first
    calls.add(second)
    assert calls.guess() is first  # both yet to ask: the oldest
    question = PendingRequest(
        server="parts", kind="form", message="Name?", protocol_version="2025-11-25", schema={"type": "object"}
    )
    first.asked += 1
    first.add(question)
    assert calls.guess() is second  # the first waits for its answer
    first.pending.discard(question)  # answered: the first is finishing, the second has yet to ask
    assert calls.guess() is second
    second.asked += 1
    assert calls.guess() is first  # both asked once: the oldest
    second.ended = True
    assert calls.guess() is first
