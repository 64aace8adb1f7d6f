"""`marimo edit` in a home of its own, for the real-browser tests in marimo (one server per session).

marimo runs from the venv `scripts/marimo-venv.sh` makes (`tests/marimo_rig.py` finds it). Its notebooks are
`.py` files in the server's folder, opened as `/?file=NAME.py`; a `pyproject.toml` there makes their cells run
when they open (`auto_instantiate`) and the page follow the browser's light or dark scheme. A session (its
kernel, and the MCP servers it started) ends a minute after its page's connection closes (`--session-ttl`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.marimo_rig import ROOT, marimo_command

from .harness import SERVER_START_TIMEOUT, free_port

SESSION_TTL = 60
"""Seconds a session outlives its page's connection. Not less: on a loaded machine a page's socket can drop
for a moment, and a session already ended then leaves the page "kernel not found" (seen in CI with 1 s)."""

PYPROJECT = """\
[tool.marimo.runtime]
auto_instantiate = true

[tool.marimo.display]
theme = "system"
"""


@dataclass
class MarimoServer:
    """`marimo edit --headless --no-token` serving the notebooks in `base/root`."""

    base: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def root(self) -> Path:
        return self.base / "root"

    @property
    def log_path(self) -> Path:
        return self.base / "marimo.log"

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/?file={name}"

    def write(self, name: str, source: str) -> str:
        """Write the notebook `name` (a .py file); returns its address."""
        (self.root / name).write_text(source, encoding="utf-8")
        return self.url(name)

    def copy(self, path: Path) -> str:
        """Copy a notebook of the repository into the server's folder; returns its address."""
        shutil.copyfile(path, self.root / path.name)
        return self.url(path.name)

    def start(self) -> None:
        command = marimo_command()  # skips without the venv
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
        home = self.base / "home"
        home.mkdir(exist_ok=True)
        env = dict(
            os.environ,
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_STATE_HOME=str(home / ".state"),
            XDG_CACHE_HOME=str(home / ".cache"),
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            PYTHONUNBUFFERED="1",
        )
        args = [
            str(command),
            "edit",
            "--headless",
            "--no-token",
            "--skip-update-check",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--session-ttl",
            str(SESSION_TTL),
        ]
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            args, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"marimo edit exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5):
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"marimo edit did not answer in time:\n{self.log_tail()}") from None
                time.sleep(0.1)  # waiting for a port to open: nothing in a page to wait on yet

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()  # marimo ends its sessions' kernels as it exits
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""
