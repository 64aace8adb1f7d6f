"""Our client on the 2026-07-28 tasks extension (SEP-2663), against `tests/servers/tasks2026.py`.

In-process (the server object: its tasks can be read) and over streamable HTTP (a server process that
refuses tasks/* requests without the `Mcp-Name` header, and without the latest `requestState` echoed).
Public API only, so each test fails where the client does not follow tasks.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import json
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets import RequestTimeout, ServerError, connect_sync, handlers, kernel
from mcp_widgets.core.history import default_history
from tests.servers import SERVERS
from tests.servers.dropping_proxy import DroppingProxy
from tests.servers.launch import serving
from tests.servers.tasks2026 import TasksExtension, build_server

SERVER = SERVERS / "tasks2026.py"


def _answers(result: Any) -> Any:
    return json.loads(result.structured_content["result"])


def _until(check: Callable[[], Any], limit: float = 10.0) -> Any:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("timed out")


def _only_task(ext: TasksExtension) -> Any:
    (task,) = ext.tasks.values()
    return task


class _Later:
    """What a handler may await inside a blocking call: a plain future, set after `seconds` (None: never)."""

    def __init__(self, seconds: float | None) -> None:
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if seconds is not None:
            timer = threading.Timer(seconds, self.future.set_result, [None])
            timer.daemon = True
            timer.start()

    def __await__(self) -> Generator[Any, None, None]:
        yield self.future


async def _hold(card: Any) -> None:
    """A person who has not answered yet: keeps the card open (the headless default would decline)."""
    await _Later(None)


def _history(server: str) -> list[dict[str, Any]]:
    return [r for r in default_history().records() if r["server"] == server]


def _shown(call: Any, server: str) -> list[Any]:
    """The server's open questions that have a card (plain python: a wait runs what the client posts)."""
    with contextlib.suppress(TimeoutError):
        if call is None:
            kernel.wait_sync(concurrent.futures.Future(), timeout=0.02)
        else:
            call.result(0.02)
    return [i for i in mw.pending(server).items if i.view is not None]


@pytest.fixture
def http_url() -> Iterator[str]:
    argv = [sys.executable, str(SERVER), "http", "60000", "state"]
    with serving(argv, "the 2026-07-28 task server") as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


def test_a_task_only_tool_asks_through_forms_in_process() -> None:
    server, ext = build_server(request_state=True)  # refuses a tasks/* request without the latest state
    answer = handlers.scripted([{"name": "Ada"}, {"name": "Bea"}])
    with connect_sync(server, name="t26", handler=answer) as srv:
        result = srv.call_tool_sync("ask_names", {"count": 2})
        assert [a["content"] for a in _answers(result)] == [{"name": "Ada"}, {"name": "Bea"}]
        task = _only_task(ext)
        assert task.status == "completed"
        assert task.updates == ["q1", "q2"]  # each key answered once, though every 100 ms poll repeats it
        # A tool the server runs as a task when the client takes tasks, else plainly: the same result.
        assert json.loads(srv.call_tool_sync("work", {"seconds": 0.2}).content[0].text) == "worked"
        assert len(ext.tasks) == 2


def test_a_task_only_tool_over_streamable_http(http_url: str) -> None:
    answer = handlers.scripted([{"name": "Ada"}])
    with connect_sync(http_url, handler=answer) as srv:
        assert srv.protocol_version == "2026-07-28"
        result = srv.call_tool_sync("ask_names", {"count": 1})
        # The server refuses tasks/get without Mcp-Name (and without the echoed requestState): the answer
        # arriving at all shows both were sent.
        assert [a["content"] for a in _answers(result)] == [{"name": "Ada"}]


