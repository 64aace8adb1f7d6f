"""Fuzz event orders the SDK's servers cannot produce: stdio, tests/servers/rawrpc.py (2025-11-25).

Duplicate request ids, a question withdrawn before or after its answer, completions after the call ended,
URL-mode questions with hostile URLs and their completions (before, after, for ids nobody asked), responses
nobody asked for, lines that are not JSON, floods of questions, the server exiting at any point.
Asserted, as in test_fuzz_inproc: the call ends within `BOUND`, only our errors come out, no typed canary in
the scope, no widget model left alive; and the connection either still answers or says it was lost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import ipywidgets as w
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from mcp_widgets import ConnectionClosedError, MCPWidgetsError, connect_sync

from . import strategies as fs
from .checks import (
    BOUND,
    CONNECT_TIMEOUT,
    Typist,
    closing_text,
    found_leaks,
    fuzz_settings,
    left_alive,
    live_models,
    recording,
    scope_text,
)
from .test_fuzz_inproc import canary, number

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(900)]

RAW = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "rawrpc.py")]


@fuzz_settings(ci=12)
@given(
    ops=fs.raw_script(),
    canary=canary,
    number=number,
    delay=st.sampled_from([0.0, 0.0, 0.05]),
    url_action=st.sampled_from(["accept", "decline", "leave"]),
)
def test_raw_event_orders_over_stdio(
    ops: list[dict[str, Any]], canary: str, number: int, delay: float, url_action: str
) -> None:
    typist = Typist(canary, number, delay=delay, url_action=url_action)
    before = live_models()
    out = w.Output()
    error: BaseException | None = None
    with recording() as logs:
        # The server's start gets CONNECT_TIMEOUT (over 10 s under CI's load, 2026-12-07); its requests 10 s.
        srv = connect_sync(
            RAW, name="raw", handler=typist, mode="legacy", output=out, timeout=CONNECT_TIMEOUT
        )
        srv.timeout = 10
        try:
            started = time.monotonic()
            call = srv.call_tool_background("play", {"ops": ops})
            try:
                call.result(timeout=BOUND)
            except MCPWidgetsError as exc:
                error = exc
            except TimeoutError as exc:
                raise AssertionError(f"the call did not end within {BOUND} s") from exc
            assert time.monotonic() - started < BOUND
            try:  # usable, or it says it is gone
                again = srv.call_tool_sync("play", {"ops": [{"op": "result", "text": "still here"}]})
                assert again.content[0].text == "still here"
                event("usable after")
            except ConnectionClosedError:
                assert any(op["op"] == "exit" for op in ops), "the connection was lost with the server alive"
                event("lost after (the server exited)")
            reprs = [repr(srv), repr(call), *(repr(card) for card in typist.cards)]
        finally:
            srv.close()
    scope = scope_text(error=error, logs=logs, closing=closing_text(out), server="raw", reprs=reprs)
    out.close()
    event(f"typed: {bool(typist.values)}; ended: {type(error).__name__ if error else 'result'}")
    assert found_leaks(scope, typist.values) == {}
    assert left_alive(before) == {}, "widget models were left alive"


URLS = [  # (url, may be consented to, the card warns)
    ("https://example.com/consent", True, False),
    ("http://example.com/not-tls", False, False),
    ("javascript:alert(1)", False, False),
    ("data:text/html,<b>x</b>", False, False),
    ("https://user:pass@example.com/", True, True),  # opens on example.com: said so
    ("https://example.com/\u202egnp.exe", True, True),  # the override is shown as ⟨U+202E⟩
    ("https://xn--80ak6aa92e.com/", True, True),  # Punycode: what it reads as
]


@pytest.mark.parametrize("url_action", ["accept", "decline", "leave"])
def test_hostile_urls_over_stdio_end_with_the_call_and_leave_nothing(url_action: str) -> None:
    """URL-mode questions, one per URL, a completion for the first and for an id nobody asked, then the
    result: a refused URL cannot be consented to, a misleading one is warned about, every card ends by the
    call's end, no model stays."""
    from mcp_widgets.core.history import default_history

    ops: list[dict[str, Any]] = [
        {"op": "elicit_url", "id": i, "message": f"Open {i}", "url": url, "elicitationId": f"e{i}"}
        for i, (url, _, _) in enumerate(URLS)
    ]
    ops += [{"op": "await", "id": i, "timeout": 0.5} for i in range(len(URLS))]
    ops += [{"op": "complete", "elicitationId": "e0"}, {"op": "complete", "elicitationId": "nobody"}]
    ops += [{"op": "result", "text": "done"}]
    typist = Typist("unused", 0, url_action=url_action)
    before = live_models()
    name = f"hostile-urls-{url_action}"
    out = w.Output()
    with connect_sync(RAW, name=name, handler=typist, mode="legacy", output=out) as srv:
        assert srv.call_tool_sync("play", {"ops": ops}).content[0].text == "done"
    out.close()
    entries = {e.message: e for e in default_history().entries(server=name)}
    assert sorted(entries) == sorted(f"Open {i}" for i in range(len(URLS)))
    cards = {card.message: card for card in typist.cards}  # a refused URL is declined before any handler
    for i, (_, allowed, warned) in enumerate(URLS):
        outcome = entries[f"Open {i}"].outcome
        assert outcome is not None, f"URL {i} was left open"
        if not allowed:
            assert f"Open {i}" not in cards
            assert (outcome.action.value, outcome.reason.value) == ("decline", "refused-url"), f"URL {i}"
            continue
        assert bool(cards[f"Open {i}"].check.warnings) == warned, f"URL {i}"
        accepted = outcome.action.value == "accept"
        assert accepted == (url_action == "accept"), f"URL {i}: {outcome.describe()}"
    assert left_alive(before) == {}, "widget models were left alive"
