"""A minimal Jupyter frontend for tests: starts a real kernel and talks to it like JupyterLab would.

It executes cells, reads IOPub, learns widget models from `comm_open` messages (target
`jupyter.widget`), and sends the messages a browser sends: button clicks (`custom` / `click`), state
updates (`update`) and a view's own messages (`send_custom`: what an anywidget's `model.send` sends), also
while a cell is still running; it keeps the custom messages the kernel sends to each model. Interrupts go
through the KernelManager."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

__all__ = ["CellResult", "KernelFrontend", "WidgetModel", "ipykernel_version"]

ROOT = Path(__file__).resolve().parents[2]
# IPython 7 (Google Colab's) puts its extensions folder on sys.path, and that holds a package `tests` which
# hides this repository's (a namespace package): the kernel's cells import ours (`tests.servers`).
_OUR_TESTS = (
    "--IPKernelApp.exec_lines=import sys as _s; "
    "_s.path[:] = [p for p in _s.path if not p.replace(chr(92), '/').endswith('/IPython/extensions')]; del _s"
)
# A cell that makes the kernel one where no page has rendered a widget of ours (`kernel.page_seen`): a
# headless run, whose unseen forms are declined after the short grace. Kernels reused across cases need it.
NO_PAGE = "import mcp_widgets.kernel.views as _views\n_views._page_seen = False"
_POLL = 0.02  # seconds per channel read while waiting for something


def ipykernel_version(python: str | Path) -> str:
    """The ipykernel version installed for `python` (asked in a subprocess)."""
    out = subprocess.run(
        [str(python), "-c", "import ipykernel; print(ipykernel.__version__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return out.stdout.strip()


@dataclass
class WidgetModel:
    """A widget model the kernel opened, as a frontend knows it."""

    comm_id: str
    model_name: str
    state: dict[str, Any]
    customs: list[Any] = field(default_factory=list)
    """The custom messages the kernel sent to this model's views (`model.on("msg:custom")`), in order."""


@dataclass
class CellResult:
    """What one execute request produced."""

    msg_id: str
    status: str | None = None  # "ok" / "error" / "aborted" once the reply arrived
    stdout: str = ""
    stderr: str = ""
    ename: str | None = None
    evalue: str | None = None
    traceback: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)  # execute_result / display_data data
    reply_time: float | None = None  # time.monotonic() when the reply arrived

    @property
    def done(self) -> bool:
        return self.status is not None


