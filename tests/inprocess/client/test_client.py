"""The client against real demo servers (in-process, stdio, streamable HTTP), both protocol generations.

No kernel here (`kernel_support() == "none"`): handlers answer, and a form nobody can see is declined.
Waiting cells, clicks and interrupts in a real kernel are in tests/kernel/test_client_kernel.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import mcp_types
import pytest

import mcp_widgets.client as client
from mcp_widgets import handlers
from mcp_widgets import kernel as _bridge
from mcp_widgets.client import (
    ConnectError,
    ConnectionClosedError,
    RequestTimeout,
    ServerError,
    connect,
    connect_sync,
    set_default_handler,
)
from mcp_widgets.client.questions import answering
from mcp_widgets.core.exceptions import SchemaError
from mcp_widgets.core.history import default_history
from mcp_widgets.core.outcome import Action, Reason
from tests.servers import TESTS
from tests.servers.demo import build_server, parse
from tests.servers.launch import http_server, stdio_command, target

MODES = ["auto", "legacy"]
TRANSPORTS = ["inproc", "stdio", "http"]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with http_server() as (url, _proc):
        yield url


pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py


class Holder:
    """A handler that keeps each card pending until the test (or the server) ends it."""

    __name__ = "holder"

    def __init__(self) -> None:
        self.cards: list[Any] = []

    async def __call__(self, card: Any) -> None:
        self.cards.append(card)
        await card.wait()

    async def card(self, index: int = 0) -> Any:
        while len(self.cards) <= index:
            await asyncio.sleep(0.01)
        return self.cards[index]


async def ended(card: Any) -> Any:
    """Wait (running posted work, as a waiting cell does) until `card` has an outcome."""
    done: concurrent.futures.Future[Any] = concurrent.futures.Future()
    card.add_done_callback(lambda c: done.set_result(c.outcome))
    return await _bridge.wait_async(done)


def text(result: mcp_types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --------------------------------------------------------------------------- answering, every transport


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", TRANSPORTS)
def test_scripted_answers_reach_the_server(kind: str, mode: str, http_url: str) -> None:
    script = handlers.scripted([{"name": "Ada"}, "decline", "cancel"])
    srv = connect_sync(target(kind, http_url), handler=script, mode=mode)
    try:
        assert srv.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "accept", "content": {"name": "Ada"}}
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "cancel"}
        assert script.remaining == 0
    finally:
        srv.close()
    assert not srv.connected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", TRANSPORTS)
def test_await_with_handler(kind: str, mode: str, http_url: str) -> None:
    async def scenario() -> None:
        async with connect(target(kind, http_url), handler=handlers.accept_defaults, mode=mode) as srv:
            result = parse(await srv.call_tool("ask_defaults"))
            assert result == {"action": "accept", "content": {"size": 3, "color": "red", "fast": True}}
            twice = parse(await srv.call_tool("ask_twice"))
            # "name" is required without a default: accept_defaults declines; the confirmation is accepted.
            assert twice == {"first": {"action": "decline"}, "second": {"action": "accept", "content": {}}}

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_resolver_tool_and_prompt(mode: str) -> None:
    srv = connect_sync(
        build_server(), handler=handlers.scripted([{"nick": "ace"}, {"name": "Bo"}]), mode=mode
    )
    try:
        result = srv.call_tool_sync("resolved")
        assert [c.text for c in result.content if isinstance(c, mcp_types.TextContent)] == ["hello ace"]
        prompt = srv.get_prompt_sync("greeting")
        assert prompt.messages[0].content.text == "Greet Bo"
    finally:
        srv.close()


@pytest.mark.parametrize("mode", MODES)
def test_outcome_records_the_handler(mode: str) -> None:
    holder: list[Any] = []

    async def accept(card: Any) -> None:
        holder.append(card)
        card.fill(name="Cy")
        card.accept()

    accept.__name__ = "my_handler"
    srv = connect_sync(build_server(), handler=accept, mode=mode)
    try:
        srv.call_tool_sync("ask_name")
    finally:
        srv.close()
    (card,) = holder
    assert card.outcome.action is Action.ACCEPT
    assert card.outcome.reason is Reason.HANDLER
    assert card.outcome.by == "my_handler"
    assert card.result.content == {"name": "Cy"}


@pytest.mark.parametrize("mode", MODES)
def test_a_handlers_form_is_whole_from_the_start_and_stays_one_model(mode: str) -> None:
    # One model: nothing of a form is made later, whether its handler answers at once or waits first (code
    # that walks every model never sees it make models).
    seen: list[tuple[int, ...]] = []

    async def answers_at_once(card: Any) -> None:
        seen.append((len(card.card["rows"]),))
        card.fill(name="Di")
        card.accept()

    async def waits_first(card: Any) -> None:
        before = len(card.card["rows"])
        await asyncio.sleep(0)
        seen.append((before, len(card.card["rows"])))
        card.fill(name="Ed")
        card.accept()

    for handler, name in ((answers_at_once, "Di"), (waits_first, "Ed")):
        srv = connect_sync(build_server(), handler=handler, mode=mode)
        try:
            assert parse(srv.call_tool_sync("ask_name")) == {"action": "accept", "content": {"name": name}}
        finally:
            srv.close()
    assert seen == [(1,), (1, 1)]


@pytest.mark.parametrize("transport", ["sse", "auto"])
def test_sse_transport(transport: str) -> None:
    with (
        http_server(sse=True) as (url, _proc),
        connect_sync(
            url,
            transport=transport,
            handler=handlers.scripted([{"name": "Sse"}]),  # type: ignore[arg-type]
        ) as srv,
    ):
        assert "\n  sse " in repr(srv)  # "auto" falls back to SSE when streamable HTTP is refused
        assert parse(srv.call_tool_sync("ask_name"))["content"] == {"name": "Sse"}


def test_read_resource() -> None:
    with connect_sync(build_server()) as srv:
        result = srv.read_resource_sync("demo://motto")
        assert [c.text for c in result.contents] == ["ask, don't guess"]


# --------------------------------------------------------------------------- invalid schemas


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_invalid_schema_legacy_answers_32602(kind: str, http_url: str) -> None:
    srv = connect_sync(target(kind, http_url), handler=handlers.accept_defaults, mode="legacy")
    try:
        answer = parse(srv.call_tool_sync("bad_schema"))
    finally:
        srv.close()
    assert answer["error"] == -32602
    assert "property-type" in answer["message"] and "address" in answer["message"]


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_invalid_schema_modern_raises_schema_error(kind: str, http_url: str) -> None:
    srv = connect_sync(target(kind, http_url), handler=handlers.accept_defaults)
    try:
        with pytest.raises(SchemaError) as info:
            srv.call_tool_sync("bad_schema")
        assert info.value.code == -32602
        assert any(p.rule == "property-type" and p.property == "address" for p in info.value.problems)
        # The connection is still fine afterwards.
        assert parse(srv.call_tool_sync("ask_defaults"))["action"] == "accept"
    finally:
        srv.close()


# --------------------------------------------------------------------------- protocol generations


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_legacy_only_server_suggests_legacy_mode(kind: str, http_url: str) -> None:
    srv = connect_sync(target(kind, http_url), handler=handlers.decline)
    try:
        with pytest.raises(ServerError, match='mode="legacy"'):
            srv.call_tool_sync("legacy_only")
    finally:
        srv.close()
    legacy = connect_sync(target(kind, http_url), handler=handlers.decline, mode="legacy")
    try:
        assert [c.text for c in legacy.call_tool_sync("legacy_only").content] == ["decline"]
    finally:
        legacy.close()


def test_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="mode"):
        connect_sync(build_server(), mode="fast")


# --------------------------------------------------------------------------- several forms at once


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["inproc", "stdio"])
def test_two_questions_at_once(kind: str, mode: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(target(kind), handler=holder, mode=mode) as srv:
            task = asyncio.ensure_future(srv.call_tool("ask_both"))
            first, second = await holder.card(0), await holder.card(1)
            assert first.outcome is None and second.outcome is None  # both pending at the same time
            by_message = {c.message: c for c in (first, second)}
            by_message["Question A"].fill(name="Al")
            by_message["Question A"].accept()
            by_message["Question B"].decline()
            answer = parse(await task)
            assert answer == {
                "a": {"action": "accept", "content": {"name": "Al"}},
                "b": {"action": "decline"},
            }

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_concurrent_calls_keep_their_own_forms(mode: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(build_server(), handler=holder, mode=mode) as srv:
            one = asyncio.ensure_future(srv.call_tool("ask_name"))
            card_one = await holder.card(0)
            two = asyncio.ensure_future(srv.call_tool("ask_name"))
            card_two = await holder.card(1)
            card_two.fill(name="Two")
            card_two.accept()
            assert parse(await two) == {"action": "accept", "content": {"name": "Two"}}
            card_one.fill(name="One")
            card_one.accept()
            assert parse(await one) == {"action": "accept", "content": {"name": "One"}}

    run(scenario())


def test_several_servers_at_once() -> None:
    async def scenario() -> None:
        async with (
            connect(build_server("alpha"), handler=handlers.scripted([{"name": "A"}])) as a,
            connect(stdio_command("beta"), name="b-server", handler=handlers.scripted([{"name": "B"}])) as b,
        ):
            results = await asyncio.gather(a.call_tool("ask_name"), b.call_tool("ask_name"))
            assert [parse(r)["content"]["name"] for r in results] == ["A", "B"]
            assert (a.name, a.declared_name) == ("alpha", "alpha")
            assert (b.name, b.declared_name) == ("b-server", "beta")

    run(scenario())


# --------------------------------------------------------------------------- withdrawal, disconnect, timeouts


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_server_withdraws_its_request(kind: str, http_url: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(target(kind, http_url), handler=holder, mode="legacy") as srv:
            assert text(await srv.call_tool("withdraw", {"after": 0.3})) == "withdrawn"
            card = await holder.card()
            await ended(card)  # the form hears about it a moment later
            assert card.outcome.action is Action.CANCEL
            assert card.outcome.reason is Reason.WITHDRAWN
            assert card.outcome.note == "the server withdrew the request"
            assert card.accept() is False  # no longer accepts input

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_stdio_server_killed_mid_question(mode: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(stdio_command(), handler=holder, mode=mode) as srv:
            pid = int(text(srv.call_tool_sync("pid")))
            task = asyncio.ensure_future(srv.call_tool("ask_name"))
            card = await holder.card()
            os.kill(pid, signal.SIGKILL)
            if mode == "legacy":
                # The server's pending request dies with it: the form says so.
                with pytest.raises(ConnectionClosedError, match="disconnected"):
                    await task
                await ended(card)
                assert card.outcome.reason is Reason.WITHDRAWN
                assert card.outcome.note == "the server disconnected"
            else:
                # 2026-07-28: nothing is pending at the server, but its exit is seen: the form closes, and
                # the call ends instead of waiting for an answer that could not be delivered.
                await ended(card)
                assert card.outcome.reason is Reason.WITHDRAWN
                assert card.outcome.note == "the server disconnected"
                with pytest.raises(ConnectionClosedError, match="disconnected"):
                    await task
            with pytest.raises(ConnectionClosedError):
                await srv.call_tool("echo", {"text": "x"})

    run(scenario())


def test_http_server_killed_mid_question() -> None:
    holder = Holder()

    async def scenario(url: str, proc: Any) -> None:
        async with connect(url, handler=holder, mode="legacy") as srv:
            task = asyncio.ensure_future(srv.call_tool("ask_name"))
            card = await holder.card()
            proc.kill()
            with pytest.raises((ConnectionClosedError, ServerError)):
                await task
            await ended(card)
            assert card.outcome.reason is Reason.WITHDRAWN

    with http_server() as (url, proc):
        run(scenario(url, proc))


def test_closing_ends_open_forms() -> None:
    holder = Holder()

    async def scenario() -> None:
        srv = await connect(build_server(), handler=holder, mode="legacy")
        task = asyncio.ensure_future(srv.call_tool("ask_name"))
        card = await holder.card()
        await srv.aclose()
        with pytest.raises(ConnectionClosedError):
            await task
        await ended(card)
        assert card.outcome.reason is Reason.WITHDRAWN
        assert card.outcome.note == "the connection was closed"

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_timeout_bounds_requests(mode: str) -> None:
    # The timeout bounds connecting too: 0.3 s was over before an in-process connect ended on a loaded machine
    # (a full run, 2026-12-07); 1.5 s leaves it room, and the 30 s tool is still cut short.
    srv = connect_sync(build_server(), timeout=1.5, mode=mode)
    try:
        with pytest.raises(RequestTimeout, match=r"1\.5 s"):
            srv.call_tool_sync("sleep", {"seconds": 30})
        assert srv.call_tool_sync("echo", {"text": "still fine"}).content[0].text == "still fine"
    finally:
        srv.close()


@pytest.mark.parametrize("mode", MODES)
def test_timeout_never_counts_think_time(mode: str) -> None:
    async def slow_person(card: Any) -> None:
        await asyncio.sleep(2.5)  # longer than the timeout
        card.fill(name="Slow")
        card.accept()

    async def scenario() -> None:
        # The timeout bounds connecting too: 1 s leaves a loaded machine room to connect in process.
        async with connect(build_server(), handler=slow_person, timeout=1.0, mode=mode) as srv:
            assert parse(await srv.call_tool("ask_name"))["content"] == {"name": "Slow"}

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_answer_timeout_cancels_the_question(mode: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(build_server(), handler=holder, answer_timeout=0.2, mode=mode) as srv:
            assert parse(await srv.call_tool("ask_name")) == {"action": "cancel"}
            card = holder.cards[0]
            assert card.outcome.reason is Reason.TIMEOUT

    run(scenario())


# --------------------------------------------------------------------------- cancelling a call


@pytest.mark.parametrize("mode", MODES)
def test_cancelled_call_ends_its_form(mode: str) -> None:
    holder = Holder()

    async def scenario() -> None:
        async with connect(build_server(), handler=holder, mode=mode) as srv:
            call = srv.call_tool_background("ask_name")
            waiting = asyncio.ensure_future(call)  # someone awaits it: posted work runs
            card = await holder.card()
            assert call.state == "waiting for an answer"
            assert call.cancel()
            if mode == "legacy":
                # The form answered "cancel"; the server may finish with it before the call is cancelled.
                with contextlib.suppress(asyncio.CancelledError):
                    assert parse(await waiting) == {"action": "cancel"}
            else:
                with pytest.raises(asyncio.CancelledError):
                    await waiting  # dropped: no retry
            assert card.outcome.action is Action.CANCEL
            assert card.outcome.reason is Reason.INTERRUPT
            assert call.state in ("cancelled", "done" if mode == "legacy" else "cancelled")
            # The connection is still usable.
            assert (await srv.call_tool("echo", {"text": "ok"})).content[0].text == "ok"

    run(scenario())


def test_background_call() -> None:
    async def scenario() -> None:
        async with connect(build_server(), handler=handlers.scripted([{"name": "Bg"}])) as srv:
            call = srv.call_tool_background("ask_name")
            assert "ask_name" in repr(call)
            result = await call
            assert parse(result)["content"] == {"name": "Bg"}
            assert call.done() and call.state == "done"
            assert call.exception() is None
            assert call._repr_mimebundle_() == {"text/plain": repr(call)}

    run(scenario())


def test_background_call_tool_error_is_failed() -> None:
    """A tool that reports an error (a result with `isError`, no exception) is a failed call: `Call.state`
    says so, as the call's line does."""
    with connect_sync(build_server()) as srv:
        call = srv.call_tool_background("fail")
        result = call.result()
        assert result.is_error and call.exception() is None
        assert call.state == "failed"
        assert call._record.ending() == "failed"


