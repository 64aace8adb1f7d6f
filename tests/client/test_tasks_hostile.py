"""Tasks taken on trust (#33): a server quoting the answer in its task's status messages, TTLs past any
clock, another task's id, malformed task answers. Against `tests/servers/tasks2026.py` (in-process, its
task-bearing answers rewritten by `tamper`), public API only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ipywidgets as w
import pytest

from mcp_widgets import ServerError, connect_sync, handlers
from tests.fuzz.checks import closing_text, recording
from tests.servers.tasks2026 import build_server
from tests.test_secrets import everything_in, leaks

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(60)]

CANARY = "Zoé-Canary-4711"


@pytest.fixture
def shown() -> Iterator[list[str]]:
    """Every value a Label (a call's status line among them) took while the test ran."""
    seen: list[str] = []

    def watch(widget: Any) -> None:
        if isinstance(widget, w.Label):
            seen.append(str(widget.value))
            widget.observe(lambda change: seen.append(str(change["new"])), "value")

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
