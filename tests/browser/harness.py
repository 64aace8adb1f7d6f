"""A real Jupyter server and its pages driven by Playwright, for the real-browser tests.

One server serves the three UIs tested: JupyterLab (`/lab/tree/...`), Notebook 7 (`/notebooks/...`) and Voila
(`/voila/render/...`, Voila's server extension; `VoilaServer` is `voila NOTEBOOK` on its own). `NotebookPage`
drives a notebook in JupyterLab or Notebook 7 (same cells, widgets and toolbar; only the status bar differs);
`VoilaPage` is a notebook rendered as an app.

Recipe and pitfalls: docs/development.md, "Writing a browser test". Synchronisation is always a condition the
page shows (Playwright's `expect` / `wait_for`), never a sleep. The only polling is for the server's HTTP port
to open.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# Debian's headless build of Chromium (the same source and release as its `chromium`): it draws the same pages
# for a quarter less of the whole browser test's CPU (test_form_browser.py on 2026-12-07, every process read
# from /proc: Chromium 35 CPU-seconds against 52, the whole 72 against 97), and CI's two cores are busy
# throughout a full run. Debian's full `chromium` where only that one is installed.
CHROMIUM = next(
    (p for p in (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium")) if p.exists()),
    Path("/usr/bin/chromium-headless-shell"),
)
# Playwright already adds --headless and --no-sandbox; these keep Chromium off the network and quiet.
CHROMIUM_ARGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# The bounds below are how long a test waits for what must come, never a measure of speed (the benchmarks
# measure that): a full run loads two cores 7-8 times over (load 14-16 seen on 2026-12-07), where JupyterLab
# took over 60 s to start and a marimo page over 15 s to load, failing three tries each. What passes takes
# no longer with higher bounds.
SERVER_START_TIMEOUT = 120.0
KERNEL_READY_MS = 60_000
"""Page load to kernel idle (measured 2.5–4.5 s; CI machines can be slower)."""
UI_MS = 30_000
"""A click or a run to its visible effect (measured 0.1–0.5 s)."""
VOILA_MS = 90_000
"""Page load to widgets shown in Voila: it runs every cell before it sends the page (measured 3–8 s)."""

LAB = "lab"
NOTEBOOK = "notebook"
UIS = (LAB, NOTEBOOK)
"""The notebook UIs `NotebookPage` drives: JupyterLab and Notebook 7."""

# The kernel of the notebook on show is connected and idle. The toolbar's indicator says "idle" before the
# kernel is connected (runs sent then are dropped), and Notebook 7 has no status bar: ask the app itself
# (exposed as window.jupyterapp by the server, see LabServer.start).
KERNEL_IDLE_JS = """() => {
  const app = window.jupyterapp;
  const widget = app && app.shell && app.shell.currentWidget;
  const session = widget && widget.sessionContext && widget.sessionContext.session;
  const kernel = session && session.kernel;
  return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""

DARK_THEME = "JupyterLab Dark"
LIGHT_THEME = "JupyterLab Light"


def python() -> Path:
    """The project's python (the .venv's when there is one, else the one running the tests)."""
    venv = ROOT / ".venv" / "bin" / "python"
    return venv if venv.exists() else Path(sys.executable)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))


