"""Our displays skip ipykernel's stream flush only when nothing waits to be sent (mcp_widgets.kernel.flushes):
text printed before one of them still shows before it, on every ipykernel release and in Colab's runtime."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.colab]

CELL = """
import sys, threading
from mcp_widgets.kernel import views
print("printed before")
sys.stderr.write("written before\\n")
views.display_as({"text/plain": "shown"}, "flush-probe")
print("printed between")
views.display_as({"text/plain": "updated"}, "flush-probe", update=True)
views.display_as({"text/plain": "quiet"}, "flush-quiet")  # nothing written since: no flush needed
t = threading.Thread(target=lambda: print("from a thread"))
t.start(); t.join()
views.display_as({"text/plain": "after the thread"}, "flush-thread")
"""


def _order(fe: KernelFrontend, msg_id: str) -> list[str]:
    seen: list[str] = []
    for msg in fe.iopub_log:
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        content: dict[str, Any] = msg["content"]
        if msg["msg_type"] == "stream":
            seen += [line for line in content["text"].splitlines() if line]
        elif msg["msg_type"] in ("display_data", "update_display_data"):
            seen.append(content["data"].get("text/plain", "?"))
    return seen


def test_what_was_printed_before_a_display_shows_before_it(frontend: KernelFrontend) -> None:
    msg_id = frontend.execute(CELL)
    cell = frontend.wait_cell(msg_id, timeout=60)
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.traceback)
    order = _order(frontend, msg_id)
    # stdout and stderr are separate streams: each keeps its place against the displays.
    assert order.index("printed before") < order.index("shown"), order
    assert order.index("written before") < order.index("shown"), order
    assert order.index("shown") < order.index("printed between") < order.index("updated"), order
    assert order.index("updated") < order.index("quiet"), order
    assert order.index("from a thread") < order.index("after the thread"), order
