"""`mw.servers()` and connecting by name (#31): the four mcp.json formats, written here, read back; `${...}`
substitution; VS Code inputs asked in a card (a canary value never in reprs, logs or widget state);
connecting by name over stdio and HTTP to a server that reports what it was started with."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets import kernel
from mcp_widgets.client.configs import lookup as configs
from mcp_widgets.core.mcp_config import ConfigError, config_locations, read_config
from mcp_widgets.widgets._config_widgets import plain_table
from tests.servers import SERVERS
from tests.servers.launch import serving

SERVER = str(SERVERS / "configured.py")
CANARY = "sk-canary-7d3f0a91be"

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:16]


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home and a project folder inside it (the cwd), with nothing configured yet."""
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(project)
    configs.forget_inputs()
    yield home, project
    configs.forget_inputs()


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data)
    return path


def every_widget_state() -> str:
    from ipywidgets.widgets.widget import _instances

    return json.dumps([m.get_state() for m in list(_instances.values())], default=str)


def test_the_four_formats_are_found_in_the_usual_places(places: tuple[Path, Path]) -> None:
    home, project = places
    write(
        home / ".config" / "Claude" / "claude_desktop_config.json",
        {"mcpServers": {"desk": {"command": "uvx", "args": ["desk-server"], "env": {"API_KEY": CANARY}}}},
    )
    write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "code": {
                    "type": "http",
                    "url": "https://example.com/mcp",
                    "headers": {"Authorization": "Bearer ${TOK}"},
                },
                "code-sse": {"type": "sse", "url": "https://example.com/sse"},
            }
        },
    )
    write(
        home / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "cur": {"url": "https://cursor.example/sse"},
                "curl": {"command": "npx", "args": ["x"]},
            }
        },
    )
    # VS Code's file is JSON with comments and trailing commas
    write(
        project / ".vscode" / "mcp.json",
        """{
      // a comment
      "inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
      "servers": {"vs": {"type": "stdio", "command": "node", "args": ["s.js"],
                         "cwd": "${workspaceFolder}/sub", "env": {"KEY": "${input:key}"},},},
    }""",
    )
    table = mw.servers()
    by_name = {r.name: r for r in table.rows}
    assert set(by_name) == {"desk", "code", "code-sse", "cur", "curl", "vs"}
    assert [by_name[n].kind for n in ("desk", "code", "code-sse", "cur", "curl", "vs")] == [
        "stdio",
        "http",
        "sse",
        "sse",
        "stdio",
        "stdio",
    ]
    assert by_name["desk"].where.startswith("Claude Desktop: ")
    assert by_name["code"].where == f"Claude Code: {project / '.mcp.json'}"
    assert by_name["cur"].where.startswith("Cursor: ")
    assert by_name["vs"].where.startswith("VS Code: ")
    assert by_name["vs"].cwd == "${workspaceFolder}/sub" and [i.id for i in by_name["vs"].inputs] == ["key"]
    assert by_name["vs"].inputs[0].password
    # a secret in clear is used, and the table says so; one through ${...} is not "in clear"
    assert by_name["desk"].secrets_in_clear == ("env API_KEY",)
    assert by_name["code"].secrets_in_clear == ()
    text = repr(table.rows) + "".join(repr(t) for t in table.rows)
    table_text = plain_table(table.rows)
    assert "secret written in clear: env API_KEY" in table_text
    assert "asks key" in table_text
    assert CANARY not in text + table_text + every_widget_state()
    # one file
    assert [r.name for r in mw.servers(project / ".mcp.json").rows] == ["code", "code-sse"]
    table.close()


def test_substitution_env_forms_defaults_and_unset_names(places: tuple[Path, Path], monkeypatch: Any) -> None:
    home, project = places
    monkeypatch.setenv("CFG_A", "alpha")
    monkeypatch.delenv("CFG_UNSET", raising=False)
    path = write(
        project / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "s": {
                    "command": "${userHome}/bin/run",
                    "args": ["${env:CFG_A}", "${CFG_A}", "${CFG_UNSET:-dflt}"],
                    "env": {"X": "${workspaceFolder}"},
                    "url": "",
                },
                "bad": {"command": "x", "env": {"T": "${CFG_UNSET}"}},
            }
        },
    )
    s, bad = read_config(path).servers
    r = s.resolve()
    assert r.command == f"{home}/bin/run" and r.args == ("alpha", "alpha", "dflt")
    assert r.env == {"X": str(project)}
    with pytest.raises(ConfigError, match=r"environment variable CFG_UNSET, which is not set") as raised:
        bad.resolve()
    assert "'bad'" in str(raised.value)


