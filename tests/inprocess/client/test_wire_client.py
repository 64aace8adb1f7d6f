"""`srv.wire` against real servers over real transports: stdio and streamable HTTP, both protocol
generations. What a person typed (an answer, a tool form's arguments, an app's) is in no record, file, text
or repr; HTTP exchanges keep their status and `Mcp-*` headers; `wire=0` keeps nothing; `mw.wire()` shows
every connection."""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets import handlers
from mcp_widgets.client import Server, connect_sync
from tests.servers.demo import build_server
from tests.servers.launch import http_server, stdio_command

CANARY = "Zanzibar-Canary-77"


def everything(srv: Server, tmp_path: Path) -> str:
    """Every way the wire can be read, as one text."""
    saved = srv.wire.save(tmp_path / "wire.jsonl").read_text(encoding="utf-8")
    for line in saved.splitlines():
        json.loads(line)
    views = srv.wire.view().state
    return "\n".join(
        [json.dumps(srv.wire.records()), saved, repr(srv.wire), srv.wire.text(), json.dumps(views)]
    )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_answer_over_stdio_is_captured_without_its_value(mode: str, tmp_path: Path) -> None:
    answer = handlers.scripted([{"name": CANARY}])
    with connect_sync(stdio_command(), mode=mode, handler=answer) as srv:
        result = srv.call_tool_sync("ask_name")
        assert CANARY in str(result.content)  # the server got it, and echoed it back
        kept = everything(srv, tmp_path)
        groups = {g.label: g for g in srv.wire.groups()}
        rows = [row.text for row in groups["tool ask_name"].rows()]
        # Our calls' ids, whatever came before them (the listings the client asks for on its own vary).
        ids = [m.id for m in srv.wire.messages(method="tools/call") if m.kind == "request"]
    assert CANARY.lower() not in kept.lower()
    assert "[redacted: 1 field: name]" in kept
    assert {"connection", "listings", "tool ask_name"} <= set(groups)
    if mode == "legacy":
        assert rows[0] == f"tools/call #{ids[0]}" and rows[1].startswith("elicitation/create")
        assert rows[2].startswith("result") and rows[2].endswith("(elicitation/create) accept")
    else:
        assert rows[0] == f"round 1: tools/call #{ids[0]}" and rows[2] == f"round 2: tools/call #{ids[1]}"
        assert "input required (1 question)" in rows[1]
    assert groups["tool ask_name"].outcome == "ok"


def test_http_exchanges_keep_status_and_mcp_headers(tmp_path: Path) -> None:
    answer = handlers.scripted([{"name": CANARY}])
    with (
        http_server() as (url, _),
        connect_sync(
            url, mode="legacy", handler=answer, headers={"Authorization": "Bearer SEKRET-99"}
        ) as srv,
    ):
        srv.call_tool_sync("ask_name")
        kept = everything(srv, tmp_path)
        exchanges = [r for r in srv.wire.records() if r["kind"] == "http"]
    assert CANARY not in kept and "SEKRET-99" not in kept
    assert exchanges and all(r["status"] in (200, 202) for r in exchanges)
    headers = {k.lower(): v for r in exchanges for k, v in r["headers"].items()}
    assert headers["authorization"] == "[redacted: Bearer token]"
    assert headers["mcp-protocol-version"] == "2025-11-25"
    assert headers["mcp-session-id"].endswith("…")
    assert any(r["carried"] == "tools/call" and r["call"] for r in exchanges)


def test_typed_arguments_are_kept_as_their_names(tmp_path: Path) -> None:
    with connect_sync(stdio_command()) as srv:
        srv.call_tool_sync("echo", {"text": "from code"})
        srv._tool("echo", {"text": CANARY}).background(typed=True).future.result(timeout=30)  # a form's way
        form = srv.form("echo")
        form.fill(text=CANARY + "-form")
        call = form.run()
        assert call is not None
        call.future.result(timeout=30)
        kept = everything(srv, tmp_path)
        calls = [
            r["message"]["params"]["arguments"]
            for r in srv.wire.records(method="tools/call")
            if r["direction"] == "out"
        ]
    assert calls == [{"text": "from code"}, "[redacted: 1 argument: text]", "[redacted: 1 argument: text]"]
    assert CANARY not in kept  # nor its echo in the results


def test_what_an_app_sends_a_tool_is_kept_as_names(tmp_path: Path) -> None:
    with connect_sync(stdio_command()) as srv:
        call = srv._runner.app_call("echo", {"text": CANARY}, None)  # as the app bridge makes it
        call.future.result(timeout=30)
        kept = everything(srv, tmp_path)
    assert CANARY not in kept and "[redacted: 1 argument: text]" in kept


def test_wire_0_keeps_nothing_and_says_so() -> None:
    with connect_sync(stdio_command(), wire=0) as srv:
        srv.call_tool_sync("echo", {"text": "x"})
        assert srv.wire.records() == [] and len(srv.wire) == 0
        assert "is off" in repr(srv.wire)
    with pytest.raises(ValueError, match="wire must be"):
        connect_sync(stdio_command(), wire=-1)