def test_background_call_result_blocks() -> None:
    srv = connect_sync(build_server(), handler=handlers.scripted(["cancel"]))
    try:
        call = srv.call_tool_background("ask_name")
        assert parse(call.result()) == {"action": "cancel"}
        failing = srv.call_tool_background("bad_schema")
        with pytest.raises(SchemaError):
            failing.result()
        assert failing.state == "failed"
    finally:
        srv.close()


# --------------------------------------------------------------------------- handlers and policies


@pytest.mark.parametrize("mode", MODES)
def test_raising_handler_cancels(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    cards: list[Any] = []

    async def broken(card: Any) -> None:
        cards.append(card)
        raise RuntimeError("handler bug")

    srv = connect_sync(build_server(), handler=broken, mode=mode)
    try:
        with caplog.at_level(logging.WARNING, logger="mcp_widgets"):
            assert parse(srv.call_tool_sync("ask_name")) == {"action": "cancel"}
    finally:
        srv.close()
    assert cards[0].outcome.reason is Reason.ERROR
    assert cards[0].outcome.by == "broken"
    assert "handler 'broken' failed" in caplog.text


def test_scripted_refusal_and_exhaustion() -> None:
    script = handlers.scripted([{"name": ""}])  # minLength 1: refused
    srv = connect_sync(build_server(), handler=script)
    try:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "cancel"}
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "cancel"}  # nothing left
    finally:
        srv.close()