def test_a_broken_file_names_itself_and_no_line(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(project / ".mcp.json", '{"mcpServers": {"x": {"env": {"K": "' + CANARY + '"}}')
    with pytest.raises(ConfigError, match=r"\.mcp\.json is not valid JSON") as raised:
        mw.servers(project / ".mcp.json")
    assert CANARY not in str(raised.value)
    assert mw.servers().rows == ()  # a broken file in a usual place is skipped


def test_usual_places_per_platform(tmp_path: Path) -> None:
    mac = [str(p) for p, _ in config_locations(home=tmp_path, cwd=tmp_path, platform="darwin")]
    assert str(tmp_path / "Library/Application Support/Claude/claude_desktop_config.json") in mac
    win = [
        str(p)
        for p, _ in config_locations(
            home=tmp_path, cwd=tmp_path, platform="win32", environ={"APPDATA": str(tmp_path / "AD")}
        )
    ]
    assert str(tmp_path / "AD" / "Code" / "User" / "mcp.json") in win


def test_an_ambiguous_name_is_an_error_naming_both_files_and_config_picks(places: tuple[Path, Path]) -> None:
    home, project = places
    a = write(
        project / ".mcp.json",
        {"mcpServers": {"twin": {"command": sys.executable, "args": [SERVER, "stdio"]}}},
    )
    b = write(home / ".cursor" / "mcp.json", {"mcpServers": {"twin": {"command": "nope"}}})
    with pytest.raises(ConfigError, match="several files") as raised:
        mw.connect_sync("twin")
    assert str(a) in str(raised.value) and str(b) in str(raised.value)
    with pytest.raises(ConfigError, match="has no server named 'tw'"):
        mw.connect_sync("tw", config=a)
    srv = mw.connect_sync("twin", config=a)
    try:
        assert srv.name == "twin"
    finally:
        srv.close()


def test_connect_by_name_over_stdio_with_env_and_cwd(places: tuple[Path, Path], monkeypatch: Any) -> None:
    _home, project = places
    (project / "sub").mkdir()
    monkeypatch.setenv("CFG_SECRET", CANARY)
    write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "conf": {
                    "command": sys.executable,
                    "args": [SERVER, "stdio"],
                    "cwd": "sub",
                    "env": {"CFG_TOKEN": "${CFG_SECRET}"},
                }
            }
        },
    )
    srv = mw.connect_sync("conf")
    try:
        seen = srv.call_tool_sync("seen").structured_content
        assert seen["env"] == digest(CANARY) and seen["cwd"] == str(project / "sub")
        assert CANARY not in repr(srv) and "credentials redacted" in repr(srv)
    finally:
        srv.close()


def test_connect_by_name_over_http_with_headers(places: tuple[Path, Path], monkeypatch: Any) -> None:
    _home, project = places
    monkeypatch.setenv("CFG_SECRET", CANARY)
    with serving([sys.executable, SERVER, "http"], "the configured server") as (port, _proc):
        write(
            project / ".mcp.json",
            {
                "mcpServers": {
                    "web": {
                        "type": "http",
                        "url": f"http://127.0.0.1:{port}/mcp",
                        "headers": {"X-Cfg-Token": "${env:CFG_SECRET}"},
                    }
                }
            },
        )

        async def run() -> dict[str, Any]:
            async with mw.connect("web") as srv:
                assert srv.name == "web" and CANARY not in repr(srv)
                return (await srv.call_tool("seen")).structured_content

        assert asyncio.run(run())["header"] == digest(CANARY)


def test_vscode_inputs_are_asked_once_in_a_password_card_and_kept_nowhere_else(
    places: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    _home, project = places
    caplog.set_level(logging.DEBUG)
    write(
        project / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "tok", "description": "Token", "password": True}],
            "servers": {
                "vsc": {
                    "command": sys.executable,
                    "args": [SERVER, "stdio"],
                    "env": {"CFG_TOKEN": "${input:tok}"},
                }
            },
        },
    )
    answered: list[str] = []

    def person() -> None:
        deadline = time.monotonic() + 30
        while not configs.ASKING and time.monotonic() < deadline:
            time.sleep(0.01)
        card = configs.ASKING[0]
        assert [row["widget"] for row in card.card["rows"]] == ["password"]
        card.fill(tok=CANARY)
        card.submit()
        answered.append(repr(card))

    helper = threading.Thread(target=person)
    helper.start()

    async def run() -> tuple[dict[str, Any], str]:
        srv = await mw.connect("vsc")
        try:
            return (await srv.call_tool("seen")).structured_content, repr(srv)
        finally:
            await srv.aclose()

    seen, shown = asyncio.run(run())
    helper.join()
    assert seen["env"] == digest(CANARY)
    everything = shown + answered[0] + caplog.text + every_widget_state() + repr(mw.servers().rows)
    assert CANARY not in everything
    # asked once per kernel: the second connect asks nothing
    srv = mw.connect_sync("vsc")
    try:
        assert srv.call_tool_sync("seen").structured_content["env"] == digest(CANARY)
    finally:
        srv.close()
    assert not configs.ASKING


