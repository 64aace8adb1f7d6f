"""The wire's pure part: redaction at capture, clipping, the ring, grouping, the text and the view's JSON."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from mcp_widgets.core.redaction import HEAD_KEEP, redact_head, typed_pattern
from mcp_widgets.core.wire import (
    LIST_KEEP,
    STRING_KEEP,
    WireLog,
    clipped,
    error_name,
    http_headers,
    json_size,
    redacted_fields,
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


def test_an_accepted_answer_keeps_its_field_names_never_its_values() -> None:
    log = WireLog()
    call = ("c1", "tool ask")
    log.add("out", request(1, "tools/call", {"name": "ask", "arguments": {}}), size=10, call=call)
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "seats": {"type": "integer"}}}
    log.add("in", request(0, "elicitation/create", {"message": "Who?", "requestedSchema": schema}), size=10)
    answer = result(0, {"action": "accept", "content": {"name": CANARY, "seats": 3}})
    kept = log.add("out", answer, size=10)
    assert kept is not None
    assert kept.body["result"] == {"action": "accept", "content": "[redacted: 2 fields: name, seats]"}
    assert kept.method == "elicitation/create" and kept.call == "c1"  # the only call open
    assert CANARY not in dumped(log)


def test_a_declined_answer_is_kept_as_it_is() -> None:
    log = WireLog()
    log.add("in", request(0, "elicitation/create", {"message": "Who?"}), size=10)
    kept = log.add("out", result(0, {"action": "decline"}), size=10)
    assert kept is not None and kept.body["result"] == {"action": "decline"}


def test_input_responses_keep_their_action_not_their_content() -> None:
    log = WireLog()
    params = {
        "name": "ask",
        "inputResponses": {"q": {"action": "accept", "content": {"name": CANARY}}, "r": "odd"},
        "requestState": "opaque",
    }
    kept = log.add("out", request(2, "tools/call", params), size=10, call=("c", "tool ask"))
    assert kept is not None
    assert kept.body["params"]["inputResponses"] == {
        "q": {"action": "accept", "content": "[redacted: 1 field: name]"},
        "r": "[redacted]",
    }
    assert kept.body["params"]["requestState"] == "[opaque: 6 characters]"
    update = log.add(
        "out", request(3, "tasks/update", {"taskId": "t", "inputResponses": params["inputResponses"]}), size=1
    )
    assert update is not None and CANARY not in json.dumps(update.body)


def test_typed_arguments_become_their_names_and_code_arguments_stay() -> None:
    log = WireLog()
    typed = request(1, "tools/call", {"name": "book", "arguments": {"who": CANARY, "n": 2}})
    kept = log.add("out", typed, size=10, call=("a", "tool book"), typed_arguments=True)
    assert kept is not None and kept.body["params"]["arguments"] == "[redacted: 2 arguments: who, n]"
    plain = log.add("out", request(2, "tools/call", {"name": "book", "arguments": {"who": "Ann"}}), size=1)
    assert plain is not None and plain.body["params"]["arguments"] == {"who": "Ann"}


def test_an_echo_of_a_typed_value_is_redacted_anywhere_in_any_message() -> None:
    log = WireLog()
    pattern = typed_pattern([CANARY])
    seen: list[str | None] = []

    def typed(key: str | None) -> re.Pattern[str] | None:
        seen.append(key)
        return pattern

    log.add("out", request(1, "tools/call", {"name": "x"}), size=1, call=("k", "tool x"), typed=typed)
    echo = {"content": [{"type": "text", "text": f"Hello {CANARY.upper()}!"}]}
    kept = log.add("in", result(1, echo), size=1, typed=typed)
    assert kept is not None and kept.body["result"]["content"][0]["text"] == "Hello [redacted]!"
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": CANARY}}
    log.add("in", note, size=1, typed=typed)
    assert seen[-2:] == ["k", None]  # the result is the call's; the log line came after it ended
    assert CANARY.lower() not in dumped(log).lower()


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


def test_http_headers_keep_mcp_ones_and_hide_credentials() -> None:
    headers = http_headers(
        {
            "Authorization": "Bearer sekret-token-123",
            "Cookie": "a=sekret",
            "Mcp-Session-Id": "0123456789abcdef",
            "Mcp-Protocol-Version": "2025-11-25",
            "Mcp-Name": "task-1",
            "content-type": "text/event-stream",
            "X-Other": "dropped",
        }
    )
    assert headers == {
        "Authorization": "[redacted: Bearer token]",
        "Cookie": "[redacted: cookies]",
        "Mcp-Session-Id": "01234567…",
        "Mcp-Protocol-Version": "2025-11-25",
        "Mcp-Name": "task-1",
        "content-type": "text/event-stream",
    }
    log = WireLog()
    log.add("out", request(3, "tools/call", {"name": "x"}), size=1, call=("k", "tool x"))
    kept = log.add_http(
        "POST", "https://u:p@h.example/mcp?code=sekret", 202, {"Authorization": "Bearer sekret"}, ids=[3]
    )
    assert kept is not None and kept.call == "k" and kept.about == "tools/call"
    assert kept.summary == "HTTP 202 POST /mcp" and "sekret" not in dumped(log)


def test_markers_name_fields_never_values() -> None:
    assert redacted_fields({}) == "[redacted: no fields]"
    assert redacted_fields("x") == "[redacted]"
    many = {f"f{n}": n for n in range(20)}
    assert redacted_fields(many).endswith(", …]")


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


def test_request_state_keeps_only_its_size() -> None:
    """A server's requestState may carry earlier answers in any encoding (the demo server's does)."""
    log = WireLog()
    asked = result(1, {"resultType": "input_required", "inputRequests": {}, "requestState": "abc" * 10})
    kept = log.add("in", asked, size=1)
    assert kept is not None and kept.body["result"]["requestState"] == "[opaque: 30 characters]"
    retry = log.add("out", request(2, "tools/call", {"name": "x", "requestState": {"a": 1}}), size=1)
    assert retry is not None and retry.body["params"]["requestState"] == "[opaque]"


def test_a_message_that_quotes_no_typed_value_is_not_walked_and_one_that_does_is() -> None:
    log = WireLog()
    pattern = typed_pattern([CANARY])
    body = result(1, {"content": [{"type": "text", "text": f"hi {CANARY}"}], "n": list(range(80))})
    raw = json.dumps(body)
    kept = log.add("in", body, size=len(raw), raw=raw, typed=lambda _: pattern)
    assert kept is not None and CANARY not in json.dumps(kept.body)
    assert kept.body["result"]["n"][-1] == 79  # short: kept whole
    quiet = result(2, {"content": [{"type": "text", "text": "hello"}]})
    kept = log.add("in", quiet, size=1, raw=json.dumps(quiet), typed=lambda _: pattern)
    assert kept is not None and kept.body == quiet


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


def test_a_big_message_keeps_its_size_and_no_typed_value() -> None:
    log = WireLog()
    typed = typed_pattern([CANARY])
    body = result(1, {"content": [{"type": "text", "text": f"hi {CANARY} " + "y" * 10_000}]})
    kept = log.add("in", body, size=json_size(body), typed=lambda _key: typed)
    assert kept is not None and CANARY not in kept.text and "hi [redacted] yyy" in kept.text
    assert kept.size == len(json.dumps(body, separators=(",", ":")))
    assert len(kept.text) < 1000 and kept.body["result"]["content"][0]["text"].endswith("[10,022 characters]")


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
        lambda inner: st.lists(inner, max_size=5)
        | st.dictionaries(text, inner, max_size=5)
        | st.builds(tuple, st.lists(inner, max_size=3))
        | st.builds(OrderedDict, st.dictionaries(text, inner, max_size=3)),
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
