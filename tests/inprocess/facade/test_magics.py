"""`%mcp` in a real IPython shell (no kernel: handlers answer the forms), against the real demo server.

The same commands in a real kernel, with a form answered by clicks, are in tests/kernel/test_magics_kernel.py.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from mcp_widgets.client import Server, set_default_handler
from mcp_widgets.client.listings import PromptList, ResourceList, ServerInfo, ToolList
from mcp_widgets.magics import MCPMagics, parse_arguments, split_words
from tests.servers.launch import http_server

DEMO = shlex.join([sys.executable, "-m", "mcp_widgets.demo"])


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_widgets.magics")
    yield ip
    for value in list(ip.user_ns.values()):
        if isinstance(value, Server):
            value.close()


@pytest.fixture(scope="module")
def demo(shell: InteractiveShell) -> Server:
    """The demo over stdio, connected by `%mcp connect demo ...` (its questions accepted with defaults)."""
    mcp(shell, f"connect --handler accept_defaults demo {DEMO}")
    server = shell.user_ns["demo"]
    assert isinstance(server, Server) and server.connected
    return server


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    set_default_handler(None)
    yield
    set_default_handler(None)


def mcp(shell: InteractiveShell, line: str) -> Any:
    return shell.run_line_magic("mcp", line)


def structured(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


# --------------------------------------------------------------------------- connecting and looking around


def test_connect_stores_the_server_and_says_what_it_offers(
    shell: InteractiveShell, demo: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp(shell, "servers")
    out = capsys.readouterr().out
    assert out.startswith("demo (default): <Server 'demo'")
    assert demo.name == "demo" and demo.declared_name == "mcp-widgets-demo"


def test_listings_and_info_return_their_tables(shell: InteractiveShell, demo: Server) -> None:
    tools = mcp(shell, "tools")
    assert isinstance(tools, ToolList) and "echo_elicit" in [tool.name for tool in tools]
    assert mcp(shell, "tools demo") == tools
    assert isinstance(mcp(shell, "resources"), ResourceList) and len(mcp(shell, "resources demo")) == 3
    assert isinstance(mcp(shell, "prompts"), PromptList)
    info = mcp(shell, "info")
    assert isinstance(info, ServerInfo) and info.name == "mcp-widgets-demo"


def test_call_parses_arguments_and_answers_the_form(shell: InteractiveShell, demo: Server) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string", "default": "New York"}}}
    # JSON with spaces needs no quotes inside its brackets; the form is answered by the connect's handler.
    result = mcp(shell, f"call demo.echo_elicit requested_schema={json.dumps(schema)} message='Where to?'")
    assert structured(result) == {"action": "accept", "content": {"city": "New York"}}
    # Without NAME: the server connected last.
    assert "notes.txt" in structured(mcp(shell, "call list_files"))["files"]


def test_prompt_and_read(shell: InteractiveShell, demo: Server) -> None:
    prompt = mcp(shell, "prompt demo.explain_tool tool=weather audience='a child'")
    assert prompt.messages[0].content.text.endswith("'weather' of the mcp-widgets demo server to a child.")
    read = mcp(shell, "read demo demo://files/notes.txt")
    assert json.loads(read.contents[0].text) == {"name": "notes.txt", "size": 1204}
    assert mcp(shell, "read demo://files").contents[0].uri == "demo://files"


def test_connect_without_a_name_stores_mcp(shell: InteractiveShell, demo: Server) -> None:
    with http_server() as (url, _proc):
        mcp(shell, f"connect {url}")
        try:
            server = shell.user_ns["mcp"]
            assert isinstance(server, Server) and server.name.startswith("127.0.0.1:")
            assert "echo" in [tool.name for tool in mcp(shell, "tools")]  # now the default
            assert mcp(shell, "tools demo") == demo.tools
        finally:
            mcp(shell, "close mcp")
    assert not server.connected
    # The default is still `mcp` (closed): commands on it say so in one line.
    with pytest.raises(UsageError, match=r"'127\.0\.0\.1:.*' is closed, not connected"):
        mcp(shell, "call echo text=hi")


def test_connecting_a_name_again_closes_the_old_server(shell: InteractiveShell) -> None:
    mcp(shell, f"connect --legacy again {DEMO}")
    first = shell.user_ns["again"]
    assert first.protocol_version == "2025-11-25"
    mcp(shell, f"connect again {DEMO}")
    second = shell.user_ns["again"]
    assert second is not first and second.connected and not first.connected
    mcp(shell, "close again")
    assert not second.connected


# --------------------------------------------------------------------------- mistakes are one line


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frob", "unknown command 'frob'"),
        ("tools nobody", "nobody holds nothing, not a server"),
        ("tools print", "print holds a builtin_function_or_method, not a server"),
        ("call demo.echo_elicit oops", "argument 1 is not one"),
        ("call demo.echo_elicit a=1 a=2", "the argument a is given twice"),
        ("call demo.echo_elicit text='open", r"a quote \(\'\) is never closed"),
        ("connect python -m mcp_widgets.demo", "'python' was read as the NAME.*NAME python -m"),
        ("connect x", "give what to connect to"),
        ("connect --timeout soon x y", "--timeout takes a number"),
        ("connect --handler yes x y", "--handler takes one of accept_defaults, cancel, decline"),
        ("connect --verbose x y", "unknown option --verbose"),
        ("read a b c", "write %mcp read"),
        ("call", "write %mcp call"),
    ],
)
def test_mistakes_raise_usage_errors(shell: InteractiveShell, demo: Server, line: str, message: str) -> None:
    shell.user_ns["print"] = print
    with pytest.raises(UsageError, match=message):
        mcp(shell, line)


def test_a_failed_connect_is_one_line_without_a_traceback(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    result = shell.run_cell(
        "%mcp connect broken " + shlex.join([sys.executable, "-c", "import no_such_module"])
    )
    assert isinstance(result.error_in_exec, UsageError)
    err = capsys.readouterr().err
    assert "UsageError: %mcp connect: could not connect to 'broken'" in err and "No module named" in err
    assert "Traceback" not in err.split("server stderr")[0]  # ours has none (the server's own stderr may)
    assert "broken" not in shell.user_ns


def test_no_server_yet(shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(shell.user_ns, "mcp", raising=False)
    magics = MCPMagics(shell)  # a fresh %mcp: nothing connected through it yet
    with pytest.raises(UsageError, match="no server connected"):
        magics.mcp("tools")


def test_load_ext_mcp_widgets_registers_the_magics(shell: InteractiveShell) -> None:
    line_magics = shell.magics_manager.magics["line"]
    registered = line_magics.pop("mcp")  # as if only `%load_ext mcp_widgets` had run
    try:
        assert shell.extension_manager.load_extension("mcp_widgets") is None  # None: loaded
        assert "mcp" in line_magics
    finally:
        line_magics.setdefault("mcp", registered)


def test_help(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    assert mcp(shell, "") is None
    assert "%mcp call [NAME.]TOOL" in capsys.readouterr().out


# --------------------------------------------------------------------------- argument words


def test_split_words_keeps_json_and_quotes_together() -> None:
    assert split_words('a={"b": [1, 2]}  c=\'x y\' d="p q" e=1') == [
        'a={"b": [1, 2]}',
        "c='x y'",
        'd="p q"',
        "e=1",
    ]
    assert split_words('s="say \\"hi\\" now"') == ['s="say \\"hi\\" now"']


def test_values_are_json_when_they_parse() -> None:
    words = split_words(
        'n=3 f=true z=null l=["a", "b"] s=Paris q="3" w=\'hello world\' j=\'{"k": 1}\' x=NaN e='
    )
    assert parse_arguments(words) == {
        "n": 3,
        "f": True,
        "z": None,
        "l": ["a", "b"],
        "s": "Paris",
        "q": "3",
        "w": "hello world",
        "j": {"k": 1},
        "x": "NaN",
        "e": "",
    }


def test_a_malformed_argument_is_named_by_position_not_quoted() -> None:
    with pytest.raises(UsageError) as info:
        parse_arguments(["ok=1", "hunter2"])
    assert "argument 2" in str(info.value) and "hunter2" not in str(info.value)