@dataclass
class LabServer:
    """A JupyterLab server with every Jupyter directory inside `base`, serving notebooks from `base/root`."""

    base: Path
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    settings_epoch: int = 0
    """Changes of JupyterLab's settings made through `api` (a loaded page reads them only as it loads)."""

    @property
    def root(self) -> Path:
        return self.base / "root"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.base / "jupyter.log"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
        env.update(
            JUPYTER_CONFIG_DIR=str(self.base / "config"),
            JUPYTER_DATA_DIR=str(self.base / "data"),
            JUPYTER_RUNTIME_DIR=str(self.base / "runtime"),
            IPYTHONDIR=str(self.base / "ipython"),
            JUPYTERLAB_SETTINGS_DIR=str(self.base / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(self.base / "workspaces"),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONUNBUFFERED="1",
            # This server's kernels' own cache: jedi's parse cache is written in place, and one cut short
            # by a killed kernel would leave every later completion of that venv empty.
            XDG_CACHE_HOME=str(self.base / "cache"),
        )
        return env

    def _prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        py = python()
        # The kernel is the project's python (mcp_widgets installed editable there), whatever runs pytest.
        _write_json(
            self.base / "data" / "kernels" / "python3" / "kernel.json",
            {
                "argv": [str(py), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "metadata": {"debugger": False},
            },
        )
        settings = self.base / "settings"
        # No news toast and no update check: they pop over the notebook and reach for the network.
        _write_json(
            settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
            {"fetchNews": "false", "checkForUpdates": False},
        )
        _write_json(settings / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings", {})

    def start(self) -> None:
        self._prepare()
        args = [
            str(python()),
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={self.root}",
            # window.jupyterapp: tests run JupyterLab commands (theme) and read the kernel's state.
            "--LabApp.expose_app_in_browser=True",
            "--JupyterNotebookApp.expose_app_in_browser=True",
            # Voila runs as this server's extension (/voila/render/...); a failing cell shows its traceback.
            "--VoilaConfiguration.show_tracebacks=True",
            "--LabServerApp.workspaces_dir=" + str(self.base / "workspaces"),
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--allow-root")
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            args,
            cwd=self.root,
            env=self._env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status")
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"jupyter lab did not answer in time:\n{self.log_tail()}") from None
                time.sleep(0.1)  # waiting for a port to open: nothing in a page to wait on yet

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.api("POST", "/api/shutdown")  # shuts the kernels down too
            self.proc.wait(timeout=15)
        except (OSError, urllib.error.URLError, subprocess.TimeoutExpired):
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def api(self, method: str, path: str, body: Any = None) -> Any:
        if method != "GET" and path.startswith("/lab/api/settings"):
            self.settings_epoch += 1
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
        return json.loads(text) if text else None

    def sessions(self) -> list[dict[str, Any]]:
        return list(self.api("GET", "/api/sessions"))

    def start_session(self, path: str) -> None:
        """A notebook session (and its kernel) for `path`, before any page opens it."""
        body = {"path": path, "name": path, "type": "notebook", "kernel": {"name": "python3"}}
        self.api("POST", "/api/sessions", body)

    def delete_sessions(self) -> None:
        """End every session and every kernel, also those without a session (Voila's): each test starts
        from none."""
        for session in self.sessions():
            self.api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self.api("GET", "/api/kernels"):
            try:
                self.api("DELETE", f"/api/kernels/{kernel['id']}")
            except urllib.error.HTTPError as exc:
                if exc.code != 404:  # it ended by itself meanwhile
                    raise

    def write_notebook(self, name: str, cells: Sequence[str]) -> str:
        """A fresh .ipynb (nbformat 4.5) with one code cell per source; returns its file name."""
        path = f"{name}.ipynb"
        notebook = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {
                "kernelspec": {
                    "name": "python3",
                    "display_name": "Python 3 (ipykernel)",
                    "language": "python",
                },
                "language_info": {"name": "python"},
            },
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"cell-{i}",
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": source,
                }
                for i, source in enumerate(cells)
            ],
        }
        _write_json(self.root / path, notebook)
        return path

    def lab_url(self, path: str) -> str:
        return f"{self.url}/lab/tree/{path}?reset&token={self.token}"

    def notebook_url(self, path: str) -> str:
        """The page of `path` in Notebook 7 (one notebook per page, no workspace to reset)."""
        return f"{self.url}/notebooks/{path}?token={self.token}"

    def voila_url(self, path: str) -> str:
        return f"{self.url}/voila/render/{path}?token={self.token}"

    def page_url(self, path: str, ui: str) -> str:
        if ui == LAB:
            return self.lab_url(path)
        if ui == NOTEBOOK:
            return self.notebook_url(path)
        raise ValueError(f"unknown notebook UI {ui!r} (one of {UIS})")


