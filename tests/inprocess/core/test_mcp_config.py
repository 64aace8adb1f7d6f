"""Reading a config file that may be anyone's (#41, #40): VS Code's comments stripped in one pass and
correctly; a file nested too deeply, too big, with too many servers, or not a regular file (a FIFO) is a
`ConfigError` naming it; secrets written in clear in `args` are found and never in a repr; substituted values
are listed so that errors can hide them. How fast the stripper is lives in the benchmarks (`scale`)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from mcp_widgets.core import jsonc
from mcp_widgets.core.mcp_config import MAX_CONFIG_BYTES, MAX_SERVERS, ConfigError, read_config

CANARY = "sk-live-canary0123456789abcdef"


def strip(text: str) -> str:
    return jsonc.strip(text)


def test_comments_are_stripped_and_strings_kept_as_they_are() -> None:
    text = """{
      // a line comment, "with a quote"
      "a": "x // not a comment /* nor this */",   /* a block
         over two lines */ "b": "quote \\" then // still the string",
      "c": [1, 2, /* a comment between a trailing comma and its bracket */ ],
      "d": {"e": 1, // and a line comment after one
      },
    }"""
    assert json.loads(strip(text)) == {
        "a": "x // not a comment /* nor this */",
        "b": 'quote " then // still the string',
        "c": [1, 2],
        "d": {"e": 1},
    }
    # a comment is blanked in its own shape: what is kept keeps its line and column
    stripped = strip(text)
    assert stripped.count("\n") == text.count("\n")
    for kept, written in zip(stripped.splitlines(), text.splitlines(), strict=True):
        assert all(c == " " or c == written[i] for i, c in enumerate(kept))


def test_unterminated_comments_and_strings_run_to_their_end() -> None:
    assert json.loads(strip('{"a": 1} /* never closed')) == {"a": 1}
    assert json.loads(strip('{"a": 1} // last line, no newline')) == {"a": 1}
    assert strip("/*a" * 5) == " " * 15  # every `/*` is inside the first comment
    with pytest.raises(json.JSONDecodeError):  # an unterminated string is still an error, at its line
        json.loads(strip('{"a": "open\n}'))
    assert strip('"\\"\\"\\') == '"\\"\\"\\'  # a string that escapes its way to the end is kept


def test_a_json_error_in_a_commented_file_names_the_files_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  /* one */ "servers": {\n  /* two */ "x": {"command": "a"}} oops\n}')
    with pytest.raises(ConfigError, match=r"at line 3, column 36") as raised:
        read_config(path)
    assert "oops" not in str(raised.value)


def test_a_file_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"servers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_config(path)


def test_a_file_over_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    with path.open("wb") as file:
        file.truncate(MAX_CONFIG_BYTES + 1)  # sparse: nothing written
    with pytest.raises(ConfigError, match=r"mcp\.json is 16\.0 MB: a config file over 16\.0 MB is not read"):
        read_config(path)


def test_a_file_with_too_many_servers_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {f"s{i}": {"command": "x"} for i in range(MAX_SERVERS + 1)}}))
    with pytest.raises(ConfigError, match="configures 10,001 servers: a file with over 10,000 is not read"):
        read_config(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_config(fifo)
        except ConfigError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(60)  # a hang guard, not a speed bound: before the fix this read waited for a writer forever
    if reader.is_alive():
        with fifo.open("w"):  # let the stuck reader go
            pass
        reader.join()
        pytest.fail("reading a FIFO waited for a writer")
    assert "not a regular file" in str(outcome[0])
    with pytest.raises(ConfigError, match="not a regular file"):
        read_config(tmp_path)


def test_only_parses_the_named_servers_and_names_them_all(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}))
    one = read_config(path, only="b")
    assert [s.name for s in one.servers] == ["b"] and one.names == ("a", "b")


def test_secret_args_are_found_and_args_never_in_the_repr(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    args = [
        "-y",
        "@modelcontextprotocol/server-filesystem-with-a-long-name",
        "--api-key",
        CANARY,
        "--token=" + CANARY,
        "-e",
        "GITHUB_TOKEN=" + CANARY,
        "--port",
        "8080",
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
        "--password",
        "${env:PW}",
    ]
    path.write_text(json.dumps({"mcpServers": {"s": {"command": "npx", "args": args}}}))
    (server,) = read_config(path).servers
    assert server.secrets_in_clear == ("args --api-key", "args --token", "args GITHUB_TOKEN", "args #10")
    assert CANARY not in repr(server) and "npx" in repr(server)


def test_substituted_values_are_listed_but_not_home_or_workspace(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    config = {
        "command": "${userHome}/run",
        "args": ["${SECRET_A}"],
        "cwd": "${workspaceFolder}/${env:SECRET_B}",
    }
    path.write_text(json.dumps({"mcpServers": {"s": config}}))
    (server,) = read_config(path).servers
    resolved = server.resolve(environ={"SECRET_A": "alpha-1", "SECRET_B": "beta-2"}, home="/home/ada")
    assert resolved.cwd == f"{tmp_path}/beta-2" and resolved.command == "/home/ada/run"
    assert resolved.substituted == ("alpha-1", "beta-2")
    assert "alpha-1" not in repr(resolved) and "beta-2" not in repr(resolved)
