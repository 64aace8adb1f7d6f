"""Start the demo server for tests: in-process, stdio (a command line) or streamable HTTP (a URL)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .demo import build_server

RUN = Path(__file__).with_name("run.py")


def stdio_command(name: str = "demo") -> list[str]:
    """The argv that runs the demo server over stdio."""
    return [sys.executable, str(RUN), "stdio", name]


@contextlib.contextmanager
def http_server(name: str = "demo", *, sse: bool = False) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run the demo server over streamable HTTP (or the older SSE transport) on 127.0.0.1 at a free port.

    Yields its URL and its process.
    """
    kind = "sse" if sse else "http"
    with serving([sys.executable, str(RUN), kind, name], "the HTTP demo server") as (port, proc):
        yield f"http://127.0.0.1:{port}/{kind if sse else 'mcp'}", proc


@contextlib.contextmanager
def serving(argv: list[str], what: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """Run a server process that prints "PORT <n>" once it listens; yields the port and the process, and
    stops it when the block ends."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"{what} did not start")
        yield int(line.split()[1]), proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def target(kind: str, http_url: str | None = None, name: str = "demo") -> Any:
    """A connect() target of the given kind ("inproc", "stdio", "http")."""
    if kind == "inproc":
        return build_server(name)
    if kind == "stdio":
        return stdio_command(name)
    assert http_url is not None
    return http_url
