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
from mcp_widgets.client.tasks.experimental import FollowedTask, OpenTasks
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
    task = FollowedTask(ctx, None, record, None, "t-1")  # type: ignore[arg-type]
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


def test_no_part_reaches_through_the_intake_for_what_it_holds() -> None:
    """The calls in flight, the endings, the URL flow and the rounds are parts of their own, handed to those
    that use them: no module reads them off the intake (it was done in twelve places)."""
    import ast
    from pathlib import Path

    import mcp_widgets.client

    held = {"calls", "endings", "flow", "rounds", "open_tasks", "loose", "completing", "pending"}
    root = Path(mcp_widgets.client.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).as_posix() == "questions/intake.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or node.attr not in held:
                continue
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name.lstrip("_") == "intake":
                found.append(f"{path.relative_to(root)}:{node.lineno} intake.{node.attr}")
    assert found == []


def test_a_calls_end_ends_its_questions_then_its_url_cards_once() -> None:
    """The display says a call ended to the calls in flight, which tell what ends with it, in order; the
    display holds no back-pointer to the questions part."""
    ctx = context()
    calls = CallsInFlight()
    told: list[tuple[str, CallRecord]] = []
    calls.on_end += [lambda r: told.append(("questions", r)), lambda r: told.append(("url cards", r))]
    display = CallDisplay(ctx, calls)
    record = CallRecord(ctx, "tool", "book")
    calls.add(record)
    assert list(calls) == [record] and len(calls) == 1
    display.close_call(record)
    display.close_call(record, returned=True)  # idempotent: the waiting cell closes it too
    assert told == [("questions", record), ("url cards", record)]
    calls.remove(record)
    assert calls.guess() is None
    with calls.completion():
        assert calls.completing == 1
    assert calls.completing == 0


def test_present_is_given_one_object_and_accept_reaches_its_deliver() -> None:
    """`answering.present` takes one object whose methods are its steps: the handler's Accept reaches
    `FormQuestion.deliver`, which settles the request through `Endings.card_done`."""
    from mcp_widgets.client.questions import answering
    from mcp_widgets.client.questions.endings import Endings
    from mcp_widgets.client.questions.intake import FormQuestion
    from mcp_widgets.core.requests import PendingRequest

    ctx = context("shop")
    display = CallDisplay(ctx, CallsInFlight())
    request = PendingRequest(
        server="shop",
        kind="form",
        message="Name?",
        protocol_version="2025-11-25",
        schema={"type": "object", "properties": {"name": {"type": "string"}}},
    )
    delivered: list[Any] = []

    class Watched(FormQuestion):
        def deliver(self, card: Any) -> None:
            delivered.append(card)
            super().deliver(card)

    def handler(card: Any) -> None:
        card.fill(name="Ada")
        card.accept()

    shown: list[Any] = []
    question = Watched(
        ctx,
        request,
        None,
        answering.pick_handler(handler),
        Endings(ctx, display.loose),
        Rounds(ctx, display),
        lambda record, widget: shown.append(widget),
    )
    card = answering.present(question)
    assert card is not None and delivered == [card] and shown == [card]
    reply = request.reply.result(0)
    assert isinstance(reply, mcp_types.ElicitResult) and reply.action == "accept"
    assert reply.content == {"name": "Ada"}
    card.close()