def test_handler_left_pending_is_declined_without_a_frontend() -> None:
    cards: list[Any] = []

    async def look_only(card: Any) -> None:
        cards.append(card)

    srv = connect_sync(build_server(), handler=look_only)
    try:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}
    finally:
        srv.close()
    assert cards[0].outcome.reason is Reason.POLICY
    assert "MCP_WIDGETS_HANDLER" in cards[0].outcome.note


def test_no_handler_headless_declines() -> None:
    srv = connect_sync(build_server())
    try:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}
    finally:
        srv.close()


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("decline", {"action": "decline"}),
        ("cancel", {"action": "cancel"}),
        ("accept_defaults", {"action": "accept", "content": {"size": 3, "color": "red", "fast": True}}),
    ],
)
def test_env_policy(policy: str, expected: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_WIDGETS_HANDLER", policy)
    seen: list[Any] = []
    srv = connect_sync(build_server())
    try:
        monkeypatch.setattr(answering, "answer", _spy(answering.answer, seen))
        assert parse(srv.call_tool_sync("ask_defaults")) == expected
    finally:
        srv.close()
    assert seen[0].outcome.reason is Reason.POLICY
    assert seen[0].outcome.by == f"MCP_WIDGETS_HANDLER={policy}"


def test_env_policy_decline_is_the_policys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_WIDGETS_HANDLER", "accept_defaults")
    seen: list[Any] = []
    with connect_sync(build_server()) as srv:
        monkeypatch.setattr(answering, "answer", _spy(answering.answer, seen))
        assert parse(srv.call_tool_sync("ask_profile")) == {"action": "decline"}  # "name" has no default
    outcome = seen[0].outcome
    assert (outcome.reason, outcome.by) == (Reason.POLICY, "MCP_WIDGETS_HANDLER=accept_defaults")


def _spy(method: Any, seen: list[Any]) -> Any:
    def wrapper(card: Any, *args: Any, **kwargs: Any) -> None:
        seen.append(card)
        method(card, *args, **kwargs)

    return wrapper


def test_unknown_env_policy_is_ignored(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MCP_WIDGETS_HANDLER", "yes-please")
    srv = connect_sync(build_server())
    try:
        with caplog.at_level(logging.WARNING, logger="mcp_widgets"):
            assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}
    finally:
        srv.close()
    assert "yes-please" in caplog.text


def test_server_handler_beats_default_beats_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_WIDGETS_HANDLER", "cancel")
    set_default_handler(handlers.accept_defaults)
    assert client.get_default_handler() is handlers.accept_defaults
    with connect_sync(build_server()) as srv:
        assert parse(srv.call_tool_sync("ask_defaults"))["action"] == "accept"
    with connect_sync(build_server(), handler=handlers.decline) as srv:
        assert parse(srv.call_tool_sync("ask_defaults"))["action"] == "decline"
    set_default_handler(None)
    with connect_sync(build_server()) as srv:
        assert parse(srv.call_tool_sync("ask_defaults"))["action"] == "cancel"


@pytest.mark.parametrize("mode", MODES)
def test_url_requests_are_declined_for_now(mode: str) -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, mode=mode) as srv:
        assert parse(srv.call_tool_sync("ask_url")) == {"action": "decline"}