def test_wire_0_remembers_no_call_either() -> None:
    """With the wire off, a question's call is not remembered for it (it grew by one label a question)."""
    from mcp_widgets.demo import create_server

    answers = handlers.scripted([{"name": "Ada"}] * 30)
    with connect_sync(create_server(), handler=answers, wire=0) as srv:
        for _ in range(30):
            srv.call_tool_sync("echo_elicit", {"requested_schema": {"type": "object", "properties": {}}})
        assert len(srv.wire._capture.log.labels) == 0


def test_srv_wire_shows_a_person_only_what_a_person_reads() -> None:
    """`srv.wire`'s names are the person's (issue 52): the capture it reads is the connection's, apart."""
    with connect_sync(stdio_command()) as srv:
        srv.call_tool_sync("echo", {"text": "x"})
        public = {name for name in dir(srv.wire) if not name.startswith("_")}
        assert public == {"clear", "groups", "keep", "messages", "records", "save", "text", "view"}
        assert srv.wire._capture is srv._connection.wire  # what the connection taps is what it reads
        assert srv.wire.messages(method="tools/call") and len(srv.wire) == len(srv.wire.records())


def test_a_small_ring_keeps_the_newest() -> None:
    with connect_sync(stdio_command(), wire=6) as srv:
        for n in range(5):
            srv.call_tool_sync("echo", {"text": f"n{n}"})
        kept = srv.wire.records()
    assert len(kept) == 6 and kept[-1]["method"] == "tools/call"
    assert [r["seq"] for r in kept] == list(range(kept[0]["seq"], kept[0]["seq"] + 6))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_in_process_server_is_seen_at_the_client_s_dispatcher(mode: str, tmp_path: Path) -> None:
    """No transport (on 2026-07-28 no JSON-RPC at all): each request, answer, error and notification is kept
    as the message it stands for, redacted the same way."""
    answer = handlers.scripted([{"name": CANARY}])
    with connect_sync(build_server(), mode=mode, handler=answer, log_level="debug") as srv:
        srv.call_tool_sync("ask_name")
        with pytest.raises(mw.ServerError):
            srv.get_prompt_sync("no_such_prompt_here")
        kept = everything(srv, tmp_path)
        labels = [g.label for g in srv.wire.groups()]
        errors = [m for m in srv.wire.messages() if m.kind == "error"]
    assert CANARY not in kept and "[redacted: 1 field: name]" in kept
    assert labels[:3] == ["connection", "listings", "tool ask_name"]
    assert errors and errors[0].method == "prompts/get" and errors[0].call is not None


