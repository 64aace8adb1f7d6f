"""The wire's redaction policy (`core.wire._redaction`), read alone: what of a message is kept, what becomes
a marker, and what a marker looks like. What a person typed never reaches the wire's records: an answer's
content, a round's answers, a form's arguments and URI, a completion's typed value and its suggestions, and
any echo of a typed value a server sends back; credentials and query strings of HTTP exchanges neither.
"""

from __future__ import annotations

import json
import re

from mcp_widgets.core.redaction import typed_pattern
from mcp_widgets.core.wire import (
    WireLog,
    http_headers,
    http_path,
    is_answer,
    json_size,
    kept_body,
    redact,
    redacted_fields,
)
from tests.inprocess.core.test_wire import dumped, request, result  # the wire tests' messages

CANARY = "Zanzibar-Canary-77"


# -- what a marker looks like ---------------------------------------------------------------------------


def test_markers_name_fields_never_values() -> None:
    assert redacted_fields({}) == "[redacted: no fields]"
    assert redacted_fields("x") == "[redacted]"
    many = {f"f{n}": n for n in range(20)}
    assert redacted_fields(many).endswith(", …]")


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


def test_request_state_keeps_only_its_size() -> None:
    """A server's requestState may carry earlier answers in any encoding (the demo server's does)."""
    log = WireLog()
    asked = result(1, {"resultType": "input_required", "inputRequests": {}, "requestState": "abc" * 10})
    kept = log.add("in", asked, size=1)
    assert kept is not None and kept.body["result"]["requestState"] == "[opaque: 30 characters]"
    retry = log.add("out", request(2, "tools/call", {"name": "x", "requestState": {"a": 1}}), size=1)
    assert retry is not None and retry.body["params"]["requestState"] == "[opaque]"


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


def test_a_big_message_keeps_its_size_and_no_typed_value() -> None:
    log = WireLog()
    typed = typed_pattern([CANARY])
    body = result(1, {"content": [{"type": "text", "text": f"hi {CANARY} " + "y" * 10_000}]})
    kept = log.add("in", body, size=json_size(body), typed=lambda _key: typed)
    assert kept is not None and CANARY not in kept.text and "hi [redacted] yyy" in kept.text
    assert kept.size == len(json.dumps(body, separators=(",", ":")))
    assert len(kept.text) < 1000 and kept.body["result"]["content"][0]["text"].endswith("[10,022 characters]")


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


# -- the policy's own functions, message by message ------------------------------------------------------


def test_a_message_with_nothing_typed_is_kept_as_it_is() -> None:
    """The policy changes only what it must: the same object comes back, and its JSON text is kept."""
    body = request(1, "tools/call", {"name": "book", "arguments": {"who": "Ann"}})
    assert redact(body, sent=True, answers=None, typed_arguments=False) is body
    raw = json.dumps(body)
    assert kept_body(body, body, raw, typed_pattern([CANARY])) == (body, raw)


def test_a_template_forms_uri_is_redacted_and_a_codes_uri_is_kept() -> None:
    body = request(1, "resources/read", {"uri": f"demo://people/{CANARY}"})
    typed = redact(body, sent=True, answers=None, typed_arguments=True)
    assert typed["params"]["uri"] == "[redacted: a URI filled in from a template form]"
    assert redact(body, sent=True, answers=None, typed_arguments=False) is body


def test_a_prompt_forms_arguments_become_their_names() -> None:
    body = request(1, "prompts/get", {"name": "greet", "arguments": {"who": CANARY}})
    kept = redact(body, sent=True, answers=None, typed_arguments=True)
    assert kept["params"] == {"name": "greet", "arguments": "[redacted: 1 argument: who]"}


def test_a_completion_keeps_what_is_completed_never_the_value_or_the_context() -> None:
    asked = request(
        4,
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "greet"},
            "argument": {"name": "city", "value": CANARY[:8]},
            "context": {"arguments": {"who": CANARY}},
        },
    )
    kept = redact(asked, sent=True, answers=None, typed_arguments=False)
    assert kept["params"]["ref"] == {"type": "ref/prompt", "name": "greet"}
    assert kept["params"]["argument"] == {"name": "city", "value": "[redacted: the value typed so far]"}
    assert kept["params"]["context"] == {"arguments": "[redacted: 1 argument: who]"}
    values = result(4, {"completion": {"values": [CANARY, "Zurich"], "total": 2, "hasMore": False}})
    answered = redact(values, sent=False, answers="completion/complete", typed_arguments=False)
    assert answered["result"]["completion"] == {
        "values": "[redacted: 2 values]",
        "total": 2,
        "hasMore": False,
    }
    error = {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": f"no {CANARY}", "data": CANARY}}
    refused = redact(error, sent=False, answers="completion/complete", typed_arguments=False)
    assert refused["error"] == {"code": -32602, "message": "[redacted: a completion's error message]"}


def test_any_answer_we_send_shaped_as_an_elicitations_is_redacted() -> None:
    """A server may reuse an id: an answer we send with `action` and `content` is typed, whatever it
    answers."""
    answer = result(9, {"action": "accept", "content": {"name": CANARY}})
    assert is_answer(answer["result"]) and not is_answer({"content": []})
    kept = redact(answer, sent=True, answers="ping", typed_arguments=False)
    assert kept["result"] == {"action": "accept", "content": "[redacted: 1 field: name]"}
    heard = redact(answer, sent=False, answers=None, typed_arguments=False)
    assert heard is answer  # what a server sends is searched for typed values instead (`kept_body`)


def test_an_echo_is_redacted_in_a_long_message_where_it_is_kept() -> None:
    typed = typed_pattern([CANARY])
    body = result(1, {"content": [{"type": "text", "text": "y" * 5000 + CANARY}], "note": CANARY})
    kept, text = kept_body(body, body, None, typed)
    assert kept["result"]["note"] == "[redacted]" and CANARY not in text
    assert kept["result"]["content"][0]["text"].endswith("[5,018 characters]")


def test_an_http_exchange_keeps_its_path_never_its_query_credentials_or_a_typed_value() -> None:
    typed = typed_pattern([CANARY])
    assert http_path("https://user:pw@h.example/mcp?code=sekret#frag") == "/mcp"
    assert http_path(f"https://h.example/people/{CANARY}/mcp", typed) == "/people/[redacted]/mcp"
    echoed = http_headers({"Mcp-Name": f"ask {CANARY}", "WWW-Authenticate": 'Bearer realm="x"'}, typed)
    assert echoed == {"Mcp-Name": "ask [redacted]", "WWW-Authenticate": 'Bearer realm="x"'}
    assert http_headers({"Proxy-Authorization": "Basic dXNlcjpwdw==", "Set-Cookie": "s=1"}) == {
        "Proxy-Authorization": "[redacted: Basic token]",
        "Set-Cookie": "[redacted: cookies]",
    }
