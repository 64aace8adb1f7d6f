"""The form in a real JupyterLab and Chromium: keyboard, plain text, the line it leaves, what a save keeps.

Needs `jupyterlab`, `playwright` (never `playwright install`: it uses the system Chromium) and
/usr/bin/chromium; skipped otherwise. See docs/development.md, "Writing a browser test".
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import HOSTILE

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "mcp-widgets-browser-test"
CANARY = "Paris-canary-41"
FORM = f"""
from mcp_widgets.widgets import ElicitationForm
form = ElicitationForm({HOSTILE + " " + "A long message from the server. " * 8!r}, {{
    "type": "object",
    "properties": {{
        "name": {{"type": "string", "title": {HOSTILE!r}, "description": {HOSTILE!r}}},
        "age": {{"type": "integer", "minimum": 0, "maximum": 150}},
        "city": {{"type": "string", "title": "City"}},
    }},
    "required": ["name"],
}}, server="shop")
form
"""
CELLS = [
    FORM,
    "print('RESULT', form.state.value, form.result.model_dump_json(exclude_none=True))",
    'ESCAPE = {"type": "object", "properties": {"x": {"type": "string"}}}\n'
    'form2 = ElicitationForm("Escape me", ESCAPE, server="esc")\nform2',
    "print('RESULT2', form2.state.value, form2.outcome.describe())",
]


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    pytest.importorskip("jupyterlab")
    pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    env = dict(os.environ)
    for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[key] = str(tmp_path / key.lower())
    settings = tmp_path / "settings"
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path / "workspaces")
    for plugin, value in {
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
        "@jupyter-widgets/jupyterlab-manager/plugin": {"saveState": True},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    notebooks = tmp_path / "nb"
    notebooks.mkdir()
    cells = [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
        for c in CELLS
    ]
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernelspec}, "nbformat": 4, "nbformat_minor": 5}
    (notebooks / "t.ipynb").write_text(json.dumps(notebook))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1"]
    args += [f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={notebooks}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")
    with open(tmp_path / "lab.log", "w") as log:
        server = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        yield url, notebooks / "t.ipynb"
    finally:
        server.terminate()
        server.wait(30)


def saved_state(path: Path) -> str:
    return json.dumps(json.loads(path.read_text()).get("metadata", {}).get("widgets", {}))


def test_keyboard_plain_text_one_line_and_saving(lab: tuple[str, Path]) -> None:
    from playwright.sync_api import sync_playwright

    url, notebook = lab
    seen: dict[str, Any] = {}
    with sync_playwright() as p:
        flags = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[*flags, "--disable-sync"])
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{url}/lab/tree/t.ipynb?reset&token={TOKEN}")
        page.wait_for_selector("#jp-main-statusbar >> text=| Idle", timeout=90_000)
        cells = page.locator(".jp-Notebook .jp-CodeCell")

        def run(i: int) -> None:
            cells.nth(i).locator(".jp-InputPrompt").click()
            page.keyboard.press("Control+Enter")

        def focused() -> str:
            return str(
                page.evaluate("() => document.activeElement.closest('.widget-inline-hbox')?.innerText")
            )

        run(0)
        page.wait_for_selector("button.widget-button >> text=Accept", timeout=60_000)
        # A form shown by a cell that has ended takes no focus by itself (docs/keyboard.md): a click.
        cells.nth(0).locator(".mcp-widgets-first input").click()
        output = cells.nth(0).locator(".jp-OutputArea")
        assert output.locator("img, script").count() == 0
        assert output.get_by_text("<img src=x onerror=alert(1)>", exact=False).count() >= 2
        page.keyboard.type("Ada")
        page.keyboard.press("Tab")
        assert "age" in focused()
        page.keyboard.type("5000")
        page.wait_for_selector("text=⚠ Error:", timeout=10_000)
        page.keyboard.press("Backspace")
        page.keyboard.press("Backspace")
        page.keyboard.press("Tab")
        assert "City" in focused()
        page.keyboard.type(CANARY)
        time.sleep(0.5)

        cells.nth(1).locator(
            ".jp-InputPrompt"
        ).click()  # focus off the inputs, which keep Ctrl+S to themselves
        page.keyboard.press("Control+s")
        time.sleep(2)
        seen["pending_save_keeps_typed"] = CANARY in saved_state(notebook)

        page.locator(".mcp-widgets-last input").click()
        page.keyboard.press("Enter")
        page.wait_for_selector("text=Request from shop: accepted by the person", timeout=15_000)
        cells.nth(1).locator(".jp-InputPrompt").click()
        page.keyboard.press("Control+s")
        time.sleep(2)
        state = saved_state(notebook)
        run(1)
        page.wait_for_selector("text=RESULT accepted", timeout=15_000)
        result = cells.nth(1).locator(".jp-OutputArea").inner_text()

        run(2)
        page.wait_for_selector("text=Request from esc", timeout=60_000)
        # The person's own click, then Escape cancels an untouched form.
        cells.nth(2).locator(".mcp-widgets-first input").click()
        page.keyboard.press("Escape")
        page.wait_for_selector("text=Request from esc: cancelled by the person", timeout=15_000)
        run(3)
        page.wait_for_selector("text=RESULT2 cancelled", timeout=15_000)
        browser.close()

    assert json.loads(result.split(" ", 2)[2]) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 50, "city": CANARY},
    }
    assert seen["pending_save_keeps_typed"] is True  # what docs/privacy.md must say about pending forms
    assert CANARY not in state
    saved = json.loads(state)["application/vnd.jupyter.widget-state+json"]["state"].values()
    # The form and its line; the rest are the Layouts, Styles and keyboard helper every form shares (no
    # text in them).
    own = [
        m["model_name"]
        for m in saved
        if not m["model_name"].endswith(("LayoutModel", "StyleModel"))
        and not m["state"].get("_anywidget_id", "").endswith(".KeyCatcher")
    ]
    assert sorted(own) == ["LabelModel", "VBoxModel"]
    assert dialogs == []