def test_a_changing_key_set_asks_each_key_once() -> None:
    server, ext = build_server()
    asked: list[str] = []

    async def person(card: Any) -> None:
        asked.append(card.message)
        if card.message == "First?":
            await _hold(card)  # still thinking when the server supersedes it
            return
        await _Later(0.3)  # several polls repeat the open keys meanwhile
        card.fill(name=card.message.rstrip("?"))
        card.accept()

    with connect_sync(server, name="t26-keys", handler=person) as srv:
        result = srv.call_tool_sync("ask_changing", {"supersede_after": 0.5})
    answers = _answers(result)
    assert {k: v["content"] for k, v in answers.items()} == {
        "q2": {"name": "Second"},
        "q3": {"name": "Third"},
    }
    assert sorted(asked) == ["First?", "Second?", "Third?"]  # each question shown once
    assert sorted(_only_task(ext).updates) == ["q2", "q3"]  # the superseded one was never answered
    first = next(r for r in _history("t26-keys") if r["message"] == "First?")
    assert first["outcome"]["reason"] == "withdrawn"


def test_the_ttl_running_out_ends_the_call_and_its_card() -> None:
    server, _ = build_server(ttl_ms=1500)
    with connect_sync(server, name="t26-ttl", handler=_hold) as srv:
        started = time.monotonic()
        with pytest.raises(RequestTimeout) as caught:
            srv.call_tool_sync("ask_names")
        assert time.monotonic() - started < 6
        assert "time to live" in str(caught.value) and "1.5 s" in str(caught.value)
        assert mw.pending("t26-ttl").items == []  # the card closed
        (record,) = _history("t26-ttl")
        assert record["outcome"]["action"] == "cancel"


def test_call_cancel_sends_tasks_cancel() -> None:
    server, ext = build_server()
    with connect_sync(server, name="t26-cancel", handler=_hold) as srv:
        call = srv.call_tool_background("ask_names")
        task = _until(lambda: ext.tasks and _only_task(ext).status == "input_required" and _only_task(ext))
        _until(lambda: mw.pending("t26-cancel").items)
        assert call.cancel()
        _until(lambda: task.status == "cancelled")
        assert task.cancels == 1
        assert _until(lambda: call.state == "cancelled")
        _until(lambda: not mw.pending("t26-cancel").items)


def test_closing_the_server_sends_tasks_cancel() -> None:
    server, ext = build_server()
    srv = connect_sync(server, name="t26-close", handler=_hold)
    srv.call_tool_background("ask_names")
    task = _until(lambda: ext.tasks and _only_task(ext).status == "input_required" and _only_task(ext))
    srv.close()
    assert task.status == "cancelled" and task.cancels == 1


def test_how_long_a_person_may_take() -> None:
    """The server keeps a plain question 1 s; answered after 1.5 s, only the task's question still counts."""
    server, _ = build_server(bound=1.0)

    async def slow(card: Any) -> None:
        await _Later(1.5)
        card.fill(name="Ada")
        card.accept()

    with connect_sync(server, name="t26-slow", handler=slow) as srv:
        with pytest.raises(ServerError) as caught:
            srv.call_tool_sync("ask_plain")
        assert "expired" in str(caught.value)
        result = srv.call_tool_sync("ask_names")
        assert _answers(result)[0]["content"] == {"name": "Ada"}


def test_pending_lists_a_task_question_with_its_time_left_and_it_is_answerable_there() -> None:
    server, _ = build_server(ttl_ms=30_000)
    with connect_sync(server, name="t26-pending", handler=_hold) as srv:
        call = srv.call_tool_background("ask_names")
        (item,) = _until(lambda: _shown(call, "t26-pending"))
        assert item.server == "t26-pending" and item.message == "Name number 1?"
        assert item.left is not None and 20 < item.left <= 30
        assert "left" in repr(srv.pending) and "Name number 1?" in repr(mw.pending())
        item.view.fill(name="Ada")  # the same card as in the calling cell
        assert item.view.accept()
        assert _answers(call.result(10))[0]["content"] == {"name": "Ada"}
        _until(lambda: not mw.pending("t26-pending").items)
        assert "no open questions" in repr(srv.pending)


