"""The wire (#30) against peers written by others: the TypeScript SDK's servers (server.mjs, tasks_server.mjs,
server-everything), fastmcp, our 2026-07-28 tasks server over streamable HTTP, and the sign-in rig.

What is checked is what a person reads and what is kept: every question sits in its call's group, a task's
polls fold into one row ("polled N times"), an answer's content is a marker naming its fields, the URL of a
URL-mode question is there, HTTP exchanges keep their status and `Mcp-*` headers; and no canary typed into a
form, no token, authorization code or client secret is in `records()`, the saved JSON Lines file, the text,
the repr or the live view's state, in any escaping (the servers here echo every answer back).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.auth import OAuthClientInformationFull

import mcp_widgets as mw
from mcp_widgets import handlers
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.wire import WireGroup
from tests.inprocess.client.test_secrets import leaks
from tests.interop.nodejs import HERE, NODE_MODULES, SDK, node_or_skip
from tests.interop.test_interop_ts_tasks import http_peer
from tests.interop.test_oauth_signin import Person, Store, parse
from tests.servers.launch import serving
from tests.servers.oauth.rig import Browser

TS_SERVER = HERE / "server.mjs"
TS_TASKS = HERE / "tasks_server.mjs"
FASTMCP = HERE / "fastmcp_server.py"
EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
TASKS2026 = Path(__file__).parents[1] / "servers" / "tasks2026.py"

CANARY = 'Quokka-"Zoé"-4815<&>'
"""Typed into every form: a quote, an accent and HTML characters, so each escaping of it is looked for."""
POLLED = re.compile(r"^tasks/get: polled (\d+) times?\b")

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]


# -- helpers -------------------------------------------------------------------------------------------------
def everything(srv: Server, tmp_path: Path) -> str:
    """Every way the wire can be read, as one text: records, the saved file, the text, the repr, the live
    view's state and `mw.wire()`."""
    saved = srv.wire.save(tmp_path / f"{srv.name}.jsonl").read_text(encoding="utf-8")
    lines = saved.splitlines()
    assert len(lines) == len(srv.wire.records())
    for line in lines:
        json.loads(line)
    view = srv.wire.view()
    try:
        state = json.dumps(view.state, ensure_ascii=False)
    finally:
        view.close()
    return "\n".join(
        [
            json.dumps(srv.wire.records(), ensure_ascii=False),
            saved,
            repr(srv.wire),
            srv.wire.text(),
            state,
            json.dumps(mw.wire().records(), ensure_ascii=False, default=str),
        ]
    )


def assert_kept_nothing_of(kept: str, *values: str) -> None:
    """No value in any escaping, nor its first word: a server may quote it inside JSON text inside JSON,
    escaped twice (with the accent kept), which no list of escapings covers."""
    assert values
    assert leaks(kept, values) == []
    for value in values:
        stem = value.split("-")[0]
        assert len(stem) >= 6 and stem.lower() not in kept.lower(), f"{stem!r} is kept"


def group(srv: Server, label: str) -> WireGroup:
    """The newest group of the call (or traffic) named `label`."""
    found = [g for g in srv.wire.groups() if g.label == label]
    assert found, [g.label for g in srv.wire.groups()]
    return found[-1]


def poll_counts(calls: WireGroup) -> list[int]:
    """How many polls each folded row of a call says it holds; every poll of the call is in one of them."""
    rows = calls.rows()
    counts = [int(m.group(1)) for row in rows if (m := POLLED.match(row.text))]
    asked = [m for m in calls.messages if m.method == "tasks/get" and m.direction == "out"]
    assert sum(counts) == len(asked)
    in_rows = [m for row in rows if POLLED.match(row.text) for m in row.messages]
    polls = [m for m in calls.messages if m.method == "tasks/get" and m.kind != "http"]
    assert all(m in in_rows for m in polls), "a poll, or its answer, has a row of its own"
    return counts


def answer_rows(srv: Server, method: str = "elicitation/create") -> list[dict[str, Any]]:
    """Our answers to the server's questions, as kept."""
    return [r for r in srv.wire.records(method=method, direction="out") if r["kind"] == "result"]


@contextlib.contextmanager
def listening(argv: list[str], what: str) -> Iterator[str]:
    """A server process printing "PORT <n>"; yields its MCP URL."""
    with serving(argv, what) as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.contextmanager
def ts_server(kind: str, **options: Any) -> Iterator[Server]:
    """server.mjs (the TypeScript SDK) over stdio or streamable HTTP."""
    node = node_or_skip(SDK)
    with contextlib.ExitStack() as stack:
        if kind == "stdio":
            target: Any = [node, str(TS_SERVER), "stdio"]
        else:
            target = stack.enter_context(listening([node, str(TS_SERVER), "http", "0"], "server.mjs"))
        srv = stack.enter_context(connect_sync(target, name=f"ts-{kind}", timeout=60, **options))
        yield srv


