"""Progress and logs of a call, and what a call leaves behind: against a real in-process MCPServer.

No kernel here: calls show in an ipywidgets `Output` (`output=`), whose entry for the call is the box while
there is something live to show and plain text once the call ended. Kernel displays (display ids) are in
tests/kernel/test_client_progress_kernel.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import warnings
from typing import Any

import anyio
import ipywidgets as w
import mcp_types as t
import pytest
from ipywidgets.widgets.widget import _instances
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel

from mcp_widgets.client import connect, connect_sync
from mcp_widgets.client.display import CallDisplay
from mcp_widgets.widgets import CallLine
from mcp_widgets.widgets._call_panel import LOG_KEEP

MODES = ["auto", "legacy"]
VIEW = "application/vnd.jupyter.widget-view+json"


class Name(BaseModel):
    name: str


class Gate:
    """Holds a tool until the test opens it; says when the tool reached it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.opened = threading.Event()

    async def wait(self) -> None:
        self.reached.set()
        while not self.opened.is_set():
            await anyio.sleep(0.005)


async def say(ctx: Context[Any, Any], level: t.LoggingLevel, text: Any) -> None:
    """Send a log message (deprecated in 2026-07-28 but delivered to clients that opt in)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        sending = ctx.session.send_log_message(level, text, logger="work", related_request_id=ctx.request_id)
    await sending


def build_server(gate: Gate | None = None) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("progress")

    @server.tool()
    async def work(ctx: Context[Any, Any], steps: int = 3, total: bool = True, hold: bool = False) -> str:
        await say(ctx, "info", f"starting <b>{steps}</b> steps")
        await say(ctx, "debug", {"detail": "only at debug"})
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps if total else None, f"step {step} <i>of</i> {steps}")
            if hold and gate is not None and step == 1:
                await gate.wait()
        await say(ctx, "warning", "all done")
        return "ok"

    @server.tool()
    async def chatty(ctx: Context[Any, Any], n: int = 500) -> str:
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"item {i}")
            await say(ctx, "info", f"line {i}")
        assert gate is not None
        await gate.wait()
        return "ok"

    @server.tool()
    async def fails(ctx: Context[Any, Any]) -> str:
        await ctx.report_progress(1, 2, "half way")
        raise ToolError("broken on purpose")

    @server.tool()
    async def quiet() -> str:
        return "ok"

    @server.tool()
    async def greet(ctx: Context[Any, Any]) -> str:
        """Asks a name (2025-11-25 only), then logs a greeting quoting it."""
        answer = await ctx.elicit("Your name?", Name)
        name = answer.data.name if answer.action == "accept" else "nobody"
        await say(ctx, "info", f"hello {name}, welcome")
        return f"hi {name}"

    @server.tool()
    async def log_later(ctx: Context[Any, Any]) -> str:
        """Returns at once; a log message follows when no call is in flight (2025-11-25 only)."""
        session = ctx.session

        async def later() -> None:
            await asyncio.sleep(0.05)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                sending = session.send_log_message("warning", "after the call", logger="late")
            await sending

        asyncio.get_running_loop().create_task(later())
        return "ok"

    return server


pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py


def entry_text(out: w.Output) -> str:
    """The call's one entry in `out`, which must be plain text by now."""
    (entry,) = out.outputs
    assert VIEW not in entry["data"], "the call still shows widgets"
    return str(entry["data"]["text/plain"])


def live_line(out: w.Output) -> Any:
    """The line a running call shows in `out`, its whole display (None while it shows none)."""
    for entry in out.outputs:
        view = entry["data"].get(VIEW)
        if view is not None:
            return _instances.get(view["model_id"])
    return None


