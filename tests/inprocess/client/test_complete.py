"""`srv.complete(...)`: a server's suggestions for a prompt argument or a template variable, against a real
in-process MCPServer that completes (tests/servers/completing.py), on both protocol generations; and one that
declares no completions."""

from __future__ import annotations

import asyncio
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from mcp_widgets import Completion
from mcp_widgets.client import ServerError, connect_sync
from tests.servers.completing import CITIES, TEMPLATE, build_server
from tests.servers.crossing import HUGE
from tests.servers.templated import build_server as without_completions

MODES = ["auto", "legacy"]
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
pytestmark = pytest.mark.timeout(60)
SERVERS = Path(__file__).resolve().parents[2] / "servers"


@pytest.mark.parametrize("mode", MODES)
def test_a_prompt_argument_completes_on_both_generations(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        assert srv.protocol_version == GENERATION[mode]
        got = asyncio.run(srv.complete(prompt="trip", argument="month", value="ju"))
        assert got == Completion(values=["June", "July"], total=2, has_more=False)
        assert srv.complete_sync(prompt="trip", argument="month", value="x").values == []


@pytest.mark.parametrize("mode", MODES)
def test_at_most_100_values_with_the_total_and_has_more(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        got = srv.complete_sync(prompt="trip", argument="city", value="o")
        assert len(got.values) == 100 and got.values == CITIES[:100]
        assert got.total == 122 and got.has_more and got.count_text == "100 of 122"


@pytest.mark.parametrize("mode", MODES)
def test_a_template_variable_completes_with_the_others_as_context(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        got = srv.complete_sync(template=TEMPLATE, argument="day", value="", context={"city": "Paris"})
        assert got.values == ["monday", "tuesday"]
        by_name = srv.complete_sync(template="Weather", argument="day", value="", context={"city": "Lima"})
        assert by_name.values == ["friday"]
        assert srv.complete_sync(template=TEMPLATE, argument="day", value="").values == []


def one_line(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    assert exc.__cause__ is None and exc.__suppress_context__
    return "".join(lines).strip()


def test_a_server_without_completions_is_refused_in_one_line() -> None:
    with connect_sync(without_completions(), mode="legacy") as srv:
        with pytest.raises(NotImplementedError) as caught:
            srv.complete_sync(template="demo://resource/dynamic/text/{resourceId}", argument="resourceId")
        message = str(caught.value)
        assert "'templated' does not offer completions" in message and "\n" not in message
        assert caught.value._render_traceback_()[0].endswith(message)  # type: ignore[attr-defined]
        assert not srv.wire.records(method="completion/complete")


def test_what_is_not_listed_is_refused_naming_what_is() -> None:
    with connect_sync(build_server()) as srv:
        with pytest.raises(KeyError) as caught:
            srv.complete_sync(prompt="Trip", argument="city", value="o")
        line = caught.value._render_traceback_()[0]  # type: ignore[attr-defined]
        assert "lists no prompt named 'Trip' (prompts: 'trip')" in line
        with pytest.raises(KeyError, match=r"no resource template 'weather://\{town\}' \(templates: 'wea"):
            srv.complete_sync(template="weather://{town}", argument="town")
        with pytest.raises(TypeError, match=r"prompt= .* or template="):
            srv.complete_sync(argument="city")
        assert not srv.wire.records(method="completion/complete")


def test_a_failing_server_is_one_line_without_the_value_sent() -> None:
    with connect_sync(build_server()) as srv:
        with pytest.raises(ServerError) as caught:
            srv.complete_sync(prompt="trip", argument="city", value="boom-Secret-77")
        message = str(caught.value)
        assert "completing 'city' of prompt 'trip' on 'completing' failed" in message
        assert "Secret" not in message and "-32602" in message and caught.value.code == -32602


def test_a_slow_server_times_out() -> None:
    with connect_sync(build_server(), timeout=0.3) as srv, pytest.raises(TimeoutError, match=r"in 0\.3 s"):
        srv.complete_sync(prompt="trip", argument="city", value="slow")


@pytest.mark.parametrize("mode", MODES)
def test_the_wire_keeps_names_and_counts_never_values(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        srv.complete_sync(template=TEMPLATE, argument="day", value="tue", context={"city": "Paris"})
        kept: list[dict[str, Any]] = srv.wire.records(method="completion/complete")
        text = json.dumps(kept)
        assert len(kept) == 2 and "tue" not in text and "Paris" not in text
        asked, answered = kept[0]["message"], kept[1]["message"]
        assert asked["params"]["argument"] == {"name": "day", "value": "[redacted: the value typed so far]"}
        assert asked["params"]["context"]["arguments"] == "[redacted: 1 argument: city]"
        assert answered["result"]["completion"]["values"] == "[redacted: 1 value]"


def test_an_answer_past_100_values_is_clipped_and_says_it_has_more() -> None:
    from mcp_widgets.core.completion import completion_of

    sent = {"completion": {"values": [f"v{n}" for n in range(150)] + [7], "total": "many"}}
    got = completion_of(sent)
    assert got.values == [f"v{n}" for n in range(100)] and got.total is None and got.has_more
    assert got.count_text == "100 and more" and completion_of({}).count_text == "none"


def test_complete_sync_on_the_client_thread_is_refused_not_deadlocked() -> None:
    from mcp_widgets import MCPWidgetsError
    from mcp_widgets.client.runtime import RUNTIME

    with connect_sync(build_server()) as srv:

        async def inside() -> Any:
            return srv.complete_sync(prompt="trip", argument="month", value="ju")

        with pytest.raises(MCPWidgetsError, match="would deadlock"):
            RUNTIME.submit(inside()).result(10)
        assert srv.complete_sync(prompt="trip", argument="month", value="ju").values == ["June", "July"]


def test_tab_in_code_asks_within_its_bound_and_never_from_the_client_thread() -> None:
    """`Completer.code_values` (what Tab in a code cell asks, `kernel.complete_in_code`): the values; none,
    within `CODE_TIMEOUT`, from a slow server or a failing one; none, at once, on the client thread (where
    waiting would deadlock) or for what the server does not list."""
    import time

    from mcp_widgets.client.completion import CODE_TIMEOUT
    from mcp_widgets.client.runtime import RUNTIME
    from mcp_widgets.core.completion_code import code_argument

    def target(code: str) -> Any:
        found = code_argument(code)
        assert found is not None
        return found

    with connect_sync(build_server()) as srv:
        completer = srv._completer
        assert completer.code_values(target('srv.get_prompt("trip", {"month": "Ju')) == ["June", "July"]
        day = target(f'srv.read_template({TEMPLATE!r}, {{"city": "Paris", "day": "t')
        assert completer.code_values(day) == ["tuesday"]
        started = time.monotonic()
        assert completer.code_values(target('srv.get_prompt("trip", {"city": "slow')) == []
        assert CODE_TIMEOUT <= time.monotonic() - started < CODE_TIMEOUT + 0.4
        assert completer.code_values(target('srv.get_prompt("trip", {"city": "boom')) == []
        assert completer.code_values(target('srv.get_prompt("Trip", {"city": "O')) == []

        async def inside() -> Any:
            return completer.code_values(target('srv.get_prompt("trip", {"month": "Ju'))

        started = time.monotonic()
        assert RUNTIME.submit(inside()).result(10) == [] and time.monotonic() - started < 0.2
    assert completer.code_values(target('srv.get_prompt("trip", {"month": "Ju')) == []  # closed
    with connect_sync(without_completions(), mode="legacy") as plain:
        code = 'srv.read_template("demo://resource/dynamic/text/{resourceId}", {"resourceId": "1'
        assert plain._completer.code_values(target(code)) == []
        assert not plain.wire.records(method="completion/complete")  # nothing asked


@pytest.mark.parametrize("order", ["python", "ts"])
def test_over_stdio_a_long_answer_nobody_waits_for_is_never_parsed(order: str) -> None:
    """A form's request a newer keystroke replaced is given up on (the SDK tells the server); its long answer,
    already on its way, reaches the session as a small stand-in, unparsed (megabytes parsed that way delayed
    the next keystroke's suggestions by seconds), whichever order the server writes its members in. The wire
    shows the stand-in; a long answer still awaited is parsed whole."""
    command = [sys.executable, str(SERVERS / "crossing.py"), *(["--ts"] if order == "ts" else [])]
    with connect_sync(command, timeout=60) as srv:
        ask = srv._completer.asker(prompt="trip")
        assert ask is not None
        abandoned = srv._connection.abandoned
        stale = ask("city", "huge", {})
        wait_for(lambda: len(srv.wire.records(method="completion/complete")) == 1)  # it went out
        stale.cancel()  # a newer keystroke
        wait_for(lambda: abandoned.dropped == 1)
        assert abandoned.dropped_chars > HUGE * 10
        assert ask("city", "Os", {}).result(30).values == ["Os 000000", "Os 000001", "Os 000002"]
        kept = srv.wire.records(method="completion/complete")
        answers = [r["message"] for r in kept if r["direction"] == "in"]
        assert answers[0]["result"]["_meta"]["mcp-widgets/unparsed"].startswith(
            "an answer to a request given up on, not parsed: "
        )
        cancelled = srv.wire.records(method="notifications/cancelled")
        assert [r["message"]["params"]["requestId"] for r in cancelled] == [answers[0]["id"]]
        # A long answer still awaited is whole; nothing else was dropped.
        got = srv.complete_sync(prompt="trip", argument="city", value="long")
        assert got.values[:1] == ["long 000000"] and got.total == HUGE
        assert abandoned.dropped == 1


def wait_for(done: Any, within: float = 30.0) -> None:
    """Until `done()` (polled; a bound so a failure ends the test, not a measure of anything)."""
    deadline = time.monotonic() + within
    while not done():
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.02)
