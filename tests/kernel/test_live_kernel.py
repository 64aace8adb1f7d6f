"""Live resources in a real kernel (#44): `async for update in srv.updates(uri)` in a cell, a watch view
redrawn in place (its contents by message, never in the widget's state), and a listing table shown in a cell
redrawn in place after a list change (`update_display_data`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .harness import KernelFrontend
from .test_client_kernel import RESET as CLIENT_RESET

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET

SETUP = """
import asyncio
import mcp_widgets as mw
from tests.servers.live import COUNTER, build_server
server = build_server()
srv = mw.connect_sync(server, mode="legacy")
"""


def test_async_for_in_a_cell_then_unsubscribed(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok", cell.evalue
    cell = frontend.run(
        "async def bump_later():\n"
        "    await asyncio.sleep(0.3)\n"
        "    await srv.call_tool('bump', {'times': 2})\n"
        "later = asyncio.ensure_future(bump_later())\n"
        "seen = []\n"
        "async for update in srv.updates(COUNTER):\n"
        "    seen.append(update.contents.contents[0].text)\n"
        "    if seen[-1] == 'count 2':\n"
        "        break\n"
        "await later\n"
        "print(seen[-1], server.state['requests'][0])",
        timeout=30,
    )
    assert cell.status == "ok", (cell.evalue, cell.traceback)
    assert cell.stdout == "count 2 ('subscribe', 'live://counter')\n", cell.stdout
    frontend.wait_until(
        lambda: "unsubscribe" in frontend.run("print(server.state['requests'][-1][0])").stdout,
        timeout=10,
        what="the unsubscribe after the loop was left",
    )
    frontend.run("srv.close()")


def test_a_sync_for_loop_in_a_cell_and_an_interrupt_ending_it(frontend: KernelFrontend) -> None:
    """`for update in srv.updates(uri)` in synchronous code: the updates of a call made on another thread
    arrive while the cell blocks; a loop waiting for an update that never comes ends at an interrupt,
    unsubscribed, and the kernel goes on."""
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok", cell.evalue
    cell = frontend.run(
        "import threading\n"
        "seen = []\n"
        "with srv.updates(COUNTER) as updates:\n"
        "    threading.Timer(0.3, srv.call_tool_sync, ('bump', {'times': 2})).start()\n"
        "    for update in updates:\n"
        "        seen.append(update.contents.contents[0].text)\n"
        "        if seen[-1] == 'count 2':\n"
        "            break\n"
        "print(seen[-1], server.state['requests'][-1])",
        timeout=30,
    )
    assert cell.status == "ok", (cell.evalue, cell.traceback)
    assert cell.stdout == "count 2 ('unsubscribe', 'live://counter')\n", cell.stdout

    msg_id = frontend.execute(
        "import time\n"
        "def tell():\n"
        "    while not server.state['subscribed']:\n"
        "        time.sleep(0.02)\n"
        "    print('subscribed', flush=True)\n"
        "threading.Thread(target=tell, daemon=True).start()\n"
        "for update in srv.updates(COUNTER):\n"
        "    pass"
    )
    frontend.wait_until(
        lambda: "subscribed" in frontend.cells[msg_id].stdout, timeout=15, what="the loop subscribed"
    )
    frontend.interrupt()
    cell = frontend.wait_cell(msg_id, timeout=30)
    assert (cell.status, cell.ename) == ("error", "KeyboardInterrupt")
    frontend.wait_until(
        lambda: "unsubscribe" in frontend.run("print(server.state['requests'][-1][0])").stdout,
        timeout=10,
        what="the unsubscribe after the interrupt",
    )
    cell = frontend.run("print(srv.call_tool_sync('bump').content[0].text)")
    assert cell.status == "ok", cell.evalue
    frontend.run("srv.close()")


def _parts(frontend: KernelFrontend, comm_id: str) -> list[list[dict[str, Any]]]:
    out = []
    for msg in frontend.iopub_log:
        data = msg["content"].get("data", {}) if msg["msg_type"] == "comm_msg" else {}
        if msg["content"].get("comm_id") == comm_id and data.get("method") == "custom":
            content = data.get("content", {})
            if "parts" in content:
                out.append(content["parts"])
    return out


def test_a_watch_view_redraws_in_place(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok", cell.evalue
    cell = frontend.run("watch = srv.watch(COUNTER)\nwatch")
    assert cell.status == "ok", cell.evalue
    view = frontend.wait_widget("AnyModel", where=lambda w: w.state.get("title") == "live://counter")
    frontend.wait_until(lambda: bool(_parts(frontend, view.comm_id)), timeout=10, what="the first draw")
    assert _parts(frontend, view.comm_id)[-1] == [
        {"text": "Resource: live://counter (text/plain)"},
        {"text": "count 0"},
    ]
    assert frontend.run("srv.call_tool_sync('bump', {'times': 3})").status == "ok"
    frontend.wait_until(
        lambda: "count 3" in json.dumps(_parts(frontend, view.comm_id)[-1]), timeout=10, what="a redraw"
    )
    frontend.wait_until(
        lambda: str(view.state.get("status", "")).startswith("updated "), timeout=10, what="the status line"
    )
    assert "count 3" not in json.dumps(view.state)  # the contents are no part of the widget's state
    shown = [r for r in cell.results if "text/plain" in r]
    assert shown and "count" not in shown[-1]["text/plain"].replace("counter", "")
    cell = frontend.run("watch.stop(); watch.wait(99, timeout=5); print(watch.status)")
    assert cell.status == "ok" and cell.stdout.endswith("· ended: stopped\n"), (cell.evalue, cell.stdout)
    frontend.wait_until(lambda: view.state.get("live") is False, timeout=10, what="the view ended")
    frontend.run("srv.close()")


def test_a_listing_shown_in_a_cell_redraws_after_a_list_change(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok", cell.evalue
    cell = frontend.run("srv.tools")
    assert cell.status == "ok" and "greet" not in cell.results[-1]["text/plain"], cell.evalue
    shown_id = next(
        m["content"]["transient"]["display_id"]
        for m in frontend.iopub_log
        if m["msg_type"] == "display_data" and m["parent_header"].get("msg_id") == cell.msg_id
    )
    assert frontend.run("srv.call_tool_sync('add_tool', {'name': 'greet'})").status == "ok"

    def redrawn() -> bool:
        return any(
            m["msg_type"] == "update_display_data"
            and m["content"]["transient"]["display_id"] == shown_id
            and "greet" in m["content"]["data"]["text/plain"]
            and ">greet</td>" in m["content"]["data"]["text/html"]
            for m in frontend.iopub_log
        )

    frontend.wait_until(redrawn, timeout=10, what="the table redrawn with the new tool")
    frontend.run("srv.close()")
