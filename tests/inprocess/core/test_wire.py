"""The wire's pure part: clipping, JSON sizing, the ring, grouping, the text and the view's JSON (its
redaction policy: test_wire_redaction.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_widgets.core.redaction import HEAD_KEEP, redact_head, typed_pattern
from mcp_widgets.core.wire import (
    LIST_KEEP,
    STRING_KEEP,
    WireLog,
    clipped,
    error_name,
    json_size,
    view_state,
)

CANARY = "Zanzibar-Canary-77"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def request(ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, **({"params": params} if params else {})}


def result(ident: int, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": value}


def dumped(log: WireLog) -> str:
    return (
        json.dumps(log.records()) + log.text() + json.dumps(view_state(log.groups(), total=1, kept=1, keep=1))
    )


def test_results_and_errors_find_their_request_with_its_time() -> None:
    clock = Clock()
    log = WireLog(now=clock)
    log.add("out", request(7, "tools/call", {"name": "slow"}), size=5, call=("k", "tool slow"))
    clock.now += 1.5
    error = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "bad <b>input</b>"}}
    kept = log.add("in", error, size=5)
    assert kept is not None
    assert (kept.kind, kept.method, kept.call, kept.took) == ("error", "tools/call", "k", 1.5)
    assert kept.error == "-32602 invalid params: bad <b>input</b>"
    assert kept.summary.startswith("error #7 -32602 invalid params")
    (group,) = log.groups()
    assert group.outcome.startswith("-32602 invalid params")


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (-32601, "-32601 method not found"),
        (-32042, "-32042 URL elicitation required"),
        (-32020, "-32020 missing Mcp-Name header"),
        (5, "5"),
        (True, "True"),
    ],
)
def test_error_codes_are_named(code: Any, name: str) -> None:
    assert error_name(code) == name


def test_progress_follows_its_token_and_a_task_its_id() -> None:
    log = WireLog()
    log.add(
        "out",
        request(4, "tools/call", {"name": "t", "_meta": {"progressToken": 4}}),
        size=1,
        call=("k", "tool t"),
    )
    log.add("out", request(5, "tools/list"), size=1)
    progress = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 4, "progress": 1},
    }
    assert (kept := log.add("in", progress, size=1)) is not None and kept.call == "k"
    log.add("in", result(4, {"task": {"taskId": "T1", "status": "working"}}), size=1)
    status = {
        "jsonrpc": "2.0",
        "method": "notifications/tasks/status",
        "params": {"taskId": "T1", "status": "done"},
    }
    assert (kept := log.add("in", status, size=1)) is not None and kept.call == "k"
    related = {"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "T1"}}, "message": "?"}
    assert (kept := log.add("in", request(9, "elicitation/create", related), size=1)) is not None
    assert kept.call == "k"


def test_polls_fold_and_rounds_are_numbered() -> None:
    clock = Clock()
    log = WireLog(now=clock)
    call = ("k", "tool long")
    log.add("out", request(1, "tools/call", {"name": "long"}), size=1, call=call)
    log.add("in", result(1, {"resultType": "input_required", "inputRequests": {"a": {}}}), size=1)
    log.add("out", request(2, "tools/call", {"name": "long", "inputResponses": {}}), size=1, call=call)
    log.add("in", result(2, {"resultType": "task", "taskId": "T", "status": "working"}), size=1)
    for n in range(37):
        clock.now += 2
        log.add("out", request(10 + n, "tasks/get", {"taskId": "T"}), size=1, call=call)
        log.add(
            "in", result(10 + n, {"taskId": "T", "status": "completed" if n == 36 else "working"}), size=1
        )
    texts = [row.text for row in log.groups()[0].rows()]
    assert texts[0] == "round 1: tools/call #1"
    assert texts[1] == "result #1 (tools/call) input required (1 question)"
    assert texts[2] == "round 2: tools/call #2"
    assert texts[-1] == "tasks/get: polled 37 times, 2.0 s apart, last completed"
    assert len(texts) == 5


def test_traffic_outside_calls_is_grouped_apart() -> None:
    log = WireLog()
    log.add("out", request(1, "initialize"), size=1)
    log.add("in", result(1, {}), size=1)
    log.add("out", request(2, "tools/list"), size=1)
    log.add("in", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, size=1)
    log.add("out", request(3, "resources/subscribe", {"uri": "x"}), size=1)
    log.add("in", {"jsonrpc": "2.0", "method": "notifications/whatever"}, size=1)
    assert [(g.label, len(g.messages)) for g in log.groups()] == [
        ("connection", 2),
        ("listings", 2),
        ("subscriptions", 1),
        ("other messages", 1),
    ]


def test_the_ring_keeps_the_newest_and_counts_the_rest() -> None:
    log = WireLog(keep=10)
    for n in range(25):
        log.add("out", request(n, "ping"), size=1, call=(f"k{n}", f"tool {n}"))
    kept = log.messages()
    assert [m.seq for m in kept] == list(range(16, 26)) and log.total == 25
    assert "the last 10 of 25" in log.text()
    assert len(log.labels) <= 10 + 16


def test_off_keeps_nothing() -> None:
    log = WireLog(keep=0)
    assert log.add("out", request(1, "ping"), size=1) is None and len(log) == 0


def test_long_strings_lists_and_nesting_are_clipped_saying_how_much() -> None:
    text = "x" * (STRING_KEEP * 10)
    assert clipped(text) == "x" * STRING_KEEP + f"… [{len(text):,} characters]"
    items = clipped(list(range(LIST_KEEP + 7)))
    assert len(items) == LIST_KEEP + 1 and items[-1] == "[… 7 more items]"
    deep: Any = {}
    for _ in range(40):
        deep = {"a": deep}
    flat = json.dumps(clipped(deep))
    assert "nested deeper" in flat and len(flat) < 1000


def test_filters() -> None:
    log = WireLog()
    log.add("out", request(1, "tools/call", {"name": "a"}), size=1, call=("k1", "tool a"))
    log.add("out", request(2, "tools/call", {"name": "b"}), size=1, call=("k2", "tool b"))
    log.add("in", result(2, {}), size=1)
    assert [m.id for m in log.messages(call="tool b")] == [2, 2]
    assert [m.id for m in log.messages(call="k1")] == [1]
    assert [m.direction for m in log.messages(direction="in")] == ["in"]
    assert len(log.messages(method="tools/call")) == 3


def test_the_view_state_is_bounded_and_literal() -> None:
    log = WireLog()
    for n in range(150):
        log.add(
            "out",
            request(n, "tools/call", {"name": "\x1b[31mred"}),
            size=1,
            call=(f"k{n}", "tool \u202eevil"),
        )
    state = view_state(log.groups(), total=log.total, kept=len(log), keep=log.keep)
    assert len(state["groups"]) == 100 and state["earlier"] == 50
    assert state["groups"][0]["label"] == "tool U+202Eevil"
    json.dumps(state)  # JSON all through


def test_the_http_exchange_of_an_answer_goes_with_its_call() -> None:
    log = WireLog()
    log.add("out", request(1, "tools/call", {"name": "ask"}), size=1, call=("k", "tool ask"))
    log.add("in", request(0, "elicitation/create", {"message": "?"}), size=1)
    log.add("out", result(0, {"action": "decline"}), size=1)
    kept = log.add_http("POST", "http://h/mcp", 202, {}, answers=[0])
    assert kept is not None and kept.call == "k" and kept.about == "elicitation/create"


def test_scrub_treats_every_json_like_shape_alike() -> None:
    """Parsed JSON takes the exact-type path, other mappings and sequences the general one: same result."""
    from collections import OrderedDict
    from types import MappingProxyType

    from mcp_widgets.core.redaction import REDACTED, scrub

    typed = typed_pattern(["Hunter2", 4242])
    assert typed is not None
    parsed = {"a": ["say Hunter2", 4242, 42, 4242.0, True, None], "Hunter2": {"n": 1}}
    expected = {"a": [f"say {REDACTED}", REDACTED, 42, REDACTED, True, None], REDACTED: {"n": 1}}
    assert scrub(parsed, typed) == expected
    other = OrderedDict(a=("say Hunter2", 4242, 42, 4242.0, True, None), Hunter2=MappingProxyType({"n": 1}))
    assert scrub(other, typed) == expected


def test_a_long_string_is_redacted_where_it_is_cut_and_searched_only_there() -> None:
    """A value that starts before the cut is redacted whole (never its first characters kept), and a 5 MB
    string is searched in its kept head only."""
    typed = typed_pattern([CANARY])
    assert typed is not None
    cut = "x" * (STRING_KEEP - 5) + CANARY + "y" * 5_000_000 + CANARY
    kept = clipped({"text": cut}, typed=typed)["text"]
    assert kept.startswith("x" * (STRING_KEEP - 5) + "[redacted]")
    assert "Zanz" not in kept and kept.endswith(f"… [{len(cut):,} characters]")
    line = redact_head("x" * (HEAD_KEEP - 3) + CANARY + "y" * 50, typed)
    assert line == "x" * (HEAD_KEEP - 3) + "[redacted]…"
    searched: list[int] = []

    class Counting:
        def finditer(self, text: str) -> Any:
            searched.append(len(text))
            return typed.finditer(text)

    redact_head(cut, Counting())  # type: ignore[arg-type]
    assert sum(searched) < 20_000


def test_json_size_is_the_compact_json_length_without_writing_it() -> None:
    """Exact for what has no escapes (any nesting, keys, numbers, the three constants, tuples and other
    mappings as JSON writes them; non-ASCII counted in UTF-8 bytes); with a limit it stops soon past it."""
    from collections import OrderedDict

    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(st.characters(blacklist_categories=["Cc", "Cs"], blacklist_characters='"\\'), max_size=12)
    leaves = st.none() | st.booleans() | st.integers() | text
    values = st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=5)
            | st.dictionaries(text, inner, max_size=5)
            | st.builds(tuple, st.lists(inner, max_size=3))
            | st.builds(OrderedDict, st.dictionaries(text, inner, max_size=3))
        ),
        max_leaves=30,
    )

    @settings(max_examples=300, deadline=None)
    @given(values)
    def exact(value: Any) -> None:
        written = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        assert json_size(value) == len(written)

    exact()
    big = {"log": ["x" * 1000] * 1000}
    assert 2000 < json_size(big, limit=2000) < 4000  # stopped after a couple of lines, not a megabyte
    assert json_size(big) > 1_000_000


def test_a_line_of_json_lines_is_one_line_whatever_the_server_sent() -> None:
    """A server's U+2028, U+2029 and NEL stay escaped in a saved line: `splitlines` (and JavaScript) would
    otherwise cut the line there, and the file would not read back."""
    from mcp_widgets.core.wire import json_line

    record = {"text": "a\u2028b\u2029c\x85d\x1ce", "é": "ü"}
    line = json_line(record)
    assert line.splitlines() == [line] and "é" in line  # one line, still UTF-8 text
    assert json.loads(line) == record
