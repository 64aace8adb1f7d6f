"""A prompt form's suggestions in real kernels (each ipykernel release the suite has): the test acts as the
browser, types into a field, sees the server's values on the field's list model, picks one as Enter does
(a custom message), and once the form is closed no widget model holds what was typed or suggested, and
neither do the wire nor the history."""

from __future__ import annotations

import json

import pytest

from .harness import CellResult, KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

CANARY = "Zq7Canary"

SETUP = f"""
import json
from IPython.display import display
import mcp_types
from mcp.server.mcpserver import MCPServer
import mcp_widgets.client as mwc
staff = MCPServer("staff")

@staff.prompt(name="team", description="Write to a team.")
def team(department: str, note: str = "") -> str:
    return f"Hello {{department}}"

@staff.completion()
async def complete(ref, argument, context):
    options = ["Sales", "Support", "{CANARY}-Engineering"]
    found = [o for o in options if o.lower().startswith(argument.value.lower())]
    return mcp_types.Completion(values=found, total=len(found), has_more=False)

srv = mwc.connect_sync(staff)
print("connected", srv.complete_sync(prompt="team", argument="department", value="S").values)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def test_typing_shows_the_servers_values_and_enter_picks_one(frontend: KernelFrontend) -> None:
    assert "connected ['Sales', 'Support']" in ok(frontend.run(SETUP, timeout=180)).stdout
    ok(frontend.run('form = srv.prompt_form("team")\ndisplay(form)'))
    field = frontend.wait_widget("TextModel", where=lambda w: w.state.get("description") == "Department *")
    suggest = frontend.wait_widget(
        "AnyModel", where=lambda w: "SuggestList" in str(w.state.get("_anywidget_id", "")), timeout=30
    )
    frontend.update(field, {"value": "s"})
    frontend.wait_until(
        lambda: suggest.state.get("values") == ["Sales", "Support"], timeout=30, what="the suggestions"
    )
    assert suggest.state.get("count") == "2 suggestions"
    frontend.comm_msg(suggest, {"method": "custom", "content": {"pick": 1}})
    frontend.wait_until(lambda: field.state.get("value") == "Support", timeout=30, what="the pick")
    frontend.wait_until(lambda: suggest.state.get("values") == [], timeout=30, what="the list closed")
    frontend.update(field, {"value": CANARY[:3]})
    frontend.wait_until(lambda: bool(suggest.state.get("values")), timeout=30, what="the canary suggested")
    printed = ok(
        frontend.run(
            "form.close()\n"
            "print(json.dumps([srv.wire.records(), srv.history.records(), repr(form)], default=str))"
        )
    ).stdout
    assert CANARY not in printed and "completion/complete" in printed
    frontend.settle(0.5)
    kept = json.dumps([w.state for w in frontend.widgets.values()], default=str)
    assert CANARY not in kept