def test_every_connection_in_one_place(tmp_path: Path) -> None:
    with (
        connect_sync(stdio_command("alpha"), name="a") as a,
        connect_sync(stdio_command("beta"), name="b") as b,
    ):
        a.call_tool_sync("echo", {"text": "to a"})
        b.call_tool_sync("echo", {"text": "to b"})
        wires = mw.wire()
        records = wires.records()
        text = repr(wires)
        saved = wires.save(tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines()
    assert {"a", "b"} <= {r["server"] for r in records}
    assert "wire of 'a'" in text and "wire of 'b'" in text
    # Servers of earlier tests are in mw.wire() until they are collected, which may happen between the two
    # reads: only a and b, open throughout, are compared.
    ours = [r for r in records if r["server"] in ("a", "b")]
    saved_ours = [line for line in saved if json.loads(line)["server"] in ("a", "b")]
    assert saved_ours == [json.dumps(r, ensure_ascii=False, default=str) for r in ours]


def test_the_view_fetches_a_message_when_its_row_opens() -> None:
    with connect_sync(stdio_command()) as srv:
        srv.call_tool_sync("echo", {"text": "<b>bold</b>"})
        view = srv.wire.view()
        assert "tool echo" in view.labels
        sent = srv.wire.messages(method="tools/call")[0]
        # Its id, whatever came before it (the listings the client asks for on its own vary in number).
        assert view.rows("tool echo")[0] == f"tools/call #{sent.id}"
        seq = sent.seq
        body: Any = json.loads(view.detail(seq))
        assert body["message"]["params"]["arguments"] == {"text": "<b>bold</b>"}
        assert "no longer kept" in view.detail(10**9)


def test_a_value_typed_in_an_ended_call_is_redacted_from_later_echoes() -> None:
    """The wire holds no call: an ended call's values come from what redacts its late log lines."""
    with connect_sync(stdio_command(), mode="legacy", handler=handlers.scripted([{"name": CANARY}])) as srv:
        srv.call_tool_sync("ask_name")
        gc.collect()
        srv.call_tool_sync("echo", {"text": f"again {CANARY}"})  # your own code's argument: kept as it is
        sent = [r for r in srv.wire.records(method="tools/call") if r["direction"] == "out"]
        came = json.dumps(srv.wire.records(direction="in"))
    assert CANARY in json.dumps(sent[-1]) and CANARY not in came and "again [redacted]" in came


def test_questions_of_two_calls_in_flight_go_with_their_calls() -> None:
    """2025-11-25 ties a question to no request: the intake knows its call and tells the wire."""
    answers = handlers.scripted([{"name": "one"}, {"name": "two"}])
    with connect_sync(stdio_command(), mode="legacy", handler=answers) as srv:
        calls = [srv.call_tool_background("ask_later", {"delay": 0.3}) for _ in range(2)]
        for call in calls:
            call.result(timeout=30)  # posted work (the handler's answers) runs while it waits
        groups = srv.wire.groups()
    asking = [g for g in groups if g.label == "tool ask_later"]
    assert len(asking) == 2 and "other messages" not in [g.label for g in groups]
    for group in asking:
        methods = [(m.direction, m.method, m.kind) for m in group.messages]
        assert methods.count(("in", "elicitation/create", "request")) == 1, methods
        assert methods.count(("out", "elicitation/create", "result")) == 1, methods


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_call_whose_question_was_declined_says_so(mode: str, tmp_path: Path) -> None:
    """Its tool answered well, but a person reading "ok" would think they had accepted."""
    answers = handlers.scripted(["decline", "cancel", {"name": CANARY}])
    with connect_sync(stdio_command(), mode=mode, handler=answers) as srv:
        for _ in range(3):
            srv.call_tool_sync("ask_name")
        outcomes = [g.outcome for g in srv.wire.groups() if g.label == "tool ask_name"]
        text = srv.wire.text()
        views = srv.wire.view().state
    assert outcomes == ["declined", "cancelled", "ok"]
    assert "ask_name (" in text and "declined)" in text and "cancelled)" in text
    shown = [g["outcome"] for g in views["groups"] if g["label"] == "tool ask_name"]
    assert shown == ["declined", "cancelled", "ok"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_each_completion_is_a_group_of_its_own_named_by_what_it_completes(mode: str) -> None:
    """Not "other messages", whose time counted from the first completion of the session."""
    from tests.servers.completing import build_server as completing

    with connect_sync(completing(), mode=mode) as srv:
        for typed in ("ju", "ma"):
            srv.complete_sync(prompt="trip", argument="month", value=typed)
        srv.complete_sync(template="weather://{city}/{day}", argument="city", value="Li")
        groups = [g for g in srv.wire.groups() if g.kind == "call"]
    assert [g.label for g in groups] == [
        "completion of 'month' (prompt 'trip')",
        "completion of 'month' (prompt 'trip')",
        "completion of 'city' (resource template 'weather://{city}/{day}')",
    ]
    for group in groups:
        assert [m.method for m in group.messages] == ["completion/complete"] * 2
        assert group.outcome == "ok" and group.took == group.messages[-1].took
    assert "other messages" not in [g.label for g in srv.wire.groups()]


def test_a_given_up_completion_says_so() -> None:
    from tests.servers import completing

    with connect_sync([sys.executable, completing.__file__], mode="legacy") as srv:
        ask = srv._completer.asker(prompt="trip")
        assert ask is not None
        pending = ask("city", "slow", {})
        deadline = time.monotonic() + 10
        while not srv.wire.messages(method="completion/complete"):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        pending.cancel()  # a newer keystroke
        while not srv.wire.messages(method="notifications/cancelled"):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        (group,) = [g for g in srv.wire.groups() if g.label.startswith("completion of 'city'")]
    assert [m.method for m in group.messages] == ["completion/complete", "notifications/cancelled"]
    assert group.outcome == "given up"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_watch_s_reads_are_groups_of_their_own(mode: str) -> None:
    from tests.servers.live import COUNTER
    from tests.servers.live import build_server as live

    with connect_sync(live(), mode=mode) as srv:
        watch = srv.watch(COUNTER)
        watch.wait(0)
        srv.call_tool_sync("bump")
        watch.wait(1, timeout=10)
        labels = [g.label for g in srv.wire.groups() if g.kind == "call"]
        reads = [g for g in srv.wire.groups() if g.label.startswith("srv.watch(")]
        watch.stop()
    read = "srv.watch('live://counter'): read"
    assert labels == [f"{read} 1", "tool bump", f"{read} 2"]
    for group in reads:
        assert [m.method for m in group.messages] == ["resources/read"] * 2 and group.outcome == "ok"


def test_an_app_s_document_read_is_a_group_of_its_own() -> None:
    from mcp_widgets.demo import create_server

    with connect_sync(create_server(sign_in_port=0), name="demo") as srv:
        view = srv.open_app("roll_dice", {"count": 2})
        deadline = time.monotonic() + 10
        while not srv.wire.messages(method="resources/read", direction="in"):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        (group,) = [g for g in srv.wire.groups() if g.label.startswith("app ")]
        view.close()
    assert group.label == "app ui://demo/dice.html: its document" and group.outcome == "ok"
