"""Small edges of the public API (#33 item 10), against a real in-process server."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sys
import time
from collections.abc import Generator
from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets import connect_sync
from mcp_widgets.core.outcome import Action, Outcome, Reason
from tests.servers.tasks2026 import build_server

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(60)]


def test_close_and_reconnect_can_be_awaited_or_called() -> None:
    server, _ = build_server()
    srv = connect_sync(server, name="edges-await")

    async def main() -> None:
        await srv.reconnect()
        assert srv.connected
        await srv.close()

    asyncio.run(main())
    assert not srv.connected
    srv.reconnect()  # plainly, as before
    assert srv.connected
    assert srv.close() is not None and not srv.connected


def test_log_level_takes_any_letter_case() -> None:
    server, _ = build_server()
    with connect_sync(server, name="edges-level", log_level="INFO") as srv:
        assert srv.log_level == "info"


@pytest.mark.parametrize(
    ("option", "error"),
    [
        ({"token_store": "files"}, ValueError),
        ({"scopes": 42}, TypeError),
        ({"scopes": ["files read"]}, ValueError),
        ({"token_store": object()}, TypeError),
    ],
)
def test_sign_in_options_are_checked_on_every_transport(option: dict[str, Any], error: type) -> None:
    # Refused before connecting, in-process as over HTTP: a typo does not pass where no sign-in happens.
    server, _ = build_server()
    with pytest.raises(error):
        connect_sync(server, name="edges-options", **option)
    with pytest.raises(error):
        mw.connect("http://127.0.0.1:9/mcp", **option)


def test_a_forgotten_await_on_connect_says_so() -> None:
    server, _ = build_server()
    pending = mw.connect(server, name="edges-forgot")
    with pytest.raises(AttributeError, match="did you forget await"):
        pending.call_tool_sync("work")  # type: ignore[attr-defined]


def test_an_outcome_says_who_withdrew_a_request_once() -> None:
    closed = Outcome(Action.CANCEL, Reason.WITHDRAWN, note="the connection was closed")
    assert closed.describe() == "cancelled: the connection was closed"  # not blamed on the server
    withdrawn = Outcome(Action.CANCEL, Reason.WITHDRAWN, note="the server withdrew the request")
    assert withdrawn.describe() == "cancelled: the server withdrew the request"
    assert Outcome(Action.CANCEL, Reason.TIMEOUT, note="nobody answered in time").describe() == (
        "cancelled: nobody answered in time"
    )


class _Never:
    """What a handler may await (the client drives handlers on futures, not an event loop): never done."""

    def __await__(self) -> Generator[Any, None, None]:
        yield concurrent.futures.Future()


def test_a_name_in_use_is_refused_and_a_default_name_kept_apart() -> None:
    # Each server's pending list follows its own connection: only `a` asks, `b.pending` stays empty.
    server_a, _ = build_server()
    server_b, _ = build_server()

    async def hold(card: Any) -> None:
        await _Never()  # the person has not answered yet

    with connect_sync(server_a, name="same", handler=hold) as a:
        with pytest.raises(ValueError, match="already connected"):
            connect_sync(server_b, name="same")
        with connect_sync(server_b, name="other") as b:
            call = a.call_tool_background("ask_names")
            end = time.monotonic() + 10
            while not a.pending.items and time.monotonic() < end:
                with contextlib.suppress(TimeoutError):
                    call.result(0.05)  # waiting runs what the client posts (plain python)
            assert len(a.pending.items) == 1 and b.pending.items == []
            call.cancel()
    with connect_sync(build_server()[0]) as one, connect_sync(build_server()[0]) as two:
        assert two.name == f"{one.name} (2)"  # a default name: kept apart, visibly
    with connect_sync(server_b, name="same") as again:  # free once closed
        assert again.name == "same"


def test_a_connect_that_failed_frees_its_name_at_once() -> None:
    # The person retries `connect(..., name="lab")` right after it failed: there is no server to close.
    with pytest.raises(mw.ConnectError):
        connect_sync([sys.executable, "-c", "import time; time.sleep(30)"], name="edges-retry", timeout=0.5)
    with connect_sync(build_server()[0], name="edges-retry") as again:
        assert again.name == "edges-retry"


def test_calling_a_tool_the_server_dropped_says_so_on_the_call_not_in_a_warning(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """After `reconnect()` to a server that no longer lists a tool, calling it says so in the call's line;
    the SDK's "not listed by server, cannot validate" warning is neither on stderr nor in the log."""
    import ipywidgets as w
    import mcp_types as t
    from mcp.server import Server as LowLevelServer

    listed = ["keep", "drop"]

    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=[t.Tool(name=n, input_schema={"type": "object"}) for n in listed])

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        return t.CallToolResult(content=[t.TextContent(text=f"ran {params.name}")])

    server = LowLevelServer("changing", on_list_tools=list_tools, on_call_tool=call_tool)
    out = w.Output()
    srv = connect_sync(server, name="edges-dropped", output=out)
    try:
        listed.remove("drop")
        srv.reconnect()
        assert [tool.name for tool in srv.tools] == ["keep"]
        caplog.clear()
        assert srv.call_tool_sync("drop").content[0].text == "ran drop"  # the server still ran it
        shown = " ".join(str(entry.get("data", entry)) for entry in out.outputs)
        assert "does not list the tool 'drop'" in shown
        assert "cannot validate" not in shown
        assert not [r for r in caplog.records if "cannot validate" in r.getMessage()]
        assert "cannot validate" not in capfd.readouterr().err
        out.outputs = ()
        srv.call_tool_sync("keep")  # a listed tool: no such line
        assert "does not list" not in " ".join(str(entry) for entry in out.outputs)
    finally:
        srv.close()
