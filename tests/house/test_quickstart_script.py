"""The README's first command, run as on a remote machine: the address it prints opens the quickstart."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.servers import ROOT

ROOT = ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.timeout(240)
def test_the_printed_address_opens_the_quickstart_with_the_repository_as_root(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "lab.log"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/quickstart.sh", "--no-browser", f"--port={port}", "--ServerApp.port_retries=0"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        address = None
        deadline = time.monotonic() + 200
        while address is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            found = re.search(rf"http://127\.0\.0\.1:{port}/\S+", log.read_text())
            address = found.group(0) if found else None
        assert address is not None, log.read_text()[-3000:]
        quickstart = f"http://127.0.0.1:{port}/lab/tree/notebooks/quickstart.ipynb?token="
        assert address.startswith(quickstart), address
        token = address.split("token=", 1)[1]
        with urllib.request.urlopen(address, timeout=30) as page:  # the Lab page for that path
            assert page.status == 200
        # The repository is the root: the notebook's path under it is the one the address names.
        api = f"http://127.0.0.1:{port}/api/contents/notebooks/quickstart.ipynb?content=0&token={token}"
        with urllib.request.urlopen(api, timeout=30) as reply:
            assert reply.status == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