def test_a_cancelled_inputs_card_fails_the_connect(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(
        project / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "tok", "password": True}],
            "servers": {"vsc": {"command": "never-run", "env": {"T": "${input:tok}"}}},
        },
    )

    def person() -> None:
        while not configs.ASKING:
            time.sleep(0.01)
        configs.ASKING[0].cancel()

    threading.Thread(target=person).start()
    with pytest.raises(ConfigError, match="cancelled"):
        mw.connect_sync("vsc")


def test_the_tables_connect_button_connects(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(
        project / ".mcp.json", {"mcpServers": {"b": {"command": sys.executable, "args": [SERVER, "stdio"]}}}
    )
    table = mw.servers()
    button = table.buttons[("b", table.rows[0].source)]
    table.connect("b")
    assert button.disabled  # one connect at a time per row
    deadline = time.monotonic() + 30
    while "b" not in table.connected and time.monotonic() < deadline:
        kernel.flush_posted()
        time.sleep(0.02)
    srv = table["b"]
    try:
        assert srv.connected and table.status.value == 'b connected: table["b"] is the server'
        # the row itself says so, and its button is off: a second press starts nothing
        assert (button.description, button.disabled) == ("Connected", True)
        table.connect("b")
        assert "connecting" not in table.status.value
    finally:
        srv.close()
        table.close()


def wait_settled(table: Any, *keys: tuple[str, str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(
        table.states.get(k, ("connecting",))[0] in ("connecting", "") for k in keys
    ):
        kernel.flush_posted()
        time.sleep(0.02)


def test_two_failed_rows_keep_their_own_reasons_and_buttons_are_ready_again(
    places: tuple[Path, Path],
) -> None:
    _home, project = places
    fail = "import sys; sys.stderr.write({!r}); sys.exit(1)"
    write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "one": {"command": sys.executable, "args": ["-c", fail.format("first reason\n")]},
                "two": {"command": sys.executable, "args": ["-c", fail.format("second reason\n")]},
            }
        },
    )
    table = mw.servers()
    one, two = ((r.name, r.source) for r in table.rows)
    table.connect("one")
    wait_settled(table, one)
    table.connect("two")
    wait_settled(table, two)
    try:
        for key, reason, other in ((one, "first reason", "second"), (two, "second reason", "first")):
            state, why = table.states[key]
            assert state == "failed" and reason in why and other not in why
            button = table.buttons[key]
            assert (button.description, button.disabled) == ("Connect", False)
            status_cell = table._cells[key][1].value
            assert "✗ failed: " in status_cell and reason in status_cell
        assert table.status.value.startswith("two failed: could not connect to 'two'")
        assert "one" not in table.connected and "[failed: " in plain_table(table.rows, table.states)
    finally:
        table.close()