def test_a_task_questions_deadline_is_a_field_of_its_request_while_it_waits() -> None:
    """The time a task's question ends by is the request's own (no module-level table keyed by request id):
    set while it waits, cleared once it is answered."""
    from mcp_widgets.core.requests import pending_requests

    server, _ = build_server(ttl_ms=30_000)
    with connect_sync(server, name="t26-deadline", handler=_hold) as srv:
        call = srv.call_tool_background("ask_names")
        (item,) = _until(lambda: _shown(call, "t26-deadline"))
        (request,) = [r for r in pending_requests() if r.server == "t26-deadline"]
        left = request.deadline - time.monotonic() if request.deadline is not None else None
        assert left is not None and 20 < left <= 30
        item.view.fill(name="Ada")
        assert item.view.accept()
        call.result(10)
        _until(lambda: request.deadline is None)


def test_a_reconnect_resumes_the_task_and_its_question_stays_answerable() -> None:
    server, ext = build_server(request_state=True)
    with connect_sync(server, name="t26-resume", handler=_hold) as srv:
        call = srv.call_tool_background("ask_names")
        task = _until(lambda: ext.tasks and _only_task(ext).status == "input_required" and _only_task(ext))
        (item,) = _until(lambda: _shown(call, "t26-resume"))
        srv.reconnect()  # the old connection ends (its tasks are kept), a new one is made
        assert srv.connected and task.cancels == 0
        assert item.view.outcome is None  # the same card, still open
        item.view.fill(name="Ada")
        assert item.view.accept()
        assert _answers(call.result(10))[0]["content"] == {"name": "Ada"}
        assert task.status == "completed" and task.updates == ["q1"]


def test_a_background_call_lives_without_its_handle() -> None:
    server, ext = build_server()
    with connect_sync(server, name="t26-handle", handler=_hold) as srv:
        srv.call_tool_background("ask_names")  # the handle is dropped at once
        gc.collect()
        (item,) = _until(lambda: _shown(None, "t26-handle"))
        item.view.fill(name="Ada")
        assert item.view.accept()
        task = _only_task(ext)
        _until(lambda: task.status == "completed", limit=10)
        assert task.cancels == 0


@pytest.mark.parametrize("spelling", ["sep", "draft"])
def test_the_other_spellings_of_ttl_and_poll_interval_are_taken(spelling: str) -> None:
    """The SEP text's `ttl` (in seconds) and `pollInterval`; a draft's `ttlSeconds` and its poll."""
    server, ext = build_server(ttl_ms=1500, spelling=spelling, poll_ms=50)
    with connect_sync(server, name=f"t26-{spelling}", handler=_hold) as srv:
        call = srv.call_tool_background("ask_names")
        (item,) = _until(lambda: _shown(call, f"t26-{spelling}"))
        assert item.left is not None and 0 < item.left <= 1.5  # read in seconds
        with pytest.raises(RequestTimeout):
            call.result(6)
        assert _only_task(ext).status == "failed"


def test_a_dropped_connection_resumes_after_reconnect_over_http() -> None:
    """The network goes away mid-question (a proxy cuts it): the card stays open, `srv.reconnect()` once it
    is back resumes polling the same task, and the answer reaches the server."""
    argv = [sys.executable, str(SERVER), "http", "60000", "state"]
    with serving(argv, "the 2026-07-28 task server") as (port, _proc):
        proxy = DroppingProxy(port)
        try:
            srv = connect_sync(f"http://127.0.0.1:{proxy.port}/mcp", name="t26-drop", handler=_hold)
            call = srv.call_tool_background("ask_names")
            (item,) = _until(lambda: _shown(call, "t26-drop"))
            proxy.drop()
            _until(lambda: _shown(call, "t26-drop") and not srv.connected)  # it noticed
            assert not call.done() and item.view.outcome is None  # the card waits for the network
            proxy.restore()
            srv.reconnect()
            item.view.fill(name="Ada")
            assert item.view.accept()
            assert _answers(call.result(10))[0]["content"] == {"name": "Ada"}
            srv.close()
        finally:
            proxy.close()
