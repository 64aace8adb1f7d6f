"""The client's process-wide state in one `Runtime`: loop and thread, default handler, kernel cache."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from mcp_widgets import handlers
from mcp_widgets.client import connect_sync, get_default_handler, set_default_handler
from mcp_widgets.client.runtime import RUNTIME, THREAD_NAME
from mcp_widgets.kernel import running_kernel
from tests.servers.demo import build_server, parse


def client_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


def test_stop_joins_the_thread_and_the_next_use_starts_a_fresh_one(clean_client: None) -> None:
    with connect_sync(build_server()) as srv:
        assert srv.call_tool_sync("echo", {"text": "one"}).content[0].text == "one"
    first = RUNTIME.loop()
    assert RUNTIME.running and len(client_threads()) == 1
    RUNTIME.stop()
    assert not RUNTIME.running and client_threads() == []
    assert first.is_closed()
    RUNTIME.stop()  # again: nothing to stop
    with connect_sync(build_server()) as srv:  # a fresh loop and thread
        assert srv.call_tool_sync("echo", {"text": "two"}).content[0].text == "two"
    assert RUNTIME.loop() is not first and len(client_threads()) == 1


def test_the_default_handler_lives_in_the_runtime(clean_client: None) -> None:
    set_default_handler(handlers.decline)
    assert RUNTIME.default_handler is handlers.decline is get_default_handler()
    with connect_sync(build_server()) as srv:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}
    set_default_handler(None)
    assert RUNTIME.default_handler is None


def test_reset_kernel_forgets_the_kernel_rooms_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = [object()]
    monkeypatch.setattr(running_kernel, "_kernel_cache", cache)
    RUNTIME.reset_kernel()
    assert cache == []


def test_stop_runs_at_exit() -> None:
    code = (
        "import atexit, threading\n"
        "from mcp_widgets.client import connect_sync\n"
        "from mcp_widgets.client.runtime import RUNTIME, THREAD_NAME\n"
        "from tests.servers.demo import build_server\n"
        "srv = connect_sync(build_server())\n"  # left open: the exit closes it
        "thread = [t for t in threading.enumerate() if t.name == THREAD_NAME][0]\n"
        "atexit._run_exitfuncs()\n"
        "print(thread.is_alive(), RUNTIME.running)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout == "False False\n", out.stderr
