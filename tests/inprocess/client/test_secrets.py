"""Nothing typed, nothing secret in what we show or raise (#18): against real servers that echo it back.

Scope: errors (message, `data`, the whole `__cause__` / `__context__` chain), logs (DEBUG too), progress and
status lines, the call's closing text, history and names. Not the tool's result: that is the server's
answer to the caller. A typed value must not appear verbatim, JSON-, URL- or HTML-escaped, in any case.
Only the public API is used, so these tests also run against older versions of the package.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import stat
import sys
import threading
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import ipywidgets as w
import pytest

from mcp_widgets import ConnectError, ServerError, connect_sync, handlers
from tests.servers import SERVERS
from tests.servers.echoing import ECHOES, build_server
from tests.servers.launch import http_server

ECHOING = SERVERS / "echoing.py"
NAME = "Zoé-Quinn"
WORD = 'pa"ss&<w>'
PIN = 48151623
ANSWER = {"name": NAME, "word": WORD, "pin": PIN}
PASSWORD = "hunter2-Ümlaut"
API_KEY = "sk-canary-5f1e0c"

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]


def variants(value: Any) -> set[str]:
    """`value` as a leak would show it: itself, JSON- (once and twice), URL- and HTML-escaped."""
    text = str(value)
    return {
        text,
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        json.dumps(json.dumps(text))[3:-3],
        quote(text),
        quote(text, safe=""),
        quote_plus(text),
        html.escape(text),
        html.escape(text, quote=False),
    }


def leaks(text: str, values: Iterable[Any] = (NAME, WORD, PIN)) -> list[str]:
    """The forms of `values` found in `text`, in any letter case."""
    low = text.lower()
    return sorted({form for value in values for form in variants(value) if form.lower() in low})


def chain(error: BaseException) -> Iterator[BaseException]:
    """`error` and every exception it holds on to (`__cause__`, `__context__`, `.cause`, groups)."""
    seen: set[int] = set()
    todo = [error]
    while todo:
        exc = todo.pop()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        yield exc
        todo += [e for e in (exc.__cause__, exc.__context__, getattr(exc, "cause", None)) if e is not None]
        todo += list(getattr(exc, "exceptions", ()))


def everything_in(error: BaseException) -> str:
    """All an error can show: its traceback (the chain too), and every attribute of every link."""
    parts = ["".join(traceback.format_exception(error))]
    for exc in chain(error):
        parts += [str(exc), repr(exc.args), repr(vars(exc))]
    return "\n".join(parts)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_server_error_quoting_the_answer_in_any_form_is_redacted(mode: str) -> None:
    answers = handlers.scripted([ANSWER] * len(ECHOES))
    srv = connect_sync(build_server(), name=f"echo-{mode}", handler=answers, mode=mode)
    found: dict[str, list[str]] = {}
    marked: dict[str, bool] = {}
    with srv:
        for how in ECHOES:
            with pytest.raises(ServerError) as info:
                srv.call_tool_sync("refuse", {"how": how})
            found[how] = leaks(everything_in(info.value))
            marked[how] = "[redacted]" in str(info.value) + repr(info.value.data)  # the server did echo
    assert found == {how: [] for how in ECHOES}
    assert all(marked.values()), marked


def test_an_error_quoting_the_answer_only_in_its_data_drops_the_servers_error() -> None:
    srv = connect_sync(build_server(), name="echo-data", handler=handlers.scripted([ANSWER]))
    with srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("refuse", {"how": "data"})
    error = info.value
    assert str(error).endswith("invalid input (code -32602)")  # the message is the server's, unchanged
    assert error.data["input"]["name"] == "[redacted]"
    assert error.__cause__ is None and error.__context__ is None
    assert leaks(everything_in(error)) == []


# --------------------------------------------------------------------------- progress, logs, closing text


def _closing_text(out: w.Output) -> str:
    return "\n".join(str(v) for entry in out.outputs for v in entry.get("data", {}).values())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_progress_quoting_the_answer_is_redacted_in_the_closing_text(mode: str) -> None:
    out = w.Output()
    answers = handlers.scripted([ANSWER])
    srv = connect_sync(build_server(), name="echo", handler=answers, mode=mode, output=out)
    with srv:
        assert srv.call_tool_sync("progress").content[0].text == "ok"
    text = _closing_text(out)
    assert "Progress: done — checked [redacted] (2/2, 100%)" in text
    assert leaks(text) == []
    assert leaks(json.dumps(w.Widget.get_manager_state(drop_defaults=False), default=str)) == []


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_background_calls_status_line_quotes_no_answer_its_result_echoes(mode: str) -> None:
    out = w.Output()
    answers = handlers.scripted([ANSWER])
    with connect_sync(build_server(), name="greet", handler=answers, mode=mode, output=out) as srv:
        call = srv.call_tool_background("greet")
        result = call.result(timeout=60)
    assert result.content[0].text == f"hello {NAME.upper()}"  # the result is the server's answer: kept
    text = _closing_text(out)
    assert "tool 'greet' on 'greet': done\nhello [redacted]" in text  # the result, under the status line
    assert leaks(text) == []


def test_a_log_line_after_the_call_ended_is_redacted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp_widgets")
    command = [sys.executable, str(ECHOING)]  # over stdio: the line reaches no call's context
    with connect_sync(command, name="late", handler=handlers.scripted([ANSWER]), mode="legacy") as srv:
        srv.call_tool_sync("log_later")
        for _ in range(3000):  # the line comes 50 ms after the call, from the client thread
            if any("good bye" in r.getMessage() for r in caplog.records):
                break
            threading.Event().wait(0.01)
    (line,) = [r.getMessage() for r in caplog.records if "good bye" in r.getMessage()]
    assert line == "late: [info] echo: good bye [redacted]"
    ours = [r.getMessage() + (r.exc_text or "") for r in caplog.records if r.name.startswith("mcp_widgets")]
    assert leaks("\n".join(ours)) == []


# --------------------------------------------------------------------------- secret tool arguments


def test_a_secret_argument_quoted_in_a_server_error_is_redacted_everywhere() -> None:
    """`password: SecretStr` (format password, writeOnly) and `api_key` (a password-like name)."""
    srv = connect_sync(build_server(), name="login")

    async def scenario() -> tuple[Any, BaseException]:
        form = srv.form("login")
        form.fill(user="ada", password=PASSWORD, api_key=API_KEY)
        call = form.run()
        assert call is not None, form.errors
        with pytest.raises(ServerError) as info:
            await form.wait()  # once the form showed the failure
        return form, info.value

    try:
        form, error = asyncio.run(scenario())
        area = [c for c in form.children if isinstance(c, w.Output)]
        shown = [form.result_text, repr(form.call), repr(form)]
        shown += [json.dumps(a.outputs, default=str) for a in area]
        form.close()
        with pytest.raises(ServerError) as direct:  # a plain call redacts them the same way
            srv.call_tool_sync("login", {"user": "bob", "password": PASSWORD, "api_key": API_KEY})
    finally:
        srv.close()
    assert "wrong password" in shown[0]  # the result area says why it failed
    assert "[redacted]" in str(error) and "ada" in str(error)  # the user name is no secret: kept
    secrets = (PASSWORD, API_KEY)
    assert leaks(everything_in(error), secrets) == []
    assert leaks(everything_in(direct.value), secrets) == []
    assert leaks("\n".join(shown), secrets) == []


# --------------------------------------------------------------------------- resource templates


def test_the_history_keeps_a_resource_templates_uri_not_the_filled_one() -> None:
    script = handlers.scripted([{"why": "care"}])
    with connect_sync(build_server(), name="records", handler=script, mode="legacy") as srv:
        result = srv.read_resource_sync("records://patient-4711")
        assert "patient-4711" in result.contents[0].text  # the server's answer: may echo it
        panel = srv.history
        kept = json.dumps([panel.records(), panel.rows], default=str)
        panel.close()
    assert "records://{patient}" in kept
    assert "4711" not in kept


# --------------------------------------------------------------------------- what a server is called


def _launcher(tmp_path: Path, program: str) -> str:
    """A fake `program` that ignores its arguments and runs a real stdio MCP server."""
    path = tmp_path / program
    run = SERVERS / "run.py"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{run}" stdio launched\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


COMMANDS = [
    (["docker", "run", "-i", "--rm", "-e", "TOKEN=ghp_canary1", "ghcr.io/acme/weather:1"], "ghp_canary1"),
    (["npx", "-y", "--api-key", "sk-canary2", "@acme/weather"], "sk-canary2"),
    (["uvx", "--with", "canary3-extra", "weather-mcp"], "canary3-extra"),
    (["python", "-c", "import canary4"], "canary4"),
]


@pytest.mark.parametrize(("argv", "secret"), COMMANDS, ids=["docker", "npx", "uvx", "python-c"])
def test_a_command_is_named_by_its_program_or_package_never_an_options_value(
    tmp_path: Path, argv: list[str], secret: str
) -> None:
    command = [_launcher(tmp_path, argv[0]), *argv[1:]]
    with connect_sync(command) as srv:
        assert srv.connected
        shown = f"{srv.name} {srv!r}"
    assert secret not in shown


def test_an_upper_case_http_url_is_a_url_and_its_query_names_nothing() -> None:
    with http_server("demo") as (url, _proc):
        target = url.replace("http://", "HTTP://") + "?token=canary-tok-81"
        with connect_sync(target) as srv:
            assert srv.connected
            shown = f"{srv.name} {srv!r}"
    assert "canary-tok-81" not in shown and "127.0.0.1" in srv.name


def test_no_log_record_of_ours_carries_url_credentials_or_a_query(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with http_server("demo") as (url, _proc):
        # A wrong path: every transport fails, and the fallbacks' tracebacks quote the URL they tried.
        bad = url.replace("http://", "http://ada:pw-canary-62@").replace("/mcp", "/nope")
        bad += "?token=tok-canary-62"
        with pytest.raises(ConnectError) as info:
            connect_sync(bad, name="bad")
    ours = [r for r in caplog.records if r.name.startswith("mcp_widgets")]
    assert any(r.exc_text or r.exc_info for r in ours), "no traceback was logged: the test proves nothing"
    formatter = logging.Formatter()
    text = "\n".join(formatter.format(r) for r in ours) + everything_in(info.value)
    assert "pw-canary-62" not in text and "tok-canary-62" not in text