# --------------------------------------------------------------------------- names, reprs, listings


def test_names() -> None:
    assert client.targets._command_name(["python", "-m", "pkg.server", "--token", "x"]) == "pkg.server"
    assert client.targets._command_name(["/usr/bin/python3.11", "/srv/weather.py"]) == "weather.py"
    assert client.targets._command_name(["npx", "-y", "@acme/mcp-server"]) == "@acme/mcp-server"
    assert client.targets._command_name(["./my-server", "--flag"]) == "my-server"
    # A generic script is named by its npm package; without one, the server's declared name replaces it.
    packaged = "/usr/lib/node_modules/@acme/weather-mcp/dist/index.js"
    assert client.targets._command_name(["node", packaged]) == "@acme/weather-mcp"
    assert client.targets._command_name(["node", "/x/node_modules/notes-mcp/build/main.js"]) == "notes-mcp"
    assert client.targets._command_name(["node", "/home/me/weather/build/index.js"]) == "index.js"
    assert client.targets.resolve_target(["node", "/srv/w/index.js"], None).generic
    assert not client.targets.resolve_target(["node", packaged], None).generic
    assert not client.targets.resolve_target(["python", "/srv/weather.py"], None).generic
    assert client.targets._url_name("https://user:pw@mcp.example.com/mcp?key=1") == (
        "mcp.example.com",
        "https://mcp.example.com/mcp?…",
    )
    assert client.targets._url_name("http://127.0.0.1:8123/mcp")[0] == "127.0.0.1:8123"