def slug(text: str) -> str:
    """A file-name-safe version of a test's node id."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[-80:]


class NotebookPage:
    """One notebook open in JupyterLab or Notebook 7: run cells, find what they show, read what they print.

    Both UIs are JupyterLab components: the cells, outputs, widgets and notebook toolbar have the same
    selectors (checked). Only JupyterLab has the status bar.
    """

    def __init__(self, page: Any, server: LabServer, path: str, ui: str = LAB) -> None:
        self.page = page
        self.server = server
        self.path = path
        self.ui = ui

    def open(self) -> NotebookPage:
        from playwright.sync_api import expect

        # Start the kernel now, so it boots while the page loads; the page joins the session of the path.
        self.server.start_session(self.path)
        self.page.goto(self.server.page_url(self.path, self.ui))
        expect(self.cells.first).to_be_visible(timeout=KERNEL_READY_MS)
        self.wait_idle(timeout=KERNEL_READY_MS)
        return self

    def open_in_place(self) -> NotebookPage:
        """Open the notebook in this page's JupyterLab, already loaded (see `LabPages` in conftest.py): what a
        person does from the file browser, without loading JupyterLab again."""
        from playwright.sync_api import expect

        assert self.ui == LAB, "only JupyterLab opens a second notebook in its page"
        self.server.start_session(self.path)
        # Open it, then close what else the main area holds (the Launcher JupyterLab opens when it empties).
        self.page.evaluate(
            """async (path) => {
              const app = window.jupyterapp;
              const opened = await app.commands.execute('docmanager:open', {path});
              for (const other of Array.from(app.shell.widgets('main'))) {
                if (other !== opened) other.dispose();
              }
            }""",
            self.path,
        )
        expect(self.cells.first).to_be_visible(timeout=KERNEL_READY_MS)
        self.wait_idle(timeout=KERNEL_READY_MS)
        return self

    # -- where things are ------------------------------------------------------------------------------------
    @property
    def cells(self) -> Any:
        return self.page.locator(".jp-Notebook .jp-CodeCell")

    def cell(self, index: int) -> Any:
        return self.cells.nth(index)

    def prompt(self, index: int) -> Any:
        return self.cell(index).locator(".jp-InputPrompt")

    def output(self, index: int) -> Any:
        """The output area of a cell (where its widgets and its printed text are)."""
        return self.cell(index).locator(".jp-OutputArea")

    def stdout(self, index: int) -> Any:
        return self.cell(index).locator('[data-mime-type="application/vnd.jupyter.stdout"]')

    def stderr(self, index: int) -> Any:
        return self.cell(index).locator('[data-mime-type="application/vnd.jupyter.stderr"]')

    def widget(self, index: int) -> Any:
        """The ipywidgets views a cell shows."""
        return self.output(index).locator(
            ".jp-OutputArea-output .widget-box, .jp-OutputArea-output .jupyter-widgets"
        )

    # -- doing things ----------------------------------------------------------------------------------------
    def wait_idle(self, timeout: float = KERNEL_READY_MS) -> None:
        """The kernel is connected and idle (the toolbar indicator says so too early)."""
        from playwright.sync_api import expect

        self.page.wait_for_function(KERNEL_IDLE_JS, timeout=timeout)
        if self.ui == LAB:  # what a person reads there
            expect(self.page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=timeout)

    def interrupt(self) -> None:
        """Click the notebook toolbar's stop button ("Interrupt the kernel")."""
        toolbar = self.page.locator(".jp-NotebookPanel-toolbar")
        toolbar.locator('jp-button[data-command="notebook:interrupt-kernel"]').click()

    def run(self, index: int) -> float:
        """Run a cell as a person does (click its prompt, Control+Enter); returns when the run was taken.

        Returns the `time.perf_counter()` at the key press, for measuring what follows.
        """
        from playwright.sync_api import expect

        prompt = self.prompt(index)
        prompt.click()
        started = time.perf_counter()
        self.page.keyboard.press("Control+Enter")
        # A run sent before the kernel is connected is dropped silently: make sure this one was taken.
        expect(prompt).not_to_have_text(re.compile(r"^\[ \]:$"), timeout=UI_MS)
        return started

    def wait_done(self, index: int, timeout: float = UI_MS) -> None:
        """The cell has finished (its prompt shows an execution count)."""
        from playwright.sync_api import expect

        expect(self.prompt(index)).to_have_text(re.compile(r"^\[\d+\]:$"), timeout=timeout)

    def run_command(self, command: str, args: dict[str, Any] | None = None) -> None:
        """Run a JupyterLab / Notebook 7 command (the server exposes the app as window.jupyterapp)."""
        self.page.evaluate(
            "([id, args]) => window.jupyterapp.commands.execute(id, args)", [command, args or {}]
        )

    def set_theme(self, theme: str) -> None:
        from playwright.sync_api import expect

        self.run_command("apputils:change-theme", {"theme": theme})
        light = "true" if theme == LIGHT_THEME else "false"
        expect(self.page.locator("body")).to_have_attribute("data-jp-theme-light", light, timeout=UI_MS)
        expect(self.page.locator("body")).to_have_attribute("data-jp-theme-name", theme, timeout=UI_MS)
        # JupyterLab shows its splash screen while a theme loads and removes it 200 ms after. A second
        # theme change inside that window makes JupyterLab remove it twice: an uncaught NotFoundError
        # ("removeChild") from its own bundle. Wait until it is gone.
        expect(self.page.locator("#jupyterlab-splash")).to_have_count(0, timeout=UI_MS)


