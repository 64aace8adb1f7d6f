"""Completions in a real kernel against a server that quotes what they send every way
(tests/servers/hostile_completing.py: its log at error level, a bare print on stdout, a malformed
notification, extra result fields, a duplicate reply, a tool named after the value, a question): the test
types into a prompt form's fields as the browser does, and nothing typed reaches any cell's stdout or
stderr, a widget model, the wire or the history; the masked `pin` is not sent with the note's completion."""

from __future__ import annotations

import json

import pytest

from tests.servers import SERVERS

from .harness import CellResult, KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

NOTE = "Zq7note"
PIN = "Secret-PIN-4815"

SETUP = f"""
import json, sys
from IPython.display import display
import mcp_widgets.client as mwc
srv = mwc.connect_sync([sys.executable, {str(SERVERS / "hostile_completing.py")!r}], name="hostile",
                       log_level="debug")
print("connected", srv.complete_sync(prompt="login", argument="note", value="quiet").values)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def described(start: str) -> object:
    return lambda w: str(w.state.get("description")).startswith(start)


def test_nothing_typed_reaches_a_cell_a_model_the_wire_or_the_history(frontend: KernelFrontend) -> None:
    assert "connected []" in ok(frontend.run(SETUP, timeout=180)).stdout
    ok(frontend.run('form = srv.prompt_form("login")\ndisplay(form)'))
    user = frontend.wait_widget("TextModel", where=described("User"))
    pin = frontend.wait_widget("PasswordModel", where=described("Pin"))
    note = frontend.wait_widget("TextModel", where=described("Note"))
    suggest = frontend.wait_widget(
        "AnyModel", where=lambda w: "SuggestList" in str(w.state.get("_anywidget_id", "")), timeout=30
    )
    lists = [w for w in frontend.widgets.values() if "SuggestList" in str(w.state.get("_anywidget_id", ""))]
    assert len(lists) == 2 and suggest in lists  # user and note: the masked pin has none
    shown = lambda: [v for w in lists for v in w.state.get("values") or ()]  # noqa: E731

    def closed() -> None:
        for w in lists:
            frontend.comm_msg(w, {"method": "custom", "content": {"closed": True}})
        frontend.wait_until(lambda: shown() == [], timeout=30, what="the lists closed")

    frontend.update(user, {"value": "ann"})
    frontend.wait_until(lambda: shown() == ["one", "two"], timeout=30, what="the user's values")
    closed()
    frontend.update(pin, {"value": PIN})
    for value in (f"{NOTE}-a", f"list-{NOTE}", f"ask-{NOTE}"):
        frontend.update(note, {"value": value})
        frontend.wait_until(lambda: shown() == ["one", "two"], timeout=30, what="the values")
        closed()
    frontend.update(note, {"value": "quiet"})  # its values are the context's names
    frontend.wait_until(lambda: shown() != [], timeout=30, what="the names")
    assert shown() == ["user"]  # the masked pin was not sent
    printed = ok(
        frontend.run(
            "await srv.list_tools()\n"
            "print(json.dumps([srv.wire.records(), srv.history.records(), [t.name for t in srv.tools]],"
            " default=str))\nform.close()"
        )
    ).stdout
    sent = printed.count('"method": "completion/complete"')
    assert "[redacted]" in printed and "greet_" in printed, (sent, printed[-3000:])
    frontend.settle(0.5)
    everything = frontend.printed() + json.dumps([w.state for w in frontend.widgets.values()], default=str)
    assert NOTE.lower() not in everything.lower() and PIN not in everything