def test_name_and_declared_name() -> None:
    with connect_sync(stdio_command("weather")) as srv:
        assert srv.name == "run.py"
        assert srv.declared_name == "weather"
        assert "calls itself 'weather'" in repr(srv)
    with connect_sync(build_server("same"), name="same") as srv:
        assert "calls itself" not in repr(srv)


def test_secrets_stay_out_of_reprs_and_errors(http_url: str) -> None:
    secret = "s3cret-token-value"
    with connect_sync(
        f"{http_url}?key={secret}", headers={"X-Api-Key": secret}, auth=secret, name="web"
    ) as srv:
        text = repr(srv)
        assert secret not in text and "credentials redacted" in text
        assert srv.call_tool_sync("echo", {"text": "hi"}).content[0].text == "hi"
    with connect_sync(stdio_command(), env={"API_TOKEN": secret}) as srv:
        assert secret not in repr(srv)
    with pytest.raises(ConnectError) as info:
        connect_sync(f"http://127.0.0.1:9/mcp?key={secret}", timeout=5)
    assert secret not in str(info.value)


def test_connect_failure_shows_server_stderr() -> None:
    with pytest.raises(ConnectError, match="No module named"):
        connect_sync(["python3", "-c", "import no_such_module_here"], timeout=20)


def test_tools_table_escapes_server_text() -> None:
    server = build_server()

    @server.tool(title="<b>Bold</b>", description="<img src=x onerror=alert(1)> first line\nsecond line")
    async def sneaky(a: int, b: str = "") -> str:
        return ""

    with connect_sync(server) as srv:
        tools = srv.tools
        assert "sneaky" in [t.name for t in tools]
        text = repr(tools)
        assert "first line" in text and "second line" not in text
        assert "a: integer, b: string?" in text
        page = tools._repr_html_()
        assert "<img" not in page and "&lt;img src=x" in page and "<b>" not in page


