"""Tasks taken on trust (#33): a server quoting the answer in its task's status messages, TTLs past any
clock, another task's id, malformed task answers. Against `tests/servers/tasks2026.py` (in-process, its
task-bearing answers rewritten by `tamper`), public API only.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterator
from typing import Any

import ipywidgets as w
import pytest

from mcp_widgets import MalformedAnswer, ServerError, TooManyQuestions, connect_sync, handlers
from mcp_widgets.core.history import default_history
from mcp_widgets.widgets import CallLine
from tests.fuzz.checks import closing_text, recording
from tests.inprocess.client.test_secrets import everything_in, leaks
from tests.servers import SERVERS
from tests.servers.launch import serving
from tests.servers.tasks2026 import build_server

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(60)]

CANARY = "Zoé-Canary-4711"
SERVER = SERVERS / "tasks2026.py"


@pytest.fixture
def shown() -> Iterator[list[str]]:
    """Every line a call's line (its status, the task's status line among its notes) or a Label showed while
    the test ran."""
    seen: list[str] = []

    def watch(widget: Any) -> None:
        if isinstance(widget, w.Label):
            seen.append(str(widget.value))
            widget.observe(lambda change: seen.append(str(change["new"])), "value")
        if isinstance(widget, CallLine):
            widget.observe(lambda change: seen.append(str(change["new"])), "status")
            widget.observe(lambda change: seen.extend(map(str, change["new"])), "notes")

    w.Widget.on_widget_constructed(watch)
    try:
        yield seen
    finally:
        w.Widget._widget_construction_callback = None  # ipywidgets keeps one such callback


@pytest.mark.parametrize("end", ["completed", "failed", "cancelled"])
def test_a_task_status_message_quoting_the_answer_is_redacted(end: str, shown: list[str]) -> None:
    server, _ = build_server()
    out = w.Output()
    error: BaseException | None = None
    answer = handlers.scripted([{"name": CANARY}])
    with recording() as logs, connect_sync(server, name=f"t33-{end}", handler=answer) as srv:
        try:
            srv.call_tool_sync("ask_then_echo", {"end": end}, output=out)
        except ServerError as exc:
            error = exc
    assert (error is None) == (end == "completed")
    closing = closing_text(out)
    assert "you said [redacted]" in closing  # the server did quote it, in the line a saved notebook keeps
    assert any("you said [redacted]" in line for line in shown)  # and in the live status line
    scope = {
        "shown": "\n".join(shown),
        "closing": closing,
        "error": everything_in(error) if error is not None else "",
        "logs": "\n".join(logs.texts),
    }
    assert {where: leaks(text, [CANARY]) for where, text in scope.items()} == {where: [] for where in scope}


def _rewrite(**fields: Any) -> Any:
    """A `tamper` setting `fields` on every task-bearing answer."""
    return lambda answer: {**answer, **fields}


@pytest.mark.parametrize("ttl", [math.inf, 1e300], ids=["infinite", "huge"])
def test_a_ttl_past_any_clock_is_no_limit(ttl: float, shown: list[str]) -> None:
    server, ext = build_server()
    ext.tamper = _rewrite(ttlMs=ttl)  # JSON's 1e400 and `Infinity` both parse as infinity
    with connect_sync(server, name="t33-ttl") as srv:
        result = srv.call_tool_sync("work", {"seconds": 0.3}, output=w.Output())
    assert json.loads(result.content[0].text) == "worked"
    task_lines = [line for line in shown if line.startswith("Task ")]
    assert task_lines and all("left" not in line and len(line) < 100 for line in task_lines), task_lines


def test_a_failure_on_our_side_still_cancels_the_task() -> None:
    # The poll answers another task's state: the call fails, and the server's task is cancelled, not left.
    server, ext = build_server()
    ext.tamper = lambda answer: answer if answer["resultType"] == "task" else {**answer, "taskId": "other"}
    srv = connect_sync(server, name="t33-foreign")
    with srv, pytest.raises(MalformedAnswer, match="another task"):
        srv.call_tool_sync("work", {"seconds": 5})
    (task,) = ext.tasks.values()
    assert task.status == "cancelled" and task.cancels == 1


def _quote_status_in_result(answer: dict[str, Any]) -> dict[str, Any]:
    """A completed task whose result is malformed, quoting the status message (which quotes the answer)."""
    if answer.get("status") != "completed":
        return answer
    return {**answer, "result": {"content": [{"type": "image", "data": answer["statusMessage"]}]}}


def test_a_malformed_task_result_quoting_the_answer_raises_our_error() -> None:
    server, ext2 = build_server()
    ext2.tamper = _quote_status_in_result
    answer = handlers.scripted([{"name": CANARY}])
    with (
        recording() as logs,
        connect_sync(server, name="t33-malformed", handler=answer) as srv,
        pytest.raises(MalformedAnswer) as caught,
    ):
        srv.call_tool_sync("ask_then_echo", {"linger": 0.1})
    text = everything_in(caught.value)
    assert "content.0" in str(caught.value)  # where it was malformed
    assert "ValidationError" not in text  # pydantic's error (which quotes the payload) is not chained
    assert leaks(text, [CANARY]) == [] and leaks("\n".join(logs.texts), [CANARY]) == []


def test_a_malformed_question_raises_our_error_and_cancels_the_task() -> None:
    server, ext = build_server()

    def bad_question(answer: dict[str, Any]) -> dict[str, Any]:
        asks = answer.get("inputRequests")
        if not asks:
            return answer
        return {**answer, "inputRequests": {k: {**v, "params": {"mode": "form"}} for k, v in asks.items()}}

    ext.tamper = bad_question
    srv = connect_sync(server, name="t33-bad-question")
    with srv, pytest.raises(MalformedAnswer, match="malformed"):
        srv.call_tool_sync("ask_names")
    (task,) = ext.tasks.values()
    assert task.status == "cancelled" and task.cancels == 1


@pytest.fixture
def http_url() -> Iterator[str]:
    argv = [sys.executable, str(SERVER), "http", "60000"]
    with serving(argv, "the 2026-07-28 task server") as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


def _person() -> tuple[list[Any], Any]:
    seen: list[Any] = []

    async def person(card: Any) -> None:
        seen.append(card)
        card.fill(name="Ada")
        card.accept()

    return seen, person


def test_an_oversized_round_is_refused_from_its_count_over_http(http_url: str) -> None:
    seen, person = _person()
    name = f"t33-round-http-{time.monotonic_ns()}"  # a rerun's history holds none of an earlier try's
    with connect_sync(http_url, name=name, handler=person) as srv:
        with pytest.raises(TooManyQuestions, match="10000 questions in one input-required round"):
            srv.call_tool_sync("ask_many", {"count": 10_000})
        assert seen == [] and _history(name) == []  # none built, shown or answered
        assert json.loads(srv.call_tool_sync("ask_many", {"count": 20}).content[0].text) == 20  # the bound


def test_an_oversized_round_in_process_shows_none_of_its_questions() -> None:
    server, _ = build_server()
    seen, person = _person()
    with connect_sync(server, name="t33-round", handler=person) as srv, pytest.raises(TooManyQuestions):
        srv.call_tool_sync("ask_many", {"count": 25})
    assert seen == []  # not 20 of the 25 asked and answered: the round is refused as a whole
    assert all(r["outcome"]["action"] != "accept" for r in _history("t33-round"))


def _history(server: str) -> list[dict[str, Any]]:
    return [r for r in default_history().records() if r["server"] == server]