def test_a_hostile_file_in_a_usual_place_is_skipped_and_read_once(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """#41: a file nested 100,000 deep (RecursionError before) is skipped by servers() and connect by name,
    and named by servers(path); a connect reads each file once (twice before: connect, then Server)."""
    home, project = places
    deep = write(project / ".vscode" / "mcp.json", '{"servers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    good = {"mcpServers": {"c": {"command": sys.executable, "args": [SERVER, "stdio"]}}}
    write(home / ".cursor" / "mcp.json", good)
    assert [r.name for r in mw.servers().rows] == ["c"]
    with pytest.raises(ConfigError, match="nested too deeply"):
        mw.servers(deep)
    reads: list[str] = []
    real = configs.read_config

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(configs, "read_config", counted)
    srv = mw.connect_sync("c")
    try:
        assert srv.name == "c"
        assert sorted(reads) == sorted({*reads}) and str(home / ".cursor" / "mcp.json") in reads
    finally:
        srv.close()


def test_a_name_that_is_no_plain_word_connects_from_its_row_and_with_config(
    places: tuple[Path, Path],
) -> None:
    _home, project = places
    path = write(
        project / ".mcp.json",
        {"mcpServers": {"tex$x$": {"command": sys.executable, "args": [SERVER, "stdio"]}}},
    )
    table = mw.servers()
    (row,) = table.rows
    assert "not a plain name: in code, connect with config=" in plain_table(table.rows)
    table.connect("tex$x$")
    wait_settled(table, (row.name, row.source))
    try:
        assert table.states[(row.name, row.source)] == ("connected", ""), table.states
        assert table.status.value == 'tex$x$ connected: table["tex$x$"] is the server'
    finally:
        table["tex$x$"].close()
        table.close()
    srv = mw.connect_sync("tex$x$", config=path)
    try:
        assert srv.name == "tex$x$"
    finally:
        srv.close()


def test_only_a_page_of_rows_is_built(places: tuple[Path, Path]) -> None:
    """#41: 120 servers build one page of 50 rows of widgets (before: a row of widgets per server)."""
    _home, project = places
    servers = {f"s{i:03}": {"command": "never-run"} for i in range(120)}
    write(project / ".mcp.json", {"mcpServers": servers})
    table = mw.servers()
    try:
        assert len(table.rows) == 120 and len(table.buttons) == 50
        assert table._where.value == "servers 1–50 of 120"
        table._next.click()
        table._next.click()
        assert sorted(name for name, _ in table.buttons) == [f"s{i}" for i in range(100, 120)]
        assert table._next.disabled and table._where.value == "servers 101–120 of 120"
        table.connect("s007")  # on the first page: shown, then pressed
        assert table.page == 0 and table.states[("s007", table.rows[7].source)][0] == "connecting"
    finally:
        table.close()


def test_substituted_values_never_reach_a_connect_error(
    places: tuple[Path, Path], monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """#40: a `${env:...}` value in `cwd` was quoted whole by the ConnectError ("No such file or directory:
    '/nonexistent/sk-…'"), by the FileNotFoundError it chained, and by the DEBUG log's traceback."""
    import traceback

    caplog.set_level(logging.DEBUG)
    _home, project = places
    monkeypatch.setenv("CFG_SECRET", CANARY)
    write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "dir": {"command": sys.executable, "cwd": "/nonexistent/${env:CFG_SECRET}"},
                "cmd": {"command": "/nonexistent/${CFG_SECRET}/run", "args": ["--api-key", CANARY]},
            }
        },
    )
    for name in ("dir", "cmd"):
        with pytest.raises(mw.ConnectError) as raised:
            mw.connect_sync(name)
        told = "".join(traceback.format_exception(raised.value))
        assert "No such file or directory" in told and "[redacted]" in told
        assert CANARY not in told
    assert "connecting to dir via stdio failed" in caplog.text and CANARY not in caplog.text
    table = mw.servers()
    assert "secret written in clear: args --api-key" in plain_table(table.rows)
    assert CANARY not in repr(table.rows) + plain_table(table.rows) + every_widget_state()
    table.close()


def test_the_plain_table_shows_a_names_terminal_escapes(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(project / ".mcp.json", {"mcpServers": {"red\x1b[31mname\u202e": {"command": "x"}}})
    text = plain_table(mw.servers().rows)
    assert "\x1b" not in text and "\u202e" not in text
    assert "red\\x1b[31mnameU+202E" in text


def test_a_rows_inputs_card_then_its_connect_show_on_the_row(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(
        project / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "tok", "password": True}],
            "servers": {
                "vsc": {
                    "command": sys.executable,
                    "args": [SERVER, "stdio"],
                    "env": {"CFG_TOKEN": "${input:tok}"},
                }
            },
        },
    )
    table = mw.servers()
    (row,) = table.rows
    key = (row.name, row.source)
    button, cell = table._cells[key]
    table.connect("vsc")
    try:
        assert button.disabled and "needs 1 value (below) to connect" in cell.value  # while its card is open
        (card,) = configs.ASKING
        card.fill(tok=CANARY)
        card.submit()
        assert button.disabled and "connecting …" in cell.value  # not the card's words any more
        wait_settled(table, key)
        assert table.states[key] == ("connected", "") and "✓ connected" in cell.value
        assert CANARY not in every_widget_state() + plain_table(table.rows, table.states)
    finally:
        if "vsc" in table.connected:
            table["vsc"].close()
        table.close()