async def until(condition: Any, what: str, timeout: float = 30) -> None:
    """Let posted work run (a call is awaited meanwhile) until `condition()` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


# --------------------------------------------------------------------------- progress and logs


@pytest.mark.parametrize("mode", MODES)
def test_live_bar_and_log_then_text_and_no_model_left(mode: str) -> None:
    gate = Gate()
    out = w.Output()
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with connect(build_server(gate), mode=mode, output=out, log_level="info") as srv:
            await srv.call_tool("work", {"steps": 1})  # warm up: shared Layouts and Styles are made once
            out.outputs = ()
            before = len(_instances)
            task = asyncio.ensure_future(srv.call_tool("work", {"steps": 4, "hold": True}))
            await until(lambda: gate.reached.is_set() and live_line(out) is not None, "the live line")
            line = live_line(out)  # one model: the call's line (status, bar, progress line, log)
            assert isinstance(line, CallLine)
            await until(lambda: line.log_count > 0, "bar, log")
            seen.update(fraction=line.fraction, line=line.progress, count=line.log_count, text=line.log)
            models = [line]
            gate.opened.set()
            assert (await task).content[0].text == "ok"
            seen["closed"] = [m.comm is None for m in models]
            seen["added"] = len(_instances) - before

    asyncio.run(scenario())
    assert seen["fraction"] == 0.25
    assert seen["line"] == "step 1 <i>of</i> 4 (25%)"  # plain text (the page sets it as textContent), as sent
    assert seen["count"] == 1
    assert seen["text"] == ["[info] work: starting <b>4</b> steps"]  # debug was not asked for
    assert seen["closed"] == [True] and seen["added"] == 0
    text = entry_text(out)
    assert text.splitlines() == [
        "Progress: done — step 4 <i>of</i> 4 (100%)",
        "Log (2 messages):",
        "  [info] work: starting <b>4</b> steps",
        "  [warning] work: all done",
    ]
    page = out.outputs[0]["data"]["text/html"]
    assert "&lt;b&gt;4&lt;/b&gt;" in page and "<b>" not in page and "<details>" in page


@pytest.mark.parametrize("mode", MODES)
def test_progress_without_total_is_a_count_without_a_bar(mode: str) -> None:
    gate = Gate()
    out = w.Output()
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with connect(build_server(gate), mode=mode, output=out, log_level=None) as srv:
            task = asyncio.ensure_future(srv.call_tool("work", {"steps": 2, "total": False, "hold": True}))
            await until(lambda: live_line(out) is not None and gate.reached.is_set(), "the live line")
            line = live_line(out)
            seen["kinds"] = [type(line).__name__, line.questions, line.notes]
            seen.update(line=line.progress, fraction=line.fraction, count=line.log_count)
            gate.opened.set()
            await task

    asyncio.run(scenario())
    assert seen["kinds"] == ["CallLine", [], []]
    assert seen["fraction"] == -1.0 and seen["count"] == 0  # no bar, no log: log_level=None asks for none
    assert seen["line"] == "step 1 <i>of</i> 2"  # the message says the count already
    assert entry_text(out) == "Progress: done — step 2 <i>of</i> 2"


@pytest.mark.parametrize("mode", MODES)
def test_log_level_is_asked_for(mode: str) -> None:
    out = w.Output()
    with connect_sync(build_server(), mode=mode, output=out, log_level="debug") as srv:
        srv.call_tool_sync("work", {"steps": 1})
    assert '[debug] work: {"detail": "only at debug"}' in entry_text(out)
    out = w.Output()
    with connect_sync(build_server(), mode=mode, output=out, log_level="warning") as srv:
        srv.call_tool_sync("work", {"steps": 1})
    assert entry_text(out).splitlines()[1:] == ["Log (1 message):", "  [warning] work: all done"]


def test_log_level_is_checked() -> None:
    with pytest.raises(ValueError, match="log_level"):
        connect_sync(build_server(), log_level="verbose")


@pytest.mark.parametrize("mode", MODES)
def test_a_failed_call_says_so(mode: str) -> None:
    out = w.Output()
    with connect_sync(build_server(), mode=mode, output=out) as srv:
        srv.call_tool_sync("fails")  # warm up: shared Layout and Style models are made once per process
        out.outputs = ()
        before = len(_instances)
        result = srv.call_tool_sync("fails")
        assert result.is_error and "broken on purpose" in result.content[0].text
        assert len(_instances) == before
    assert entry_text(out) == "Progress: failed — half way (1/2, 50%)"


def test_a_cancelled_background_call_says_so_in_its_status_line() -> None:
    gate = Gate()
    out = w.Output()
    with connect_sync(build_server(gate), mode="legacy", output=out, log_level=None) as srv:
        call = srv.call_tool_background("work", {"steps": 3, "hold": True})
        assert entry_text(out) == "tool 'work' on 'progress': running"  # text: no widget for a status
        assert gate.reached.wait(30)
        for _ in range(3000):  # the progress notification is on its way to the client thread
            if call._record.progress is not None:
                break
            threading.Event().wait(0.01)
        assert call.cancel()
        with pytest.raises(concurrent.futures.CancelledError):
            call.result(timeout=30)
        assert call.state == "cancelled"
        assert call._repr_mimebundle_() == {"text/plain": "<Call tool 'work' on 'progress': cancelled>"}
        gate.opened.set()
    lines = entry_text(out).splitlines()
    assert lines[0].startswith("Progress: cancelled — step 1 <i>of</i> 3")
    assert lines[1:] == ["tool 'work' on 'progress': cancelled"]  # how it ended, last, and no result


def test_a_background_call_ends_with_its_result_line() -> None:
    out = w.Output()
    with connect_sync(build_server(), output=out, log_level=None) as srv:
        call = srv.call_tool_background("work", {"steps": 2})
        assert call.result(timeout=30).content[0].text == "ok"
        assert call.state == "done"
    # In the order things happened; the status line says "done" alone, the result follows it.
    assert entry_text(out).splitlines() == [
        "Progress: done — step 2 <i>of</i> 2 (100%)",
        "tool 'work' on 'progress': done",
        "ok",
        "Structured content:",
        "{",
        '  "result": "ok"',
        "}",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_call_with_nothing_to_show_builds_nothing(mode: str) -> None:
    out = w.Output()
    with connect_sync(build_server(), mode=mode, output=out) as srv:
        before = set(_instances)
        assert srv.call_tool_sync("quiet").content[0].text == "ok"
        assert set(_instances) == before
    assert out.outputs == ()


def test_a_chatty_server_is_coalesced(monkeypatch: pytest.MonkeyPatch) -> None:
    """500 progress notifications and 500 log lines while the main thread is busy: one update."""
    gate = Gate()
    out = w.Output()
    flushes: list[int] = []
    flush = CallDisplay.flush
    monkeypatch.setattr(CallDisplay, "flush", lambda self, record: (flushes.append(1), flush(self, record)))
    with connect_sync(build_server(gate), mode="legacy", output=out) as srv:
        # Without a kernel, posted work runs only while someone waits: nothing is shown until `result`.
        call = srv.call_tool_background("chatty", {"n": 500})
        assert gate.reached.wait(60)
        gate.opened.set()
        call.result(timeout=60)
    assert len(flushes) == 1
    lines = entry_text(out).splitlines()
    assert lines[:2] == ["Progress: done — item 500 (100%)", "tool 'chatty' on 'progress': done"]
    log = lines.index("Log (500 messages):")
    assert lines[log + 1] == f"  … {500 - LOG_KEEP} earlier messages not kept"
    assert lines[-1] == "  [info] work: line 500" and len(lines) == log + 2 + LOG_KEEP


# --------------------------------------------------------------------------- forms, privacy, routing


def test_answered_forms_end_as_text_after_their_answer_was_sent() -> None:
    out = w.Output()
    forms: list[Any] = []

    async def answer(card: Any) -> None:
        forms.append(card)
        card.fill(name="Ada Lovelace")
        card.accept()

    with connect_sync(build_server(), mode="legacy", output=out, handler=answer) as srv:
        srv.call_tool_sync("greet")  # warm up: shared Layouts and Styles are made once
        out.outputs = ()
        forms.clear()
        before = len(_instances)
        result = srv.call_tool_sync("greet")
        assert len(_instances) == before  # the form's models are closed too
    assert result.content[0].text == "hi Ada Lovelace"  # the answer reached the server first
    (form,) = forms
    assert form.comm is None
    lines = entry_text(out).splitlines()
    assert lines[0].startswith("Request from progress: accepted")
    # The server's log quotes the typed name: it is redacted from the call's log.
    assert lines[1:] == ["Log (1 message):", "  [info] work: hello [redacted], welcome"]


def test_logs_without_a_call_go_to_the_python_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_widgets")
    with connect_sync(build_server(), mode="legacy", name="late") as srv:
        srv.call_tool_sync("log_later")
        for _ in range(3000):  # the message comes 50 ms later, from the client thread
            if any("after the call" in r.getMessage() for r in caplog.records):
                break
            threading.Event().wait(0.01)
    (record,) = [r for r in caplog.records if "after the call" in r.getMessage()]
    assert record.levelno == logging.WARNING and record.getMessage() == "late: [warning] late: after the call"


def test_logs_of_a_call_nothing_shows_go_to_the_python_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcp_widgets")
    with connect_sync(build_server(), name="plain", log_level="info") as srv:  # no kernel, no output=
        srv.call_tool_sync("work", {"steps": 1})
    messages = [r.getMessage() for r in caplog.records if r.name == "mcp_widgets"]
    assert "plain: [info] work: starting <b>1</b> steps" in messages
    assert "plain: [warning] work: all done" in messages


def test_typed_values_are_redacted_from_logged_server_messages(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcp_widgets")

    async def answer(card: Any) -> None:
        card.fill(name="Grace Hopper")
        card.accept()

    with connect_sync(build_server(), mode="legacy", name="plain", handler=answer) as srv:
        assert srv.call_tool_sync("greet").content[0].text == "hi Grace Hopper"
    messages = [r.getMessage() for r in caplog.records if r.name == "mcp_widgets"]
    assert "plain: [info] work: hello [redacted], welcome" in messages
    assert not any("Grace" in m for m in messages)
