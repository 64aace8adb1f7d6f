"""A config's `${input:id}` values asked in a real kernel: the inputs card is one model, the person types
a password into it (the page sends it as a message) and the connect goes on with it; what a notebook saved
with widget state would keep (every open model's state and every output) never holds it, while the card is
open or after."""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import KernelFrontend, WidgetModel
from .test_client_kernel import ok

pytestmark = pytest.mark.kernel

INPUTS_CARD_ID = "mcp_widgets.InputsCard"


@pytest.fixture
def frontend() -> Iterator[KernelFrontend]:
    with KernelFrontend(sys.executable) as fe:
        yield fe


def saved(fe: KernelFrontend) -> str:
    """What a notebook saved now keeps: every open model's state and every output."""
    outputs = [
        m["content"]
        for m in fe.iopub_log
        if m["msg_type"] in ("display_data", "update_display_data", "execute_result", "stream", "error")
    ]
    return json.dumps([w.state for w in fe.widgets.values()]) + json.dumps(outputs)


def test_a_password_input_typed_into_the_card_reaches_the_server_and_no_saved_state(
    frontend: KernelFrontend, tmp_path: Path
) -> None:
    canary = "cnry" + secrets.token_hex(8)
    config = tmp_path / ".vscode" / "mcp.json"
    config.parent.mkdir()
    demo = {"type": "stdio", "command": sys.executable, "args": ["-m", "mcp_widgets.demo"]}
    inputs = [{"type": "promptString", "id": "demo-token", "description": "Demo token", "password": True}]
    vault = {**demo, "env": {"DEMO_TOKEN": "${input:demo-token}"}}
    config.write_text(json.dumps({"inputs": inputs, "servers": {"vault": vault}}))
    msg_id = frontend.execute(
        "import mcp_widgets as mw\n"
        f"srv = await mw.connect('vault', config={str(config)!r})\n"
        "print(srv.name, 'ready')"
    )

    def asking(w: WidgetModel) -> bool:
        return w.state.get("_anywidget_id") == INPUTS_CARD_ID and not w.state.get("closing_line")

    card = frontend.wait_widget("AnyModel", where=asking, timeout=90)
    (row,) = card.state["card"]["rows"]
    assert (row["widget"], row["title"], row["value"]) == ("password", "Demo token", "")
    # The page sends what is typed, then the press, as messages on the card's one comm.
    frontend.send_custom(card, {"edit": "demo-token", "value": canary, "view": "test"})
    frontend.settle(0.3)
    assert canary not in saved(frontend)  # typed, the card still open
    frontend.send_custom(card, {"press": "accept"})
    cell = ok(frontend.wait_cell(msg_id, timeout=90))
    assert cell.stdout == "vault ready\n"
    frontend.wait_until(
        lambda: bool(card.state.get("closing_line")), timeout=30, what="the card's closing line"
    )
    assert card.state["closing_line"].endswith("· 1 value given") and card.state["card"] == {"kind": "inputs"}
    assert canary not in saved(frontend)
    # The kernel keeps it in its memory only (the next connect asks nothing).
    check = ok(
        frontend.run(
            "from mcp_widgets.client.configs import lookup\n"
            f"print(any(v == {canary!r} for v in lookup._INPUTS.values()))\nsrv.close()",
            timeout=60,
        )
    )
    assert check.stdout == "True\n"
    assert canary not in saved(frontend)
