"""Fuzz a 2026-07-28 task that quotes the answer in its status messages, in every spelling the redaction
claims, ending completed, failed or cancelled, its answers well-formed or malformed (#33).

Against `tests/servers/tasks2026.py` in-process (its task-bearing answers rewritten by `tamper`). Asserted:
only our errors come out, no typed canary in the scope (the status lines shown while it ran among it), no
widget model left alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as w
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from mcp_widgets import MCPWidgetsError, connect_sync

from .checks import (
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

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(600)]

ECHOES = [
    "plain",
    "json",
    "upper",
    "html",
    "entities",
    "base64",
    "url-twice",
    "decomposed",
    "fullwidth",
    "zero-width",
]


def _malformed(where: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A `tamper` making one part of the task's answers malformed, quoting the status message in it."""

    def tamper(answer: dict[str, Any]) -> dict[str, Any]:
        said = answer.get("statusMessage")
        if where == "result" and answer.get("status") == "completed":
            return {**answer, "result": {"content": [{"type": "image", "data": said}]}}
        if where == "error" and answer.get("status") == "failed":
            return {**answer, "error": {"code": "not a number", "message": said, "data": {"said": said}}}
        return answer

    return tamper


@fuzz_settings(ci=10)
@given(
    canary=canary,
    number=number,
    echo=st.sampled_from(ECHOES),
    end=st.sampled_from(["completed", "failed", "cancelled"]),
    malformed=st.sampled_from(["none", "result", "error"]),
)
def test_task_status_messages_and_malformed_answers(
    canary: str, number: int, echo: str, end: str, malformed: str
) -> None:
    from tests.servers.tasks2026 import build_server

    server, ext = build_server()
    ext.tamper = _malformed(malformed)
    typist = Typist(canary, number)
    shown: list[str] = []

    def watch(widget: Any) -> None:
        if isinstance(widget, w.Label):
            shown.append(str(widget.value))
            widget.observe(lambda change: shown.append(str(change["new"])), "value")

    before = live_models()
    out = w.Output()
    error: BaseException | None = None
    w.Widget.on_widget_constructed(watch)
    try:
        with recording() as logs, connect_sync(server, name="fuzz-tasks", handler=typist, output=out) as srv:
            try:
                srv.call_tool_sync("ask_then_echo", {"end": end, "echo": echo, "linger": 0.05})
            except MCPWidgetsError as exc:
                error = exc
            reprs = [repr(srv), *(repr(card) for card in typist.cards)]
    finally:
        w.Widget._widget_construction_callback = None
    scope = scope_text(error=error, logs=logs, closing=closing_text(out), server="fuzz-tasks", reprs=reprs)
    scope["status lines"] = "\n".join(shown)
    out.close()
    event(f"{echo} {end} {malformed}: {type(error).__name__ if error else 'result'}")
    assert (error is None) == (end == "completed" and malformed != "result")
    assert found_leaks(scope, typist.values) == {}
    assert left_alive(before) == {}, "widget models were left alive"
