"""mcp_widgets.kernel.comms inside real kernels: a front end's late message to a model we closed leaves no
"No such comm" line (JupyterLab shows it in its log console, where it reads as a fault); one to a model
we did not close still does."""

from __future__ import annotations

import pytest

from .harness import CellResult, KernelFrontend

pytestmark = [pytest.mark.kernel]

SETUP = """
import ipywidgets as w
from mcp_widgets.widgets._kit import Kit
ours = Kit().make(w.Label, value="ours")
theirs = w.Label(value="theirs")
print(ours.model_id, theirs.model_id)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-2000:])
    return cell


def no_such_comm(fe: KernelFrontend, msg_id: str) -> list[str]:
    """The "No such comm" lines the kernel wrote while handling the message `msg_id`."""
    return [
        m["content"]["text"]
        for m in fe.iopub_log
        if m["msg_type"] == "stream"
        and m["parent_header"].get("msg_id") == msg_id
        and "No such comm" in m["content"]["text"]
    ]


def test_a_late_message_to_a_model_we_closed_logs_nothing(frontend: KernelFrontend) -> None:
    ours, theirs = ok(frontend.run(SETUP)).stdout.split()
    ok(frontend.run("ours.close(); theirs.close()"))
    # What a browser sends as a view goes away or a field loses focus, just after the kernel closed it.
    late = {"method": "update", "state": {"value": "typed"}, "buffer_paths": []}
    to_ours = frontend.comm_msg(ours, late)
    to_theirs = frontend.comm_msg(theirs, late)
    logged = lambda: bool(no_such_comm(frontend, to_theirs))  # noqa: E731
    frontend.wait_until(logged, timeout=20, what="the control's line")
    frontend.settle(0.5)
    assert no_such_comm(frontend, to_ours) == []
    assert theirs in no_such_comm(frontend, to_theirs)[0]