def http_headers(srv: Server, carried: str) -> list[dict[str, str]]:
    """The headers kept of each HTTP exchange that carried a `carried` request (lower-case names)."""
    return [
        {k.lower(): v for k, v in r["headers"].items()}
        for r in srv.wire.records()
        if r["kind"] == "http" and r["carried"] == carried
    ]


# -- the TypeScript SDK --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_ts_an_answer_is_a_marker_and_every_echo_of_it_is_redacted(kind: str, tmp_path: Path) -> None:
    # server.mjs echoes the parsed answer and our raw JSON-RPC response (a JSON string inside JSON text).
    script = handlers.scripted([{"name": CANARY, "email": "ada@example.org", "date": "2024-02-29"}])
    with ts_server(kind, handler=script) as srv:
        result = srv.call_tool_sync("elicit", {"shape": "defaults"})
        assert json.loads(result.content[0].text)["content"]["name"] == CANARY  # the server got it
        kept = everything(srv, tmp_path)
        call = group(srv, "tool elicit")
        (answer,) = answer_rows(srv)
        exchanges = http_headers(srv, "tools/call")
    assert_kept_nothing_of(kept, CANARY)
    assert answer["call"] == call.key
    assert answer["message"]["result"]["action"] == "accept"
    marker = answer["message"]["result"]["content"]
    assert marker.startswith("[redacted: 11 fields: name, email, date, ")
    texts = [row.text for row in call.rows() if row.messages[0].kind != "http"]  # its exchanges: apart
    assert texts[0].startswith("tools/call #")
    assert texts[-3].startswith("elicitation/create #")
    assert texts[-2].startswith("result #") and texts[-2].endswith("(elicitation/create) accept")
    assert texts[-1].startswith("result #") and "(tools/call)" in texts[-1]
    assert call.outcome == "ok"
    if kind == "http":
        assert exchanges and all(h["mcp-protocol-version"] == "2025-11-25" for h in exchanges)
        assert all(h["mcp-session-id"].endswith("…") for h in exchanges)
    else:
        assert exchanges == []


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_ts_a_url_mode_question_is_a_row_of_its_call_with_its_url(kind: str, tmp_path: Path) -> None:
    with ts_server(kind, handler=handlers.decline) as srv:
        result = srv.call_tool_sync("elicit_url", {})
        assert json.loads(result.content[0].text) == {"action": "decline"}
        call = group(srv, "tool elicit_url")
        asked = [m for m in call.messages if m.method == "elicitation/create" and m.kind == "request"]
        (answer,) = answer_rows(srv)
        texts = [row.text for row in call.rows() if row.messages[0].kind != "http"]  # its exchanges: apart
        kept = everything(srv, tmp_path)
    (question,) = asked
    assert question.direction == "in"
    assert question.body["params"]["mode"] == "url"
    assert question.body["params"]["url"] == "https://example.org/sign-in"
    assert any(t.startswith("elicitation/create #") for t in texts)
    assert answer["message"]["result"] == {"action": "decline"}
    assert texts[-2].endswith("(elicitation/create) decline")
    assert "https://example.org/sign-in" in kept  # the server's URL is no secret: it is kept


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_ts_task_polls_fold_and_its_question_is_in_the_call(kind: str, tmp_path: Path) -> None:
    # tasks_server.mjs: the question comes through tasks/result, tied to the task by related-task metadata;
    # the SDK also pushes notifications/tasks/status between the polls.
    node = node_or_skip(SDK)
    with contextlib.ExitStack() as stack:
        if kind == "stdio":
            target: Any = [node, str(TS_TASKS), "stdio", "5000"]
        else:
            target = stack.enter_context(http_peer(node))
        srv = stack.enter_context(
            connect_sync(
                target, name=f"ts-tasks-{kind}", timeout=60, handler=handlers.scripted([{"name": CANARY}])
            )
        )
        result = srv.call_tool_sync("ask_required", {})
        assert json.loads(result.content[0].text) == {"action": "accept", "content": {"name": CANARY}}
        call = group(srv, "tool ask_required")
        (answer,) = answer_rows(srv)
        kept = everything(srv, tmp_path)
        others = [g.label for g in srv.wire.groups() if g.kind != "call"]
    assert_kept_nothing_of(kept, CANARY)
    question = [m for m in call.messages if m.method == "elicitation/create" and m.kind == "request"]
    assert len(question) == 1  # in the call's group, not in "other messages"
    related = question[0].body["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
    assert any(m.method == "tasks/result" for m in call.messages)
    assert answer["call"] == call.key
    assert answer["message"]["result"] == {"action": "accept", "content": "[redacted: 1 field: name]"}
    statuses = [m for m in call.messages if m.method == "notifications/tasks/status"]
    assert statuses and all(m.body["params"]["taskId"] == related for m in statuses)
    counts = poll_counts(call)
    assert max(counts) >= 2, [row.text for row in call.rows()]  # folded: fewer rows than polls
    assert call.outcome == "ok"
    assert "other messages" not in others


# -- fastmcp -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_fastmcp_an_answer_is_a_marker(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("fastmcp", reason="fastmcp is not installed (pip install -e '.[test]')")
    answer = {"name": CANARY, "age": 36, "height": 1.7, "member": True, "color": "blue"}
    with contextlib.ExitStack() as stack:
        if kind == "stdio":
            target: Any = [sys.executable, str(FASTMCP), "stdio"]
        else:
            target = stack.enter_context(listening([sys.executable, str(FASTMCP), "http"], "fastmcp"))
        srv = stack.enter_context(
            connect_sync(
                target, name=f"fastmcp-{kind}", mode="legacy", timeout=60, handler=handlers.scripted([answer])
            )
        )
        echo = json.loads(srv.call_tool_sync("person", {}).content[0].text)
        assert echo["data"]["name"] == CANARY
        kept = everything(srv, tmp_path)
        call = group(srv, "tool person")
        (sent,) = answer_rows(srv)
        exchanges = http_headers(srv, "tools/call")
    assert_kept_nothing_of(kept, CANARY)
    assert sent["call"] == call.key
    marker = "[redacted: 6 fields: name, age, height, member, color, nickname]"  # nickname: its default
    assert sent["message"]["result"]["content"] == marker
    assert call.outcome == "ok"
    assert [m.kind for m in call.messages if m.kind != "http"] == ["request", "request", "result", "result"]
    if kind == "http":
        assert exchanges and all(h.get("content-type") for h in exchanges)


# -- server-everything ---------------------------------------------------------------------------------------
def test_everything_a_tool_form_and_a_form_filled_from_python_leave_no_canary(tmp_path: Path) -> None:
    node = node_or_skip(EVERYTHING)
    typed_form = 'Wombat-"Zoé"-1623<&>'
    typed_card = 'Numbat-"Zoé"-4223<&>'
    cards: list[Any] = []

    async def person(card: Any) -> None:  # fills the real form, as a person would, and clicks Accept
        cards.append(card)
        card.fill(name=typed_card)
        card.accept()

    with connect_sync([node, str(EVERYTHING), "stdio"], name="everything", timeout=60, handler=person) as srv:
        form = srv.form("echo")
        try:
            form.fill(message=typed_form)
            call = form.run()
            assert call is not None
            assert call.future.result(timeout=30).content[0].text == f"Echo: {typed_form}"
            asyncio.run(form.wait())  # the form shows its result (a posted callback) before the next call
        finally:
            form.close()
        asked = srv.call_tool_sync("trigger-elicitation-request", {})
        assert f"Name: {typed_card}" in asked.content[1].text  # the server quotes the answer (twice)
        assert len(cards) == 1
        kept = everything(srv, tmp_path)
        sent = srv.wire.records(call="tool echo", method="tools/call", direction="out")
        got = srv.wire.records(call="tool echo", method="tools/call", direction="in")
        (answer,) = answer_rows(srv)
    assert_kept_nothing_of(kept, typed_form, typed_card)
    assert [r["message"]["params"]["arguments"] for r in sent] == ["[redacted: 1 argument: message]"]
    assert [r["message"]["result"]["content"][0]["text"] for r in got] == ["Echo: [redacted]"]
    assert answer["message"]["result"]["action"] == "accept"
    assert answer["message"]["result"]["content"].startswith("[redacted: ")


# -- our 2026-07-28 tasks server -----------------------------------------------------------------------------
def test_tasks2026_over_http_polls_fold_input_responses_are_markers_mcp_name_is_kept(tmp_path: Path) -> None:
    # ask_then_echo quotes the answer in the task's status messages, in every poll after it.
    argv = [sys.executable, str(TASKS2026), "http", "60000", "state"]
    with (
        listening(argv, "the 2026-07-28 task server") as url,
        connect_sync(url, name="t26", timeout=60, handler=handlers.scripted([{"name": CANARY}])) as srv,
    ):
        assert srv.protocol_version == "2026-07-28"
        srv.call_tool_sync("ask_then_echo", {"linger": 0.5})
        call = group(srv, "tool ask_then_echo")
        kept = everything(srv, tmp_path)
        (update,) = srv.wire.records(method="tasks/update", direction="out")
        created = next(m for m in call.messages if m.method == "tools/call" and m.kind == "result")
        task = created.body["result"]["taskId"]
        said = [
            m.body["result"].get("statusMessage", "")
            for m in call.messages
            if m.method == "tasks/get" and m.kind == "result"
        ]
        names = {c: [h.get("mcp-name") for h in http_headers(srv, c)] for c in ("tools/call", "tasks/get")}
        methods = {h.get("mcp-method") for h in http_headers(srv, "tasks/update")}
        updates = [h.get("mcp-name") for h in http_headers(srv, "tasks/update")]
    assert_kept_nothing_of(kept, CANARY)
    assert update["call"] == call.key
    responses = update["message"]["params"]["inputResponses"]
    assert responses == {"q1": {"action": "accept", "content": "[redacted: 1 field: name]"}}
    assert any("you said [redacted]" in s for s in said)  # the echo is there, without the value
    counts = poll_counts(call)
    assert len(counts) >= 2 and max(counts) >= 2, [row.text for row in call.rows()]
    assert call.outcome == "completed"
    assert names["tools/call"] == ["ask_then_echo"]
    assert names["tasks/get"] and set(names["tasks/get"]) == {task}
    assert updates == [task] and methods == {"tasks/update"}


# -- sign-in -------------------------------------------------------------------------------------------------
class Typist(Person):
    """Consents to each sign-in card; types the canary into the form."""

    async def __call__(self, card: Any) -> None:
        if card.kind == "form":
            self.cards.append(card)
            card.fill(name=CANARY)
            card.accept()
            return
        await super().__call__(card)


def register_confidential_client(issuer: str) -> dict[str, Any]:
    """A client registered outside the notebook (RFC 7591), with a secret sent as HTTP Basic: the token
    request carries it in its Authorization header."""
    meta = {
        "client_name": "wire test",
        "redirect_uris": ["http://127.0.0.1/callback"],  # a native client's loopback: any port (RFC 8252)
        "application_type": "native",
        "token_endpoint_auth_method": "client_secret_basic",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    request = urllib.request.Request(
        f"{issuer}/reg", data=json.dumps(meta).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        registered: dict[str, Any] = json.loads(response.read())
    assert registered["client_secret"]
    return registered


@pytest.mark.browser  # its own Playwright: runs after the tests that start event loops
def test_sign_in_keeps_no_token_code_or_client_secret(
    issuer: str, mcp_url: str, browser: Browser, tmp_path: Path
) -> None:
    registered = register_confidential_client(issuer)
    person, store = Typist(), Store()
    store.client_info = OAuthClientInformationFull.model_validate(registered)

    def work() -> tuple[Any, Server]:
        srv = connect_sync(
            mcp_url, name="rig-wire", handler=person, token_store=store, client_id=registered["client_id"]
        )
        return parse(srv.call_tool_sync("ask_name")), srv

    running = person.run(work)
    landing = browser.sign_in(person.next_address(running), context=browser.fresh())
    result, srv = running.result(timeout=60)
    try:
        assert result["answer"] == {"action": "accept", "content": {"name": CANARY}}
        assert result["caller"]["client_id"] == registered["client_id"]
        kept = everything(srv, tmp_path)
        exchanges = [r for r in srv.wire.records() if r["kind"] == "http"]
    finally:
        srv.close()
    basic = f"{registered['client_id']}:{registered['client_secret']}"
    secrets = [
        *store.seen,  # access and refresh tokens
        landing.query["code"],
        registered["client_secret"],
        base64.b64encode(basic.encode()).decode(),
    ]
    assert len(store.seen) >= 1 and all(len(s) >= 16 for s in secrets)
    assert [n for n, secret in enumerate(secrets) if secret in kept] == []  # which, not the secret itself
    assert_kept_nothing_of(kept, CANARY)
    token = [r for r in exchanges if r["method"] == "POST /token"]
    assert [r["status"] for r in token] == [200]
    assert {k.lower(): v for k, v in token[0]["headers"].items()}[
        "authorization"
    ] == "[redacted: Basic token]"
    signed = [
        {k.lower(): v for k, v in r["headers"].items()} for r in exchanges if r["method"] == "POST /mcp"
    ]
    assert signed[0].get("www-authenticate", "").startswith("Bearer")  # the 401 that started it
    assert [h["authorization"] for h in signed if "authorization" in h] == ["[redacted: Bearer token]"] * (
        len(signed) - 1
    )
    assert any(r["carried"] == "tools/call" and r["call"] for r in exchanges)