class KernelFrontend:
    """Drive one real kernel run by `python` (any venv with ipykernel installed).

    Use as a context manager; every wait takes a timeout and raises `TimeoutError` with what was seen.
    """

    def __init__(
        self, python: str | Path, *, cwd: str | Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.python = str(python)
        self.cwd = str(cwd or ROOT)
        self.env = env  # the kernel's whole environment (default: ours)
        self._dir = tempfile.TemporaryDirectory(prefix="mcpw-kernelspec-")
        self.km: KernelManager | None = None
        self.kc: BlockingKernelClient | None = None
        self.cells: dict[str, CellResult] = {}
        self.replies: dict[str, dict[str, Any]] = {}  # non-execute shell replies by parent msg_id
        self.widgets: dict[str, WidgetModel] = {}
        self.iopub_log: list[dict[str, Any]] = []

    # -- lifecycle

    def start(self, timeout: float = 60) -> KernelFrontend:
        spec_dir = Path(self._dir.name) / "kernels" / "mcpw-test"
        spec_dir.mkdir(parents=True)
        spec = {
            "argv": [self.python, "-m", "ipykernel_launcher", "-f", "{connection_file}", _OUR_TESTS],
            "display_name": "mcp-widgets test kernel",
            "language": "python",
            "interrupt_mode": "signal",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
        ksm = KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
        # IPC sockets in our temp dir: nothing listens on the network, and no TCP warning from the kernel.
        self.km = KernelManager(
            kernel_name="mcpw-test",
            kernel_spec_manager=ksm,
            transport="ipc",
            ip=str(Path(self._dir.name) / "kernel"),
            connection_file=str(Path(self._dir.name) / "kernel.json"),
        )
        # The kernel's own cache directory: jedi's parse cache (parso's pickles, written in place) is
        # shared by path, so a kernel killed while writing one left a truncated file that made every
        # later kernel of that venv complete nothing (CI: all of ipykernel 6.31's completions empty).
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("XDG_CACHE_HOME", str(Path(self._dir.name) / "cache"))
        self.km.start_kernel(cwd=self.cwd, env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=timeout)
        # wait_for_ready leaves kernel_info traffic behind; start from a clean slate.
        self._drain(0.1)
        return self

    def forget(self) -> None:
        """Forget what this frontend saw: the next case on a reused kernel starts from a clean slate."""
        self._drain(0.05)
        self.cells.clear()
        self.replies.clear()
        self.widgets.clear()
        self.iopub_log.clear()

    def stop(self) -> None:
        if self.kc is not None:
            self.kc.stop_channels()
        if self.km is not None and self.km.has_kernel:
            self.km.shutdown_kernel(now=True)
        self._dir.cleanup()

    def __enter__(self) -> KernelFrontend:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def client(self) -> BlockingKernelClient:
        assert self.kc is not None, "kernel not started"
        return self.kc

    # -- requests

    def execute(self, code: str, *, stop_on_error: bool = True) -> str:
        """Send an execute request without waiting; returns its msg_id."""
        msg_id = self.client.execute(code, allow_stdin=False, stop_on_error=stop_on_error)
        self.cells[msg_id] = CellResult(msg_id)
        return msg_id

    def complete(self, code: str, cursor_pos: int | None = None) -> str:
        """Send a complete request without waiting; returns its msg_id."""
        return self.client.complete(code, cursor_pos)

    def run(self, code: str, timeout: float = 30) -> CellResult:
        """Execute a cell and wait for its reply and its outputs."""
        return self.wait_cell(self.execute(code), timeout=timeout)

    def wait_cell(self, msg_id: str, timeout: float = 30) -> CellResult:
        cell = self.cells[msg_id]
        self.wait_until(lambda: cell.done, timeout=timeout, what=f"the reply to cell {msg_id}")
        self._drain(0.05)  # outputs published just before the reply
        return cell

    def wait_reply(self, msg_id: str, timeout: float = 30) -> dict[str, Any]:
        """Wait for the shell reply to a non-execute request."""
        self.wait_until(lambda: msg_id in self.replies, timeout=timeout, what=f"the reply to {msg_id}")
        return self.replies[msg_id]

    def interrupt(self) -> float:
        """Interrupt the kernel (SIGINT); returns the time.monotonic() it was sent."""
        assert self.km is not None
        sent = time.monotonic()
        self.km.interrupt_kernel()
        return sent

    # -- widgets

    def wait_widget(
        self,
        model_name: str = "ButtonModel",
        *,
        timeout: float = 30,
        where: Callable[[WidgetModel], bool] | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
    ) -> WidgetModel:
        """Wait until the kernel opened a widget model of this kind (and matching `where`)."""
        found: list[WidgetModel] = []

        def seen() -> bool:
            for w in self.widgets.values():
                if w.model_name == model_name and w.comm_id not in exclude and (where is None or where(w)):
                    found.append(w)
                    return True
            return False

        self.wait_until(seen, timeout=timeout, what=f"a {model_name} comm_open")
        return found[0]

    def click(self, widget: WidgetModel | str) -> None:
        """Send a Button click, exactly as the browser's widget manager does."""
        self.comm_msg(widget, {"method": "custom", "content": {"event": "click"}})

    def send_custom(self, widget: WidgetModel | str, content: Any) -> None:
        """Send what a view's `model.send(content)` sends (an anywidget's edits and buttons)."""
        self.comm_msg(widget, {"method": "custom", "content": content})

    def update(self, widget: WidgetModel | str, state: dict[str, Any]) -> None:
        """Send a state update from the frontend (a person typing into a field)."""
        self.comm_msg(widget, {"method": "update", "state": state, "buffer_paths": []})

    def comm_msg(self, widget: WidgetModel | str, data: dict[str, Any]) -> str:
        comm_id = widget.comm_id if isinstance(widget, WidgetModel) else widget
        msg = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.client.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])

    # -- reading

    def wait_until(self, condition: Callable[[], bool], *, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                pending = {k: v.status for k, v in self.cells.items()}
                # What the kernel printed last: an "Exception ignored" tells a lot.
                raise TimeoutError(
                    f"timed out after {timeout} s waiting for {what}; cells: {pending}; "
                    f"printed: {self.printed()[-800:]!r}"
                )
            self._read_one(_POLL)

    def printed(self) -> str:
        """Everything the kernel printed, under any parent (a widget callback prints under its click)."""
        return "".join(m["content"]["text"] for m in self.iopub_log if m["msg_type"] == "stream")

    def settle(self, seconds: float) -> None:
        """Keep reading both channels for `seconds` (lets in-flight messages arrive)."""
        self._drain(seconds)

    def _drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._read_one(_POLL)

    def _read_one(self, timeout: float) -> None:
        kc = self.client
        got = False
        while True:
            try:
                msg = kc.get_shell_msg(timeout=0)
            except queue.Empty:
                break
            got = True
            self._on_shell(msg)
        while True:
            try:
                msg = kc.get_iopub_msg(timeout=0 if got else timeout)
            except queue.Empty:
                break
            got = True
            self._on_iopub(msg)

    def _on_shell(self, msg: dict[str, Any]) -> None:
        parent = msg["parent_header"].get("msg_id")
        if msg["msg_type"] == "execute_reply" and parent in self.cells:
            cell = self.cells[parent]
            cell.status = msg["content"]["status"]
            cell.reply_time = time.monotonic()
            if cell.status == "error":
                cell.ename = msg["content"].get("ename")
                cell.evalue = msg["content"].get("evalue")
        else:
            self.replies[parent] = msg["content"]

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        self.iopub_log.append(msg)
        kind = msg["msg_type"]
        content = msg["content"]
        cell = self.cells.get(msg["parent_header"].get("msg_id", ""))
        if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            state = dict(content.get("data", {}).get("state", {}))
            self.widgets[content["comm_id"]] = WidgetModel(
                content["comm_id"], str(state.get("_model_name", "")), state
            )
        elif kind == "comm_msg":
            widget = self.widgets.get(content.get("comm_id", ""))
            data = content.get("data", {})
            if widget is not None and data.get("method") in ("update", "echo_update"):
                widget.state.update(data.get("state", {}))
            elif widget is not None and data.get("method") == "custom":
                widget.customs.append(data.get("content"))
        elif kind == "comm_close":
            self.widgets.pop(content.get("comm_id", ""), None)
        elif cell is None:
            return
        elif kind == "stream":
            if content["name"] == "stdout":
                cell.stdout += content["text"]
            else:
                cell.stderr += content["text"]
        elif kind == "error":
            cell.ename = content["ename"]
            cell.evalue = content["evalue"]
            cell.traceback = list(content.get("traceback", []))
        elif kind in ("execute_result", "display_data"):
            cell.results.append(content.get("data", {}))
