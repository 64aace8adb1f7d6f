"""The app bridge in real kernels: the test is the browser's relay, so every message the kernel sends an app
and every answer it gives is seen as a front end sees it (custom messages of the app's widget)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .harness import CellResult, KernelFrontend, WidgetModel

# A case that passed and left its kernel clean hands it to the next (see tests/kernel/conftest.py): the apps'
# cases took the most CPU of the kernel suite (a fresh kernel importing the client and two servers each time).
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]

RESET = """
from mcp_widgets.client.server import Server as _Server
from mcp_widgets.core.history import default_history as _history
from mcp_widgets.core.requests import pending_requests as _pending
for _value in list(globals().values()):
    if isinstance(_value, _Server):
        _value.close()
_history().clear()
assert _pending() == [], _pending()
del _Server, _history, _pending, _value
"""
"""After each case on a reused kernel: close the servers it connected, forget its history; nothing pending."""

SETUP = """
import sys
sys.path.insert(0, {root!r})
import mcp_widgets as mw
from mcp_widgets.demo import create_server
from tests.servers.hostile_app import build_server
srv = await mw.connect(create_server(sign_in_port=0), name="demo")
hostile = await mw.connect(build_server(), name="hostile")
print("connected")
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:], "\n".join(cell.traceback))
    return cell


class Relay:
    """What app_frame.js does for one view: says ready, passes the app's messages, collects the kernel's."""

    def __init__(self, fe: KernelFrontend, frame: WidgetModel, view: str = "view-1") -> None:
        self.fe = fe
        self.frame = frame
        self.view = view
        self.seen = 0
        self.next_id = 0

    def custom(self, content: dict[str, Any]) -> None:
        self.fe.comm_msg(self.frame, {"method": "custom", "content": {"view": self.view, **content}})

    def ready(self, **context: Any) -> dict[str, Any]:
        self.custom({"kind": "ready", "context": {"theme": "light", "width": 640, **context}})
        return self.expect(lambda m: m.get("kind") == "document")

    def received(self) -> list[dict[str, Any]]:
        out = []
        for msg in self.fe.iopub_log:
            content = msg["content"]
            data = content.get("data", {})
            if msg["msg_type"] == "comm_msg" and content.get("comm_id") == self.frame.comm_id:
                if data.get("method") != "custom":
                    continue
                content = data["content"]
                if content.get("kind") == "rpc":  # one per message, as the relay posts them
                    out.extend({"kind": "rpc", "message": m} for m in content["messages"])
                else:
                    out.append(content)
        return out

    def expect(self, match: Any, timeout: float = 20) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            new = self.received()
            for content in new[self.seen :]:
                self.seen += 1
                if match(content):
                    found.append(content)
                    return True
            return False

        self.fe.wait_until(seen, timeout=timeout, what="a message from the kernel to the app")
        return found[0]

    def send(self, *messages: Any) -> None:
        self.custom({"kind": "rpc", "texts": [json.dumps(m) for m in messages], "origin": "null"})

    def request(self, method: str, params: Any = None, timeout: float = 20) -> dict[str, Any]:
        self.next_id += 1
        msg_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}})
        return self.answer(msg_id, timeout)

    def answer(self, msg_id: Any, timeout: float = 20) -> dict[str, Any]:
        reply = self.expect(
            lambda c: (
                c.get("kind") == "rpc" and c["message"].get("id") == msg_id and "method" not in c["message"]
            ),
            timeout,
        )
        return dict(reply["message"])

    def notification(self, method: str, timeout: float = 20) -> dict[str, Any]:
        return dict(
            self.expect(lambda c: c.get("kind") == "rpc" and c["message"].get("method") == method, timeout)[
                "message"
            ]
        )

    def initialized(self) -> dict[str, Any]:
        result = self.request(
            "ui/initialize",
            {
                "protocolVersion": "2026-01-26",
                "appInfo": {"name": "t", "version": "1"},
                "appCapabilities": {},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}})
        return result


def app_frame(fe: KernelFrontend, label: str) -> WidgetModel:
    return fe.wait_widget("AnyModel", where=lambda w: w.state.get("label") == label)


@pytest.fixture
def connected(frontend: KernelFrontend) -> KernelFrontend:
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    assert ok(frontend.run(SETUP.format(root=root), timeout=180)).stdout.endswith("connected\n")
    return frontend


