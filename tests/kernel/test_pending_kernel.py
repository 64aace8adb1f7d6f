"""Task questions answered after the calling cell finished, and `mw.pending()`, in a real kernel.

On both generations: 2026-07-28 (tests/servers/tasks2026.py, in the kernel) and 2025-11-25 (the TypeScript
task server, over stdio). The newest ipykernel only: the list and the tasks are the same on every release
(the kernel-specific parts, displays and clicks, are covered by the other kernel tests).
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.interop.nodejs import HERE, SDK, node_or_skip

from .harness import ROOT, CellResult, KernelFrontend
from .test_client_kernel import VIEW, ever_children, ok, pending_form, shown_in

pytestmark = pytest.mark.kernel

SETUP = """
import sys
sys.path.insert(0, {root!r})
import mcp_widgets as mw
import mcp_widgets.client as mwc
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
{server}
srv = mw.connect_sync({target}, name="asker")
print("connected", srv.protocol_version)
"""
MODERN = "from tests.servers.tasks2026 import build_server\nserver, ext = build_server()"


def _connect(fe: KernelFrontend, *, target: str, server: str = "") -> None:
    cell = ok(fe.run(SETUP.format(root=str(ROOT), server=server, target=target), timeout=120))
    assert "connected" in cell.stdout


def _answer_from_another_cell(fe: KernelFrontend, tool: str, *, time_left: bool) -> str:
    calling = ok(fe.run(f"call = srv.call_tool_background({tool!r})"))  # the calling cell has finished
    form = pending_form(fe).seen()
    listing = ok(fe.run("p = mw.pending()\ndisplay(p)\nprint(repr(p))"))
    assert "1 open question" in listing.stdout and "asker · waited" in listing.stdout
    assert ("left" in listing.stdout) is time_left
    # The list shows the question's own card (a second view of the model in the calling cell).
    fe.wait_until(lambda: _inside(fe, listing, form.model.comm_id), timeout=30, what="the card in the list")
    assert shown_in(calling, form.model.comm_id, fe)
    form.type("Name *", "Ada").click("Accept")
    done = ok(fe.run("print(call.result(30).content[0].text)", timeout=60)).stdout
    fe.wait_until(
        lambda: _listed(fe)["title"] == "No open questions" and _listed(fe)["cards"] == [],
        timeout=10,
        what="the list emptied",
    )
    assert "no open questions" in ok(fe.run("print(repr(mw.pending()))")).stdout
    return done


def _inside(fe: KernelFrontend, cell: CellResult, widget_id: str) -> bool:
    """`widget_id` is in the widget `cell` displayed, at any depth."""
    views = [d.get(VIEW) for d in cell.results if d.get(VIEW)]
    todo = [v["model_id"] for v in views]
    seen: set[str] = set()
    while todo:
        comm_id = todo.pop()
        if comm_id == widget_id:
            return True
        if comm_id not in seen:
            seen.add(comm_id)
            todo += [
                k.replace("IPY_MODEL_", "") for k in ever_children(fe, comm_id) | _ever_cards(fe, comm_id)
            ]
    return False


def _ever_cards(fe: KernelFrontend, comm_id: str) -> set[str]:
    """Every card the pending list (one model) ever referenced."""
    cards: set[str] = set()
    for msg in list(fe.iopub_log):
        content = msg["content"]
        if content.get("comm_id") == comm_id:
            cards.update(c for c in content.get("data", {}).get("state", {}).get("cards", ()) if c)
    return cards


def _listed(fe: KernelFrontend) -> dict[str, object]:
    """The state of the pending list (one model): its title, rows and cards."""
    (listed,) = [w for w in fe.widgets.values() if w.state.get("_anywidget_id") == "mcp_widgets.PendingList"]
    return dict(listed.state)


def test_a_2026_task_question_is_answered_after_its_cell_finished() -> None:
    with KernelFrontend(sys.executable) as fe:
        _connect(fe, target="server", server=MODERN)
        out = _answer_from_another_cell(fe, "ask_names", time_left=True)
        assert json.loads(out)[0]["content"] == {"name": "Ada"}


def test_a_2025_task_question_is_answered_after_its_cell_finished() -> None:
    node = node_or_skip(SDK)
    with KernelFrontend(sys.executable) as fe:
        _connect(fe, target=repr([node, str(HERE / "tasks_server.mjs"), "stdio"]))
        out = _answer_from_another_cell(fe, "ask_required", time_left=False)
        assert json.loads(out) == {"action": "accept", "content": {"name": "Ada"}}


def test_an_interrupt_cancels_a_2026_task() -> None:
    with KernelFrontend(sys.executable) as fe:
        _connect(fe, target="server", server=MODERN)
        msg_id = fe.execute("srv.call_tool_sync('ask_names')")
        pending_form(fe).seen()
        fe.interrupt()
        cell = fe.wait_cell(msg_id, timeout=60)
        assert cell.status == "error" and cell.ename == "KeyboardInterrupt"
        states = ok(fe.run("print([(t.status, t.cancels) for t in ext.tasks.values()])")).stdout
        assert states.strip() == "[('cancelled', 1)]"
