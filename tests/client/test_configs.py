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

import ipywidgets as w
import pytest

import mcp_widgets as mw
from mcp_widgets import kernel
from mcp_widgets.client import configs
from mcp_widgets.core.mcp_config import ConfigError, config_locations, read_config
from mcp_widgets.widgets._config_widgets import plain_table
from tests.servers.launch import serving

SERVER = str(Path(__file__).parents[1] / "servers" / "configured.py")
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
        assert isinstance(card._fields["tok"], w.Password)
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
        assert srv.connected and "connected" in table.status.value
        # the row itself says so, and its button is off: a second press starts nothing
        assert (button.description, button.disabled) == ("Connected", True)
        table.connect("b")
        assert "connecting" not in table.status.value
    finally:
        srv.close()
        table.close()


def test_a_failed_connect_leaves_the_rows_button_ready_again(places: tuple[Path, Path]) -> None:
    _home, project = places
    write(project / ".mcp.json", {"mcpServers": {"nope": {"command": sys.executable, "args": ["-c", "1"]}}})
    table = mw.servers()
    button = table.buttons[("nope", table.rows[0].source)]
    table.connect("nope")
    deadline = time.monotonic() + 30
    while button.disabled and time.monotonic() < deadline:
        kernel.flush_posted()
        time.sleep(0.02)
    try:
        assert (button.description, button.disabled) == ("Connect", False)
        assert table.status.value.startswith("nope: ") and "connecting" not in table.status.value
        assert "nope" not in table.connected
    finally:
        table.close()