def test_calls_need_a_connection() -> None:
    srv = connect_sync(build_server())
    srv.close()
    with pytest.raises(ConnectError, match="closed"):
        srv.call_tool_sync("echo", {"text": "x"})


# --------------------------------------------------------------------------- history, call end, legacy hints


def _newest(server: str) -> dict[str, Any]:
    return default_history().records(server)[0]


@pytest.mark.parametrize("mode", MODES)
def test_every_form_is_recorded_in_the_history(mode: str) -> None:
    name = f"hist-form-{mode}"
    script = handlers.scripted([{"name": "Ada"}])
    with connect_sync(build_server(), name=name, handler=script, mode=mode) as srv:
        srv.call_tool_sync("ask_name")
        record = _newest(name)
        assert record["source"] == {"kind": "tool", "name": "ask_name"}
        assert record["mode"] == "form"
        assert [f["name"] for f in record["fields"]] == ["name"]
        assert record["outcome"]["action"] == "accept"
        assert record["outcome"]["reason"] == "handler"
        assert record["answered_by"] == client.questions.answering._handler_name(script)
        assert record["duration"] is not None
        srv.get_prompt_sync("greeting", {})
        assert _newest(name)["source"] == {"kind": "prompt", "name": "greeting"}


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_schema_is_recorded_without_a_view(mode: str) -> None:
    name = f"hist-schema-{mode}"
    srv = connect_sync(build_server(), name=name, handler=handlers.accept_defaults, mode=mode)
    with srv, contextlib.suppress(SchemaError):
        srv.call_tool_sync("bad_schema")
    (record,) = default_history().records(name)
    assert record["outcome"]["action"] == "decline"
    assert record["outcome"]["reason"] == "invalid-schema"
    assert record["source"] == {"kind": "tool", "name": "bad_schema"}
    assert "address" in [f["name"] for f in record["fields"]]  # read leniently from the raw schema


