"""Nothing a person types is kept: a canary typed into every field type of a real form, through the client.

The form is asked by the demo server's `echo_elicit` tool (in-process, both protocol generations) and
answered by a handler acting through each control's front-end path. The canary must then be absent from the
history (store and panel), the widget state a notebook would save, our logs at DEBUG, and the reprs of
server, call and form; and present in the tool's result (the server's business), or the test proves nothing.
"""

from __future__ import annotations

import json
import logging
import traceback
from typing import Any

import ipywidgets as w
import mcp_types
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_widgets import handlers
from mcp_widgets.client import connect_sync
from mcp_widgets.core.exceptions import ServerError
from mcp_widgets.core.history import default_history
from mcp_widgets.demo import create_server
from mcp_widgets.demo._asking import Asker, converse
from mcp_widgets.widgets import HistoryPanel
from tests.servers.demo import parse

TEXT = "canary-text-7f3a9"
EMAIL = "canary-7f3a9@example.org"
URI = "https://canary-7f3a9.example.org/x"
DATE = "2031-07-19"
DATETIME = "2032-03-04T05:06:07"
INTEGER = 73916421
NUMBER = 8273.5519
MULTI = "m-canary-7f3a9"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "title": "Text"},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "uri": {"type": "string", "format": "uri", "title": "Link"},
        "date": {"type": "string", "format": "date", "title": "Day"},
        "when": {"type": "string", "format": "date-time", "title": "When"},
        "count": {"type": "integer", "title": "Count"},
        "ratio": {"type": "number", "title": "Ratio"},
        "agree": {"type": "boolean", "title": "Agree"},
        "pick": {
            "type": "string",
            "title": "Pick",
            "oneOf": [{"const": "alpha", "title": "Alpha"}, {"const": "beta", "title": "Beta"}],
        },
        "many": {
            "type": "array",
            "title": "Many",
            "items": {"type": "string", "enum": ["plain", MULTI]},
        },
    },
    "required": ["text", "count"],
}

# What the person types, as text a leak would show: every one must be absent from all we keep.
TYPED = (TEXT, EMAIL, "canary-7f3a9.example.org", DATE, "2032-03-04", str(INTEGER), str(NUMBER), MULTI)


def _leaks(text: str) -> list[str]:
    return [canary for canary in TYPED if canary in text]


class Typist:
    """A handler typing a canary into every field (front-end path), after first typing a wrong one."""

    __name__ = "typist"

    def __init__(self) -> None:
        self.forms: list[Any] = []
        self.errors: list[str] = []

    async def __call__(self, form: Any) -> None:
        self.forms.append(form)
        form.fill(text=TEXT, email="not an email " + TEXT, count=INTEGER)
        self.errors.append(json.dumps(form.errors))  # the rule broken, never the value
        form.fill(
            email=EMAIL,
            uri=URI,
            date=DATE,
            when=DATETIME,
            ratio=NUMBER,
            agree=True,
            pick="beta",
            many=[MULTI],
        )
        assert form.accept(), form.errors


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_typed_canary_is_kept_nowhere(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # root: every logger, the SDK's too
    caplog.set_level(logging.DEBUG, logger="mcp_widgets")
    name = f"privacy-{mode}"
    typist = Typist()
    srv = connect_sync(create_server("privacy-demo"), name=name, handler=typist, mode=mode)
    try:
        call = srv.call_tool_background("echo_elicit", {"requested_schema": SCHEMA, "message": "All kinds"})
        result = call.result()
        reprs = [repr(srv), repr(call), *(repr(form) for form in typist.forms)]
    finally:
        srv.close()

    # Sanity: the canaries did reach the server (else the absences below would prove nothing).
    answer = parse(result)
    assert answer["action"] == "accept"
    content = answer["content"]
    assert content["text"] == TEXT and content["email"] == EMAIL and content["uri"] == URI
    assert content["count"] == INTEGER and content["ratio"] == NUMBER and content["many"] == [MULTI]
    assert content["date"] == DATE and content["when"].startswith("2032-03-04")
    assert not _leaks(json.dumps(SCHEMA).replace(MULTI, "")), "a canary is server text: it proves nothing"

    # The history: the store's records, and what a panel shows and exports.
    records = default_history().records(name)
    assert records and records[0]["outcome"]["action"] == "accept"
    assert [f["name"] for f in records[0]["fields"]] == list(SCHEMA["properties"])
    assert _leaks(json.dumps(default_history().records())) == []
    panel = HistoryPanel(server=name)
    try:
        assert _leaks(json.dumps(panel.records())) == []
        assert _leaks(json.dumps(panel.rows)) == []
        # The widget state a notebook saves ("Save Widget State Automatically"): every live model.
        state = json.dumps(w.Widget.get_manager_state(drop_defaults=False), default=str)
        assert _leaks(state) == []
    finally:
        panel.close()

    # Error messages shown while filling, and reprs.
    assert _leaks(" ".join(typist.errors)) == []
    assert typist.errors and "email" in typist.errors[0]
    assert _leaks(" ".join(reprs)) == []

    # Logs: ours never hold a value. (The SDK's own DEBUG logs of the JSON-RPC traffic are not ours to
    # police; any record from them carrying the reply is reported below, not failed.)
    ours = [r for r in caplog.records if r.name.startswith("mcp_widgets")]
    assert all(_leaks(r.getMessage() + (r.exc_text or "")) == [] for r in ours)
    foreign = [
        r.name for r in caplog.records if not r.name.startswith("mcp_widgets") and _leaks(r.getMessage())
    ]
    if foreign:
        print(f"SDK loggers that logged the reply at DEBUG: {sorted(set(foreign))}")


CODE = "canary-code-5e1d"
CODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "pin": {"type": "integer"}},
    "required": ["code", "pin"],
}
PIN = 48151623


def _rejecting_server() -> MCPServer:
    """A server whose tool refuses the answer with a protocol error quoting it (as validation errors do)."""
    server = MCPServer("rejecting")

    @server.tool(description="Asks for a code, then refuses it, quoting it.")
    async def strict(ctx: Context[Any, Any]) -> Any:
        async def body(ask: Asker) -> Any:
            answer = await ask.form("code", "Code?", CODE_SCHEMA)
            content = answer.content or {}
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"invalid code: input_value={content.get('code')!r}, pin {content.get('pin')}",
                data={"input": content, "errors": [{"input": content.get("code"), "loc": ["code"]}]},
            )

        return await converse(ctx, body)

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_server_quoting_the_answer_in_its_error_is_redacted(mode: str) -> None:
    script = handlers.scripted([{"code": CODE, "pin": PIN}])
    srv = connect_sync(_rejecting_server(), name=f"rejecting-{mode}", handler=script, mode=mode)
    with srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("strict")
    error = info.value
    shown = "".join(traceback.format_exception(error)) + repr(error.data)
    assert CODE not in shown and str(PIN) not in shown
    assert "[redacted]" in str(error) and "invalid code" in str(error)  # the rest of the message is kept
    assert error.data["input"] == {"code": "[redacted]", "pin": "[redacted]"}
    assert error.__cause__ is None and error.__suppress_context__
