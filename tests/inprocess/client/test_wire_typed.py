"""The wire keeps nothing typed whatever a server does with ids, headers and sizes: a question's id used
again (a ping with it, two calls' "e1"), a typed value echoed in an HTTP header or a redirect's path, a 50 MB
string quoting one. A canary typed into the form (`fill`, `accept`) is in no record, file, view or repr."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.redaction import typed_pattern
from tests.servers import SERVERS
from tests.servers.launch import serving

SERVERS = SERVERS
RAW = [sys.executable, str(SERVERS / "rawrpc.py")]
CANARY = "Quokka-Canary-4711"
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def person(card: Any) -> None:
    card.fill(name=CANARY)
    card.accept()


def everything(srv: Server, tmp_path: Path) -> str:
    """Every way the wire can be read, as one text: records, the saved file, the view's state and the
    messages it opens, the text and reprs."""
    saved = srv.wire.save(tmp_path / "wire.jsonl").read_text(encoding="utf-8")
    view = srv.wire.view()
    opened = [view.detail(m.seq) for m in srv.wire.messages()]
    parts = [json.dumps(srv.wire.records()), saved, json.dumps(view.state), *opened]
    parts += [repr(srv.wire), srv.wire.text(), repr(srv.wire.messages()), repr(srv.wire.groups())]
    return "\n".join(parts)


def test_a_ping_with_the_question_s_id_leaves_no_answer(tmp_path: Path) -> None:
    ops = [
        {"op": "elicit", "id": "e1", "message": "Who?", "schema": SCHEMA},
        {"op": "ping", "id": "e1"},
        {"op": "await", "id": "e1", "timeout": 5},
        {"op": "sleep", "s": 0.3},
        {"op": "result", "text": "done"},
    ]
    with connect_sync(RAW, name="raw", handler=person) as srv:
        srv.call_tool_sync("play", {"ops": ops})
        kept = everything(srv, tmp_path)
        sent = [r for r in srv.wire.records(direction="out") if r["kind"] == "result"]
    assert CANARY.lower() not in kept.lower()
    answers = [r["message"]["result"] for r in sent if "action" in r["message"]["result"]]
    assert answers == [{"action": "accept", "content": "[redacted: 1 field: name]"}]


def test_two_calls_asking_e1_leave_no_answer(tmp_path: Path) -> None:
    ops = [
        {"op": "elicit", "id": "e1", "message": "Who?", "schema": SCHEMA},
        {"op": "await", "id": "e1", "timeout": 3},
        {"op": "result", "text": "done"},
    ]
    with connect_sync(RAW, name="raw", mode="legacy", handler=person) as srv:
        calls = [srv.call_tool_background("play", {"ops": ops}) for _ in range(2)]
        for call in calls:
            call.result(timeout=60)
        kept = everything(srv, tmp_path)
        sent = [r for r in srv.wire.records(direction="out") if r["kind"] == "result"]
    assert CANARY.lower() not in kept.lower()
    answers = [r["message"]["result"] for r in sent if "action" in r["message"]["result"]]
    assert answers == [{"action": "accept", "content": "[redacted: 1 field: name]"}] * 2


def test_values_echoed_in_http_headers_and_paths_are_redacted(tmp_path: Path) -> None:
    argv = [sys.executable, str(SERVERS / "echo_http.py")]
    with (
        serving(argv, "the echoing HTTP server") as (port, _),
        connect_sync(f"http://127.0.0.1:{port}/mcp", name="echo-http", mode="legacy", handler=person) as srv,
    ):
        srv.call_tool_sync("ask")
        reached = srv.call_tool_sync("again")
        assert CANARY in str(reached.content)  # the server was redirected to a path naming it
        kept = everything(srv, tmp_path)
        exchanges = [r for r in srv.wire.records() if r["kind"] == "http"]
    assert CANARY.lower() not in kept.lower()
    headers = [{k.lower(): v for k, v in r["headers"].items()} for r in exchanges]
    (echoed,) = [h for h in headers if "mcp-echo" in h]
    assert echoed["mcp-echo"] == "hello [redacted]"
    assert echoed["www-authenticate"].endswith('error_description="no user [redacted]"')
    statuses = [(r["status"], r["method"]) for r in exchanges]
    assert (307, "POST /mcp") in statuses and (200, "POST /mcp/[redacted]") in statuses


class Counting:
    """A typed-value pattern that counts the characters it is asked to search (the redaction's work)."""

    searched = 0

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern

    def search(self, text: str, *args: Any) -> Any:
        Counting.searched += len(text)
        return self._pattern.search(text, *args)

    def sub(self, repl: str, text: str, *args: Any) -> str:
        Counting.searched += len(text)
        return self._pattern.sub(repl, text, *args)

    def finditer(self, text: str, *args: Any) -> Any:
        Counting.searched += len(text)
        return self._pattern.finditer(text, *args)


def test_a_5_mb_message_quoting_a_typed_value_is_searched_only_where_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The wire, the log line and the result's redaction read what they keep (clipped), not 50 MB: the
    shared client thread stays free for other servers (the benchmarks time it)."""
    from mcp_widgets.client import privacy
    from mcp_widgets.client.wire import capture as wire

    def counting(values: Any) -> Any:
        pattern = typed_pattern(values)
        return None if pattern is None else Counting(pattern)

    monkeypatch.setattr(wire, "typed_pattern", counting)
    monkeypatch.setattr(privacy, "typed_pattern", counting)
    big = 5_000_000  # the redaction's work is the same for 50 MB (the SDK's reading of its line is not)
    ops = [
        {"op": "elicit", "id": "e1", "message": "Who?", "schema": SCHEMA},
        {"op": "await", "id": "e1", "timeout": 10},
        {"op": "log", "text": "hello", "echo": "plain", "pad": big},
        {"op": "result", "text": "hello", "echo": "plain", "pad": big},
    ]
    lines: list[str] = []
    with connect_sync(RAW, name="raw", handler=person, log_level="info") as srv:
        Counting.searched = 0
        result = srv.call_tool_sync("play", {"ops": ops})
        assert len(result.content[0].text) > big  # the tool's own result is the server's answer to you
        kept = everything(srv, tmp_path)
        came = [r["message"] for r in srv.wire.records(direction="in") if r["kind"] != "http"]
        lines = [json.dumps(m) for m in came if m.get("method") == "notifications/message"]
    assert CANARY.lower() not in kept.lower()
    assert lines and "hello [redacted] yyy" in lines[0]
    assert Counting.searched < 1_000_000, Counting.searched


def test_a_templated_read_is_labelled_by_the_uri_read_with_its_template_beside() -> None:
    """Your code's URI is on the row (the history keeps only the template), the template beside it; the
    literal template is refused before sending, so it leaves no row."""
    from tests.servers.templated import TEMPLATE

    with connect_sync([sys.executable, str(SERVERS / "templated.py")], name="templated") as srv:
        srv.read_resource_sync("demo://resource/dynamic/text/42")
        with pytest.raises(ValueError, match="resourceId"):
            srv.read_resource_sync(TEMPLATE)
        labels = [g.label for g in srv.wire.groups() if g.kind == "call"]
        by_template = srv.wire.records(call=f"resource {TEMPLATE}")
        text = srv.wire.text()
    assert labels == [f"resource demo://resource/dynamic/text/42 ({TEMPLATE})"]
    assert len({r["call"] for r in by_template}) == 1  # asked for by the template: the read
    assert f"resource demo://resource/dynamic/text/42 ({TEMPLATE})" in text
