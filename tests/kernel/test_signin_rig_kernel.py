"""Signing in inside real kernels (jupyter_client), against the real-peer rig (tests/servers/oauth).

A kernel connects with `token_store="file"` and a handler that consents on the sign-in card and prints its
authorization address; the test plays the browser (a real Chromium logs in on the provider's page and is
sent back to the kernel's loopback). The kernel then ends, a new one starts with the same Jupyter data
directory, and it connects and calls the tool with no card. Canaries: the kernel's logs at DEBUG (stderr)
and its history hold no token and no code.
"""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers.oauth.rig import Browser, authorization_server, protected_server

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.browser]  # its own Playwright: after the event-loop tests

SETUP = """\
import json, logging, os, sys
os.environ["JUPYTER_DATA_DIR"] = {data_dir!r}
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, force=True)
import mcp_widgets as mw
from mcp_widgets.core.history import default_history

async def consent(card):
    if card.kind == "signin":
        print("CARD", card.authorization_url, flush=True)
        if {accept!r}:
            card.accept()
        else:
            card.cancel()
"""
CALL = """\
srv = await mw.connect({url!r}, name="notes", token_store="file", handler=consent)
result = await srv.call_tool("whoami")
print("RESULT", result.content[0].text)
print("HISTORY", json.dumps(default_history().records(), default=str))
srv.close()
"""


@pytest.fixture(scope="module")
def rig() -> Iterator[str]:
    with authorization_server() as issuer, protected_server(issuer) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as person:
        yield person


def line(stdout: str, tag: str) -> str:
    found = [x.split(" ", 1)[1] for x in stdout.splitlines() if x.startswith(tag + " ")]
    assert found, f"no {tag} line in the output: {stdout!r}"
    return found[-1]


def stored_tokens(data_dir: Path) -> list[str]:
    """The access and refresh tokens in the file store (whatever its layout: any key of those names)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("access_token", "refresh_token") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in data_dir.rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, f"{path} is readable by others"
            walk(json.loads(path.read_text()))
    return found


def test_a_restarted_kernel_stays_signed_in_with_the_file_store(
    rig: str, browser: Browser, tmp_path: Path
) -> None:
    data_dir = tmp_path / "jupyter-data"
    with KernelFrontend(sys.executable) as fe:
        fe.run(SETUP.format(data_dir=str(data_dir), accept=True))
        msg_id = fe.execute(CALL.format(url=rig))
        cell = fe.cells[msg_id]
        fe.wait_until(lambda: "CARD " in cell.stdout, timeout=60, what="the sign-in card")
        landing = browser.sign_in(line(cell.stdout, "CARD"), context=browser.fresh())
        assert "close this tab" in landing.text
        done = fe.wait_cell(msg_id, timeout=60)
        assert done.status == "ok", done.traceback
        assert json.loads(line(done.stdout, "RESULT"))["subject"] == "ada"
        history = json.loads(line(done.stdout, "HISTORY"))
        assert [r["mode"] for r in history] == ["signin"]
        assert history[0]["url_host"] == "127.0.0.1"
        assert "mcp:read" in history[0]["scopes"]
        logs = done.stderr
    tokens = stored_tokens(data_dir)
    assert tokens, "the file store holds no token"
    code = landing.query["code"]
    assert "DEBUG:" in logs, "DEBUG logging was not on"
    for secret in [*tokens, code]:
        assert secret not in logs, "a secret is in the kernel's logs"
        assert secret not in json.dumps(history), "a secret is in the history"

    # A new kernel, the same data directory: the stored sign-in is used, no card shows.
    with KernelFrontend(sys.executable) as fe:
        fe.run(SETUP.format(data_dir=str(data_dir), accept=False))
        again = fe.run(CALL.format(url=rig), timeout=60)
        assert again.status == "ok", again.traceback
        assert "CARD " not in again.stdout
        assert json.loads(line(again.stdout, "RESULT"))["subject"] == "ada"
        assert json.loads(line(again.stdout, "HISTORY")) == []
        for secret in [*stored_tokens(data_dir), code]:
            assert secret not in again.stderr
