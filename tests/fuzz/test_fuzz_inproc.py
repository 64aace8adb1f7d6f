"""Fuzz the real client against a scripted hostile `MCPServer`, in-process, on both protocol generations.

Each example: random questions (schemas valid and not, hostile messages), progress and log lines (related to
the call or not), and an end (a result, a protocol error, a crash), each quoting what the person typed. The
person is a `Typist` typing a canary. Asserted: the call ends within `BOUND`, only our own errors come out,
no typed canary anywhere in the scope (errors and their chains, logs, closing text, history, reprs), no
widget model left alive, and the connection still answers a plain call afterwards.
"""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any

import ipywidgets as w
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from mcp_widgets import MCPWidgetsError, connect_sync
from tests.servers.hostile import build_server

from . import strategies as fs
from .checks import (
    BOUND,
    CONNECT_TIMEOUT,
    TIMEOUT,
    Typist,
    closing_text,
    found_leaks,
    fuzz_settings,
    left_alive,
    live_models,
    recording,
    scope_text,
)

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(600)]

OK = {"end": {"kind": "return", "text": "still here"}}

canary = st.builds(
    lambda word, tail: f"Cnry{word}{tail}",
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=6, max_size=10),
    st.sampled_from(["", '"q"', "&<x>", "é ü", "/?a=b", "\\n"]),
)
number = st.integers(10**8, 10**9)


def run_one(target: Any, mode: str, script: dict[str, Any], typist: Typist, description: str = "") -> None:
    """One call of `script` through the real client, and every assertion of the module docstring."""
    before = live_models()
    out = w.Output()
    name = f"fuzz-{mode}"
    error: BaseException | None = None
    with recording() as logs:
        # Connecting may take long on a loaded machine (a subprocess starting Python and the SDK took over 8 s
        # in CI); the requests after it get the fuzz's short timeout.
        srv = connect_sync(target, name=name, handler=typist, mode=mode, output=out, timeout=CONNECT_TIMEOUT)
        srv.timeout = TIMEOUT
        try:
            started = time.monotonic()
            call = srv.call_tool_background("play", {"script": script})
            try:
                call.result(timeout=BOUND)
            except MCPWidgetsError as exc:
                error = exc
            except TimeoutError as exc:
                raise AssertionError(f"the call did not end within {BOUND} s") from exc
            assert time.monotonic() - started < BOUND
            srv.timeout = BOUND  # usable, however busy the server still is with the first call's payloads
            again = srv.call_tool_sync("play", {"script": OK})  # the connection is still usable
            assert again.content[0].text == "still here"
            reprs = [repr(srv), repr(call), *(repr(card) for card in typist.cards)]
        finally:
            srv.close()
    scope = scope_text(error=error, logs=logs, closing=closing_text(out), server=name, reprs=reprs)
    out.close()
    event(f"typed: {bool(typist.values)}; ended: {type(error).__name__ if error else 'result'}")
    assert found_leaks(scope, typist.values) == {}
    assert left_alive(before) == {}, "widget models were left alive"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@fuzz_settings(ci=80)
@given(script=fs.script(), canary=canary, number=number, description=fs.hostile_text())
def test_a_hostile_server_in_process(
    mode: str, script: dict[str, Any], canary: str, number: int, description: str
) -> None:
    typist = Typist(canary, number)
    run_one(build_server("hostile", description or "x"), mode, script, typist)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@fuzz_settings(ci=40)
@given(
    script=fs.script(max_asks=1),
    canary=canary,
    number=number,
    delay=st.sampled_from([0.0, 0.01, 0.05]),
    cancel_after=st.sampled_from([0.0, 0.005, 0.02, 0.06]),
)
def test_a_call_cancelled_at_any_point(
    mode: str, script: dict[str, Any], canary: str, number: int, delay: float, cancel_after: float
) -> None:
    """The caller cancels before, while or after the person answers: the call still ends, leaving nothing."""
    typist = Typist(canary, number, delay=delay)
    before = live_models()
    out = w.Output()
    name = f"cancel-{mode}"
    error: BaseException | None = None
    with recording() as logs:
        srv = connect_sync(build_server(), name=name, handler=typist, mode=mode, output=out, timeout=TIMEOUT)
        try:
            call = srv.call_tool_background("play", {"script": script})
            time.sleep(cancel_after)
            call.cancel()
            try:
                call.result(timeout=BOUND)
            except (MCPWidgetsError, concurrent.futures.CancelledError) as exc:  # cancelled: as a future is
                error = exc
            except TimeoutError as exc:
                raise AssertionError(f"the cancelled call did not end within {BOUND} s") from exc
            # Still usable, within the bound every call has: this asks whether the connection works, not how
            # fast. The in-process server is busy a while with the cancelled call's payloads (up to 0.7 MB of
            # text: the follow-up took 0.5-2 s here, and over TIMEOUT three times under a full run's load).
            srv.timeout = BOUND
            assert srv.call_tool_sync("play", {"script": OK}).content[0].text == "still here"
            reprs = [repr(srv), repr(call), *(repr(card) for card in typist.cards)]
        finally:
            srv.close()
    scope = scope_text(error=error, logs=logs, closing=closing_text(out), server=name, reprs=reprs)
    out.close()
    assert found_leaks(scope, typist.values) == {}
    assert left_alive(before) == {}, "widget models were left alive"


def test_the_checks_see_an_echoed_canary() -> None:
    """Not vacuous: the server does get the canary, quotes it everywhere, and only the result keeps it."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    steps = [{"do": "progress", "text": "p", "echo": "upper"}, {"do": "log", "text": "l", "echo": "json"}]
    script = {
        "asks": [{"message": "?", "schema": schema}],
        "steps": steps,
        "end": {"kind": "return", "text": "r", "echo": "plain"},
    }
    typist = Typist("Cnry-sanity-1", 123456789)
    out = w.Output()
    with recording() as logs, connect_sync(build_server(), name="sanity", handler=typist, output=out) as srv:
        result = srv.call_tool_sync("play", {"script": script})
    assert result.content[0].text == "r Cnry-sanity-1"  # the tool's result is the server's business
    scope = scope_text(error=None, logs=logs, closing=closing_text(out), server="sanity", reprs=[repr(srv)])
    assert "[redacted]" in scope["closing text"]
    assert found_leaks(scope, typist.values) == {}
    assert found_leaks({"planted": "said CNRY-SANITY-1"}, typist.values) == {"planted": ["Cnry-sanity-1"]}