def test_srv_history_is_one_cached_panel_of_that_server() -> None:
    from mcp_widgets.widgets import HistoryPanel
    from mcp_widgets.widgets._history import history

    with (
        connect_sync(build_server(), name="hist-a", handler=handlers.decline) as a,
        connect_sync(build_server(), name="hist-b", handler=handlers.decline) as b,
    ):
        a.call_tool_sync("ask_name")
        b.call_tool_sync("ask_name")
        panel = a.history
        assert isinstance(panel, HistoryPanel)
        assert panel is a.history
        assert panel.server_filter == "hist-a"
        assert {r["server"] for r in panel.records()} == {"hist-a"}
        before = panel.total
        a.call_tool_sync("ask_name")
        assert panel.total == before + 1  # live
        panel.close()
        assert a.history is not panel  # a closed panel is replaced
        everything = history(page_size=5)
        assert everything.page_size == 5
        assert {"hist-a", "hist-b"} <= {r["server"] for r in everything.records()}
        a.history.close()
        everything.close()


@pytest.mark.parametrize("kind", ["inproc", "stdio"])
@pytest.mark.parametrize("style", ["await", "sync"])
def test_a_withdrawn_form_ends_when_the_call_returns(kind: str, style: str, http_url: str) -> None:
    # No kernel: nothing runs posted work once the caller stops waiting, so the call's end must do it.
    holder = Holder()

    async def scenario() -> None:
        name = f"hist-withdraw-{kind}-{style}"
        async with connect(target(kind, http_url), name=name, handler=holder, mode="legacy") as srv:
            if style == "await":
                result = await srv.call_tool("withdraw", {"after": 0.3})
            else:
                result = srv.call_tool_sync("withdraw", {"after": 0.3})
            assert text(result) == "withdrawn"
            (card,) = holder.cards
            assert card.outcome is not None, "the form was left pending"
            assert card.outcome.action is Action.CANCEL
            assert card.outcome.reason is Reason.WITHDRAWN
            assert _newest(name)["outcome"]["reason"] == "withdrawn"

    run(scenario())


FASTMCP_SERVER = [sys.executable, str(TESTS / "interop" / "fastmcp_server.py"), "stdio"]


def test_fastmcp_on_2026_gets_the_legacy_hint(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("fastmcp")
    caplog.set_level(logging.WARNING, logger="mcp_widgets")
    with connect_sync(FASTMCP_SERVER, handler=handlers.decline, timeout=60) as srv:
        assert srv.protocol_version == "2026-07-28"
        first = srv.call_tool_sync("person")
        assert first.is_error  # the result is returned unchanged
        assert "2026-07-28" in text(first)
        srv.call_tool_sync("pick")
    hints = [r for r in caplog.records if 'mode="legacy"' in r.getMessage()]
    assert len(hints) == 1  # once per server
    assert "person" in hints[0].getMessage()
    caplog.clear()
    with connect_sync(FASTMCP_SERVER, handler=handlers.decline, timeout=60, mode="legacy") as srv:
        assert not srv.call_tool_sync("person").is_error
    assert not [r for r in caplog.records if 'mode="legacy"' in r.getMessage()]


def test_legacy_hint_detection() -> None:
    def result(text_: str, *, is_error: bool = True) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=text_)], is_error=is_error
        )

    fastmcp_text = "elicitation via server-initiated requests is unavailable on 2026-07-28 connections."
    sdk_text = (
        "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated"
    )
    assert client.record.tool_needs_legacy(result(fastmcp_text))
    assert client.record.tool_needs_legacy(result(sdk_text))
    assert not client.record.tool_needs_legacy(result(fastmcp_text, is_error=False))
    assert not client.record.tool_needs_legacy(result("this tool always fails"))