@dataclass
class VoilaServer:
    """`voila NOTEBOOK` as its own server process, as Voila apps are usually served; it uses the Jupyter
    directories (and so the kernel) of `lab`. Stopping it ends its kernel."""

    lab: LabServer
    path: str
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.lab.base / f"voila-{self.port}.log"

    def start(self) -> None:
        args = [
            str(python()),
            "-m",
            "voila",
            str(self.lab.root / self.path),
            "--no-browser",
            f"--port={self.port}",
            "--Voila.ip=127.0.0.1",
            "--Voila.port_retries=0",
            "--show_tracebacks=True",
        ]
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            args,
            cwd=self.lab.root,
            env=self.lab._env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"voila exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                # A static file: the page itself would start a kernel and run the notebook.
                with urllib.request.urlopen(self.url + "/voila/static/voila.js", timeout=10):
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"voila did not answer in time:\n{self.log_tail()}") from None
                time.sleep(0.1)  # waiting for a port to open: nothing in a page to wait on yet

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()  # Voila shuts its kernels down on SIGTERM
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"


class VoilaPage:
    """A notebook rendered by Voila: its cells ran at page load; what is left to do is use its widgets.

    Voila's kernel lives as long as the page or its server (the fixtures end it after the test).
    """

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url

    def open(self) -> VoilaPage:
        from playwright.sync_api import expect

        self.page.goto(self.url, timeout=VOILA_MS)
        # Widget views render only once the page's widget manager is connected to the kernel: a view on
        # show means clicks and typing reach the kernel.
        expect(self.widgets.first).to_be_visible(timeout=VOILA_MS)
        return self

    @property
    def widgets(self) -> Any:
        """Widget views in outputs: stock ones, a question card and the history panel (anywidgets: Voila
        gives their element no "jupyter-widgets" class)."""
        return self.page.locator(
            ".jp-OutputArea-output .jupyter-widgets, .jp-OutputArea-output .mcp-widgets-question, "
            ".jp-OutputArea-output .mcp-widgets-history-panel"
        )

    @property
    def outputs(self) -> Any:
        """The output areas, one per code cell with output (markdown cells have none)."""
        return self.page.locator(".jp-OutputArea")