def test_an_app_initializes_gets_its_input_and_result_and_calls_back(connected: KernelFrontend) -> None:
    fe = connected
    cell = ok(
        fe.run(
            'r = await srv.call_tool("roll_dice", {"sides": 8, "count": 2})\n'
            'print(r.structured_content["total"])'
        )
    )
    total = int(cell.stdout)
    relay = Relay(fe, app_frame(fe, "App roll_dice from demo"))
    document = relay.ready(theme="dark", variables={"--font-sans": "Inter", "--bad": "x;}"})
    html = document["html"]
    assert html.startswith(
        '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src \'none\';'
    )
    assert "'self'" not in html.split(">", 2)[1]
    init = relay.initialized()["result"]
    assert init["protocolVersion"] == "2026-01-26"
    context = init["hostContext"]
    assert context["theme"] == "dark" and context["displayMode"] == "inline"
    assert context["containerDimensions"] == {"maxHeight": 2000, "width": 640}
    assert context["styles"]["variables"] == {"--font-sans": "Inter"}  # the malformed one is dropped
    assert context["toolInfo"]["tool"]["name"] == "roll_dice"
    assert relay.notification("ui/notifications/tool-input")["params"] == {
        "arguments": {"sides": 8, "count": 2}
    }
    result = relay.notification("ui/notifications/tool-result")["params"]
    assert result["structuredContent"]["total"] == total

    again = relay.request("tools/call", {"name": "reroll", "arguments": {"sides": 8, "count": 3}})
    assert len(again["result"]["structuredContent"]["rolls"]) == 3
    read = relay.request("resources/read", {"uri": "ui://demo/dice.html"})
    assert read["result"]["contents"][0]["mimeType"] == "text/html;profile=mcp-app"
    assert relay.request("ping")["result"] == {}
    assert relay.request("ui/request-display-mode", {"mode": "fullscreen"})["result"] == {"mode": "inline"}
    assert relay.request("nope/nothing")["error"]["code"] == -32601

    # A theme change reaches the app as a partial context.
    relay.custom({"kind": "context", "context": {"theme": "light", "width": 640}})
    changed = relay.notification("ui/notifications/host-context-changed")["params"]
    assert changed["theme"] == "light"

    # Model context and messages stay on the view, for Python; the line never quotes them.
    relay.request("ui/update-model-context", {"content": [{"type": "text", "text": "secret typed"}]})
    relay.request("ui/message", {"role": "user", "content": [{"type": "text", "text": "typed hello"}]})
    cell = ok(
        fe.run(
            "v = srv.apps[-1]\n"
            "print(v.initialized, v.model_context['content'][0]['text'], end=' ')\n"
            "print(v.messages[-1]['content'][0]['text'])\n"
            "print(v.lines)"
        )
    )
    first, lines = cell.stdout.splitlines()
    assert first == "True secret typed typed hello"
    assert "typed" not in lines and "secret" not in lines

    # Closing the view tells the app first; it answers, and the frame goes.
    fe.run("v.close()")
    teardown = relay.expect(
        lambda c: c.get("kind") == "rpc" and c["message"].get("method") == "ui/resource-teardown"
    )
    relay.send({"jsonrpc": "2.0", "id": teardown["message"]["id"], "result": {}})
    relay.expect(lambda c: c.get("kind") == "closed")
    assert ok(fe.run("print(len(srv.apps))")).stdout == "0\n"


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_a_hostile_relay_gets_errors_and_bounds(connected: KernelFrontend) -> None:
    fe = connected
    ok(fe.run('await hostile.call_tool("hostile")'))
    relay = Relay(fe, app_frame(fe, "App hostile from hostile"))
    relay.ready()
    relay.initialized()
    assert relay.request("tools/call", {"name": "model_only"})["error"]["code"] == -32000
    assert relay.request("tools/call", {"name": "not_a_tool"})["error"]["code"] == -32000
    assert relay.request("tools/call", {"name": 5})["error"]["code"] == -32602
    assert relay.request("tools/call", [])["error"]["code"] == -32602
    relay.custom({"kind": "rpc", "texts": ["{not json"], "origin": "null"})
    assert relay.expect(
        lambda c: c.get("kind") == "rpc" and c["message"].get("error", {}).get("code") == -32700
    )
    relay.custom({"kind": "bad", "id": 77, "reason": "too large"})
    assert relay.answer(77)["error"]["code"] == -32600
    bad_file = relay.request("ui/download-file", {"contents": [{"type": "text", "text": "x"}]})
    assert bad_file["error"]["code"] == -32602
    link = {"type": "resource_link", "uri": "ui://hostile/missing.txt", "name": "missing"}
    missing = relay.request("ui/download-file", {"contents": [link]})
    assert missing["error"]["code"] == -32000 and "reading the file failed" in missing["error"]["message"]
    relay.custom({"kind": "nonsense", "x": [1, 2]})
    fe.comm_msg(relay.frame, {"method": "custom", "content": "not even a dict"})

    # A flood: every request answered, at most 4 run at once, the rest refused.
    flood = 2_000
    started = time.perf_counter()
    first = relay.next_id + 1
    for batch in range(flood // 500):
        calls = []
        for i in range(500):
            relay.next_id += 1
            params = {"name": "echo", "arguments": {"text": f"{batch}-{i}"}}
            calls.append({"jsonrpc": "2.0", "id": relay.next_id, "method": "tools/call", "params": params})
        relay.send(*calls)
    ids = set(range(first, relay.next_id + 1))

    def all_answered() -> bool:
        answered = {c["message"].get("id") for c in relay.received() if c.get("kind") == "rpc"}
        return ids <= answered

    fe.wait_until(all_answered, timeout=120, what="every flooded request answered")
    elapsed = time.perf_counter() - started
    answers = [
        c["message"] for c in relay.received() if c.get("kind") == "rpc" and c["message"].get("id") in ids
    ]
    ran = sum(1 for a in answers if "result" in a)
    print(f"[{flood} tools/call answered in {elapsed:.1f} s; {ran} ran]", end=" ")
    assert ran >= 4 and ran + sum(1 for a in answers if "error" in a) == len(answers)

    # A resize storm: a few size messages a second reach the front end, not thousands.
    before = sum(1 for c in relay.received() if c.get("kind") == "size")
    for i in range(1_000):
        params = {"width": 1, "height": 5000 if i % 2 else 80}
        relay.send({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": params})
    fe.settle(1.5)
    sizes = [c for c in relay.received() if c.get("kind") == "size"][before:]
    assert 1 <= len(sizes) <= 60 and all(s["height"] <= 2000 for s in sizes), len(sizes)
    assert ok(fe.run("print(1 + 1)")).stdout == "2\n"


@pytest.mark.parametrize(
    "call",
    [
        'srv.call_tool_sync("roll_dice", {"count": 1})',
        'c = srv.call_tool_background("roll_dice", {"count": 1})\nawait c',
    ],
    ids=["blocking", "background"],
)
def test_the_newest_view_runs_the_app_and_a_closed_server_ends_it(
    connected: KernelFrontend, call: str
) -> None:
    fe = connected
    ok(fe.run(call))
    frame = app_frame(fe, "App roll_dice from demo")
    first = Relay(fe, frame, "view-1")
    first.ready()
    first.initialized()
    first.notification("ui/notifications/tool-result")

    # The page reloads (or a second view appears): the app starts again there; the old view is ignored.
    second = Relay(fe, frame, "view-2")
    second.seen = first.seen
    document = second.ready()
    assert document["view"] == "view-2"
    second.initialized()
    assert second.notification("ui/notifications/tool-result")["params"]["structuredContent"]["rolls"]
    first.send({"jsonrpc": "2.0", "id": "old", "method": "ping"})
    assert second.request("ping")["result"] == {}
    assert not [c for c in second.received() if c.get("kind") == "rpc" and c["message"].get("id") == "old"]

    # The server closes: the app is told, answers, and one line stays where it was (said once: no line
    # under the app says it again).
    ok(fe.run("v = srv.apps[-1]"))
    fe.execute("srv.close()")
    teardown = second.notification("ui/resource-teardown")
    second.send({"jsonrpc": "2.0", "id": teardown["id"], "result": {}})
    closed = second.expect(lambda c: c.get("kind") == "closed")
    assert closed["text"] == "App roll_dice from demo: ended (the server was closed)"
    lines = ok(fe.run("print(v.lines)")).stdout
    assert "ended" not in lines, lines


LEFT = {
    "navigated": "the app tried to navigate its own frame",
    "origin": "a message came from another origin than the app's",
}


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
@pytest.mark.parametrize("how", list(LEFT))
def test_an_app_whose_frame_is_no_longer_its_own_ends_and_is_refused(
    connected: KernelFrontend, how: str
) -> None:
    """The relay says the app's frame loaded again (a navigation), or a batch comes from an origin that is not
    the app's opaque "null": the app ends at once with a line, and nothing from that frame runs again."""
    fe = connected
    ok(fe.run('await hostile.call_tool("hostile")'))
    relay = Relay(fe, app_frame(fe, "App hostile from hostile"))
    relay.ready()
    relay.initialized()
    echo = relay.request("tools/call", {"name": "echo", "arguments": {"text": "while its own"}})
    assert echo["result"]["content"][0]["text"] == "while its own"
    calls = 'print(len(hostile.wire.records(method="tools/call")))'
    before = ok(fe.run(calls)).stdout
    call = {"jsonrpc": "2.0", "id": 900, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}
    if how == "navigated":
        relay.custom({"kind": "left", "why": "navigated"})
        relay.send(call)
    else:
        relay.custom({"kind": "rpc", "texts": [json.dumps(call)], "origin": "http://127.0.0.1:8"})
    closed = relay.expect(lambda c: c.get("kind") == "closed")
    assert closed["text"] == f"App hostile from hostile: ended ({LEFT[how]})"
    relay.send({"jsonrpc": "2.0", "id": 901, "method": "ping"})
    relay.custom({"kind": "ready", "context": {"theme": "light"}})  # a reload does not bring it back
    again = relay.expect(lambda c: c.get("kind") in ("closed", "document"))
    assert again == {"kind": "closed", "text": closed["text"], "view": relay.view}
    relay.send({"jsonrpc": "2.0", "id": 902, "method": "ping"})
    fe.settle(1.0)
    answered = {c["message"].get("id") for c in relay.received() if c.get("kind") == "rpc"}
    assert not answered & {900, 901, 902}
    assert ok(fe.run(calls)).stdout == before
    assert ok(fe.run("print(hostile.apps[-1].closed, len(hostile.apps))")).stdout == "False 1\n"


def test_a_cancelled_call_tells_its_app(connected: KernelFrontend) -> None:
    fe = connected
    ok(fe.run('c = hostile.call_tool_background("slow", {"seconds": 60})'))
    relay = Relay(fe, app_frame(fe, "App slow from hostile"))
    relay.ready()
    relay.initialized()
    assert relay.notification("ui/notifications/tool-input")["params"] == {"arguments": {"seconds": 60}}
    ok(fe.run("c.cancel()"))
    cancelled = relay.notification("ui/notifications/tool-cancelled")["params"]
    assert cancelled["reason"] == "the call was cancelled"


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_the_tool_form_and_the_magic_show_the_app_too(connected: KernelFrontend) -> None:
    fe = connected
    ok(fe.run('form = srv.form("roll_dice")\ndisplay(form)\nform.fill(count=2)\nawait form.run()'))
    relay = Relay(fe, app_frame(fe, "App roll_dice from demo"))
    relay.ready()
    relay.initialized()
    assert relay.notification("ui/notifications/tool-input")["params"]["arguments"]["count"] == 2
    assert (
        len(relay.notification("ui/notifications/tool-result")["params"]["structuredContent"]["rolls"]) == 2
    )
    frames = {w.comm_id for w in fe.widgets.values() if w.state.get("label") == "App roll_dice from demo"}
    ok(fe.run("%load_ext mcp_widgets\ndemo = srv\n%mcp call demo.roll_dice count=3"))
    later = fe.wait_widget(
        "AnyModel", where=lambda w: w.state.get("label") == "App roll_dice from demo", exclude=frames
    )
    assert later.comm_id not in frames


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_a_view_that_left_the_page_is_freed_unless_it_comes_back(connected: KernelFrontend) -> None:
    fe = connected
    ok(fe.run("import mcp_widgets.client.apps.bridge as ab\nab.GONE_GRACE = 0.5"))
    ok(fe.run('await srv.call_tool("roll_dice")'))
    frame = app_frame(fe, "App roll_dice from demo")
    relay = Relay(fe, frame, "v1")
    relay.ready()
    relay.custom({"kind": "gone"})
    relay.ready()  # a reload: the same model renders again in time, and stays
    fe.settle(1.5)
    assert frame.comm_id in fe.widgets
    relay.custom({"kind": "gone"})  # its output cleared for good: freed
    fe.wait_until(lambda: frame.comm_id not in fe.widgets, timeout=20, what="the app's frame closed")
    assert ok(fe.run("print(len(srv.apps))")).stdout == "0\n"


@pytest.mark.parametrize("style", ["blocking", "awaiting"])
def test_an_app_is_answered_while_its_cell_still_waits(connected: KernelFrontend, style: str) -> None:
    """The call is still running (its cell blocked or awaiting): the app initializes, calls a tool and gets
    its answer meanwhile; then the call ends and its result reaches the app."""
    fe = connected
    call = 'hostile.call_tool_sync("slow", {"seconds": 4})'
    waiting = fe.execute(call if style == "blocking" else f"await {call.replace('_sync', '')}")
    relay = Relay(fe, app_frame(fe, "App slow from hostile"))
    relay.ready()
    relay.initialized()
    answer = relay.request("tools/call", {"name": "echo", "arguments": {"text": "meanwhile"}}, timeout=3)
    assert answer["result"]["content"][0]["text"] == "meanwhile"
    assert fe.cells[waiting].status is None  # the cell still waits
    assert (
        relay.notification("ui/notifications/tool-result", timeout=20)["params"]["content"][0]["text"]
        == "slept"
    )
    assert ok(fe.wait_cell(waiting, timeout=20)).status == "ok"


QUESTION_SETUP = """
import sys, json, logging, io
sys.path.insert(0, {root!r})
import mcp_widgets as mw
from tests.servers.app_question import PICKER, SCHEMA
log = io.StringIO()
handler = logging.StreamHandler(log)
handler.setLevel(logging.DEBUG)
logging.getLogger("mcp_widgets").addHandler(handler)
logging.getLogger("mcp_widgets").setLevel(logging.DEBUG)
picker = await mw.connect([sys.executable, {raw!r}, "--apps"], name="picker")
question = {{"op": "elicit", "id": "q", "message": "Which colour?", "schema": SCHEMA,
            "meta": {{"ui": {{"resourceUri": PICKER}}}}}}
OPS = [question, {{"op": "await", "id": "q"}}, {{"op": "report"}}]
print("connected")
"""
CANARY = "CANARY-app-7731"


def saved(fe: KernelFrontend) -> str:
    """What a notebook saved now keeps: every open model's state and every output."""
    kinds = ("display_data", "update_display_data", "execute_result", "stream", "error")
    outputs = [m["content"] for m in fe.iopub_log if m["msg_type"] in kinds]
    return json.dumps([w.state for w in fe.widgets.values()]) + json.dumps(outputs)


def test_a_question_answered_in_its_app_keeps_no_value(frontend: KernelFrontend) -> None:
    from pathlib import Path

    fe = frontend
    root = Path(__file__).resolve().parents[2]
    raw = str(root / "tests" / "servers" / "rawrpc.py")
    setup = QUESTION_SETUP.format(root=str(root), raw=raw)
    assert ok(fe.run(setup, timeout=60)).stdout.endswith("connected\n")
    asking = fe.execute(
        'r = await picker.call_tool("play", {"ops": OPS})\ngot = json.loads(r.content[0].text)'
    )
    relay = Relay(fe, fe.wait_widget("AnyModel", where=lambda w: w.state.get("label") == "The app of picker"))
    relay.ready()
    init = relay.initialized()["result"]
    assert init["hostCapabilities"]["elicitation"] == {} and "toolInfo" not in init["hostContext"]
    asked = relay.expect(
        lambda c: c.get("kind") == "rpc" and c["message"].get("method") == "elicitation/create"
    )
    params = asked["message"]["params"]
    assert params["message"] == "Which colour?" and params["_meta"]["ui"]["resourceUri"].startswith("ui://")
    content = {"color": "red", "note": CANARY}
    relay.send(
        {"jsonrpc": "2.0", "id": asked["message"]["id"], "result": {"action": "accept", "content": content}}
    )
    ok(fe.wait_cell(asking, timeout=30))
    expected = {"actions": ["accept"], "answers": [content]}
    assert ok(fe.run(f"print(got == {expected!r})")).stdout == "True\n"  # the server got it
    fe.settle(0.5)
    # Nowhere else: not in the history, the log, the server's repr, its wire (the answer, and the server's
    # echo of it in the result), or what a saved notebook keeps.
    cell = ok(
        fe.run(
            "print(json.dumps(mw.history().records()), log.getvalue(), repr(picker),"
            " json.dumps(picker.wire.records()), picker.wire.text())"
        )
    )
    assert CANARY not in cell.stdout
    assert "[redacted: 2 fields: color, note]" in cell.stdout  # the answer, as the wire keeps it
    kept = saved(fe).replace(repr(expected), "")
    at = kept.find(CANARY)
    assert at < 0, kept[max(0, at - 600) : at + 100]
    assert '"accept"' in cell.stdout  # the history says how it ended


RAW_MRTR = str(Path(__file__).resolve().parents[2] / "tests" / "servers" / "rawmrtr.py")


def mrtr_connected(fe: KernelFrontend, options: str = "") -> str:
    """Connect `m` to the raw 2026-07-28 server (tests/servers/rawmrtr.py); returns the protocol version."""
    connect = f"m = await mw.connect([sys.executable, {RAW_MRTR!r}], name='m'{options})"
    cell = ok(fe.run(f"import sys, json\nimport mcp_widgets as mw\n{connect}\nprint(m.protocol_version)"))
    return cell.stdout.strip()


def asked_in_app(fe: KernelFrontend) -> tuple[str, Relay, dict[str, Any]]:
    """Call `m`'s `pick`; its app starts and is asked: (the calling cell, the relay, the question)."""
    asking = fe.execute('r = await m.call_tool("pick")\nprint(r.content[0].text)')
    relay = Relay(fe, fe.wait_widget("AnyModel", where=lambda w: w.state.get("label") == "The app of m"))
    relay.ready()
    relay.initialized()
    asked = relay.expect(
        lambda c: c.get("kind") == "rpc" and c["message"].get("method") == "elicitation/create"
    )
    return asking, relay, asked["message"]


def test_a_2026_question_is_answered_in_its_app(frontend: KernelFrontend) -> None:
    """2026-07-28: the question comes in an input-required result with its `_meta` (a server that keeps it,
    as SEP-3118 asks); the app's answer goes back in `inputResponses`."""
    fe = frontend
    assert mrtr_connected(fe) == "2026-07-28"
    asking, relay, asked = asked_in_app(fe)
    assert asked["params"]["_meta"]["ui"]["resourceUri"] == "ui://question/picker.html"
    answer = {"action": "accept", "content": {"color": "blue", "shade": 2}}
    relay.send({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
    got = json.loads(ok(fe.wait_cell(asking, timeout=30)).stdout)
    assert got == {"actions": ["accept"], "answers": [answer["content"]]}


CAPTURE_LOG = """
import io, logging
log = io.StringIO()
logging.getLogger("mcp_widgets").addHandler(logging.StreamHandler(log))
logging.getLogger("mcp_widgets").setLevel(logging.DEBUG)
"""


@pytest.mark.parametrize("generation", ["2025-11-25", "2026-07-28"])
def test_a_task_question_is_answered_in_its_app(frontend: KernelFrontend, generation: str) -> None:
    """A question asked inside a task shows in its app too: on 2025-11-25 as an `elicitation/create`
    through the pending `tasks/result` (with the task's related-task metadata), on 2026-07-28 as an
    `inputRequests` entry of `tasks/get` (its `_meta` kept). The app's answer reaches the server; the canary
    typed into it is in no history, log or saved state."""
    fe = frontend
    root = Path(__file__).resolve().parents[2]
    if generation == "2025-11-25":
        raw = str(root / "tests" / "servers" / "rawrpc.py")
        assert ok(fe.run(QUESTION_SETUP.format(root=str(root), raw=raw), timeout=180)).stdout.endswith(
            "connected\n"
        )
        server, call = "picker", 'picker.call_tool("play_task", {"ops": OPS})'
    else:
        ok(fe.run(CAPTURE_LOG))
        assert mrtr_connected(fe) == generation
        server, call = "m", 'm.call_tool("pick_task")'
    asking = fe.execute(f"r = await {call}\ngot = json.loads(r.content[0].text)")
    label = f"The app of {server}"
    relay = Relay(fe, fe.wait_widget("AnyModel", where=lambda w: w.state.get("label") == label))
    relay.ready()
    relay.initialized()
    asked = relay.expect(
        lambda c: c.get("kind") == "rpc" and c["message"].get("method") == "elicitation/create"
    )["message"]
    assert asked["params"]["_meta"]["ui"]["resourceUri"] == "ui://question/picker.html"
    if generation == "2025-11-25":
        assert asked["params"]["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": "t1"}
    content = {"color": "red", "note": CANARY}
    relay.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": content}})
    ok(fe.wait_cell(asking, timeout=30))
    expected = {"actions": ["accept"], "answers": [content]}
    assert ok(fe.run(f"print(got == {expected!r})")).stdout == "True\n"  # the server got it
    fe.settle(0.5)
    cell = ok(fe.run(f"print(json.dumps(mw.history().records()), log.getvalue(), repr({server}))"))
    assert CANARY not in cell.stdout and '"accept"' in cell.stdout
    kept = saved(fe)
    at = kept.find(CANARY)
    assert at < 0, kept[max(0, at - 600) : at + 100]
    assert "Task completed" in kept  # it ran as a task


@pytest.mark.parametrize("garbage", ["not an object", "no action", "an error"])
def test_a_question_app_that_answers_garbage_gives_the_plain_form(
    frontend: KernelFrontend, garbage: str
) -> None:
    fe = frontend
    mrtr_connected(fe)
    asking, relay, asked = asked_in_app(fe)
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": asked["id"]}
    if garbage == "not an object":
        reply["result"] = ["accept"]
    elif garbage == "no action":
        reply["result"] = {"content": {"color": "red"}}
    else:
        reply["error"] = {"code": -32000, "message": "the app crashed"}
    relay.send(reply)
    hint = fe.wait_widget(  # the form's plain fields and Accept are back (no app), its hint says why
        "AnyModel",
        where=lambda w: "The plain form instead" in str(w.state.get("hint")) and w.state.get("app") is None,
    )
    assert "not an elicitation result" in hint.state["hint"]
    assert fe.cells[asking].status is None  # nothing was sent: the person answers in the plain form


def test_a_question_app_that_navigates_its_frame_gives_the_plain_form(frontend: KernelFrontend) -> None:
    fe = frontend
    mrtr_connected(fe)
    asking, relay, asked = asked_in_app(fe)
    relay.custom({"kind": "left", "why": "navigated"})
    relay.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {}}})
    hint = fe.wait_widget(  # the form's plain fields and Accept are back (no app), its hint says why
        "AnyModel",
        where=lambda w: "The plain form instead" in str(w.state.get("hint")) and w.state.get("app") is None,
    )
    assert "the app tried to navigate its own frame" in hint.state["hint"]
    assert fe.cells[asking].status is None  # the frame's answer was not taken: the person answers


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_a_handler_answers_a_question_that_names_an_app_as_a_plain_form(frontend: KernelFrontend) -> None:
    fe = frontend
    mrtr_connected(fe, ", handler=mw.handlers.decline")
    cell = ok(fe.run('r = await m.call_tool("pick")\nprint(r.content[0].text)'))
    assert json.loads(cell.stdout) == {"actions": ["decline"], "answers": []}
    assert not [w for w in fe.widgets.values() if w.model_name == "AnyModel" and w.state.get("label")]


def test_a_withdrawn_question_ends_its_app(frontend: KernelFrontend) -> None:
    """2025-11-25: the server withdraws the question (notifications/cancelled): the card ends as withdrawn,
    and its app is told (`ui/resource-teardown`) and goes."""
    from pathlib import Path

    fe = frontend
    root = Path(__file__).resolve().parents[2]
    raw = str(root / "tests" / "servers" / "rawrpc.py")
    connect = f"picker = await mw.connect([sys.executable, {raw!r}, '--apps'], name='picker')"
    ok(fe.run(f"import sys\nsys.path.insert(0, {str(root)!r})\nimport mcp_widgets as mw\n{connect}"))
    ops = (
        "from tests.servers.app_question import PICKER, SCHEMA\n"
        "q = {'op': 'elicit', 'id': 'q', 'message': 'Which?', 'schema': SCHEMA, "
        "'meta': {'ui': {'resourceUri': PICKER}}}\n"
        "ops = [q, {'op': 'sleep', 's': 1.5}, {'op': 'cancel', 'id': 'q', 'text': 'no longer needed'}, "
        "{'op': 'result', 'text': 'done'}]\n"
        "r = await picker.call_tool('play', {'ops': ops})\nprint(r.content[0].text)"
    )
    asking = fe.execute(ops)
    relay = Relay(fe, fe.wait_widget("AnyModel", where=lambda w: w.state.get("label") == "The app of picker"))
    relay.ready()
    relay.initialized()
    relay.expect(lambda c: c.get("kind") == "rpc" and c["message"].get("method") == "elicitation/create")
    teardown = relay.notification("ui/resource-teardown", timeout=20)
    assert teardown["params"] == {"reason": "the question ended"}
    relay.send({"jsonrpc": "2.0", "id": teardown["id"], "result": {}})
    relay.expect(lambda c: c.get("kind") == "closed")
    assert ok(fe.wait_cell(asking, timeout=30)).stdout == "done\n"


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_what_an_app_sends_a_tool_stays_out_of_the_lines(connected: KernelFrontend) -> None:
    """A value the person typed into the app, sent as a tool argument and quoted back by the server in its
    error: the app gets the error, the call's line under the app never shows the value."""
    fe = connected
    ok(fe.run('await hostile.call_tool("hostile")'))
    relay = Relay(fe, app_frame(fe, "App hostile from hostile"))
    relay.ready()
    relay.initialized()
    answer = relay.request("tools/call", {"name": "refuse", "arguments": {"text": CANARY}})
    assert answer["error"]["code"] == -32602
    fe.settle(0.5)
    assert CANARY not in saved(fe)


LINK = f"https://example.com/docs/page?q={CANARY}#part"

HISTORY = """
import json
from mcp_widgets.core.history import default_history
rows = default_history().records("demo")
print(json.dumps([r for r in rows if r["source"] and r["source"]["kind"] == "app"]))
"""


def link_rows(fe: KernelFrontend) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(ok(fe.run(HISTORY)).stdout)
    return rows


@pytest.mark.parametrize(
    ("handler", "agreed"), [("mw.handlers.decline", False), ('mw.handlers.scripted(["accept"])', True)]
)
@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_an_app_s_link_is_a_card_a_handler_answers_and_the_history_keeps(
    connected: KernelFrontend, handler: str, agreed: bool
) -> None:
    """`ui/open-link` takes the path every card takes: the server's handler answers it (the app is told
    whether it was agreed to), and the history keeps a row naming the app and the host, never the query."""
    fe = connected
    ok(fe.run(f'srv.handler = {handler}\nawait srv.call_tool("roll_dice", {{"count": 1}})'))
    relay = Relay(fe, app_frame(fe, "App roll_dice from demo"))
    relay.ready()
    relay.initialized()
    answer = relay.request("ui/open-link", {"url": LINK})
    assert answer["result"] == ({} if agreed else {"isError": True})
    rows = link_rows(fe)
    assert CANARY not in json.dumps(rows) and "/docs" not in json.dumps(rows)
    (row,) = rows
    assert row["source"] == {"kind": "app", "name": "roll_dice"} and row["mode"] == "url"
    assert row["url_host"] == "example.com" and row["message"] == "The app asks to open this page."
    assert row["outcome"]["action"] == ("accept" if agreed else "decline")
    assert row["outcome"]["reason"] == "handler"


@pytest.mark.newest_kernel  # no cell waits while its rule applies (tests/kernel/conftest.py)
def test_an_app_s_refused_link_is_declined_as_its_card_is_built(connected: KernelFrontend) -> None:
    """An address no card may offer: the app hears a refusal at once, nobody is asked, the row says why."""
    fe = connected
    ok(fe.run('srv.handler = mw.handlers.scripted(["accept"])'))
    ok(fe.run('await srv.call_tool("roll_dice", {"count": 1})'))
    relay = Relay(fe, app_frame(fe, "App roll_dice from demo"))
    relay.ready()
    relay.initialized()
    assert relay.request("ui/open-link", {"url": "javascript:alert(1)"})["result"] == {"isError": True}
    (row,) = link_rows(fe)
    assert row["source"] == {"kind": "app", "name": "roll_dice"}
    assert row["outcome"]["action"] == "decline" and row["outcome"]["reason"] == "refused-url"
