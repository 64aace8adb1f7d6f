"""Finding the running kernel (once), what it supports, and posting work to its main thread; a frontend that
cannot show our widgets (VS Code with ipywidgets 8.1.9) is said once."""

from __future__ import annotations

import concurrent.futures
import contextlib
import heapq
import itertools
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import TypeVar

from .adapter import Kernel, KernelSupport
from .marimo import in_marimo, marimo_loop
from .posted import PLAIN_LOOPS, POSTED, WAKER, in_comm_handler, run_posted

T = TypeVar("T")


def post(fn: Callable[[], None]) -> None:
    """Run `fn` on the kernel's main thread as soon as possible; callable from any thread.

    When the main thread is idle, `fn` runs from the kernel's event loop; while it is blocked in
    `wait_sync`, the wait runs it. Without a kernel, it runs in whichever thread is in `wait_sync` (or
    the loop awaiting in `wait_async`), or at `flush_posted`. Callbacks run in the order they were
    posted; an exception is logged, not raised.
    """
    POSTED.append(fn)
    WAKER.wake()
    kernel = get_kernel()
    loops = [kernel.loop] if kernel is not None and kernel.loop is not None else list(PLAIN_LOOPS)
    host = marimo_loop() if kernel is None else None
    if host is not None and host not in loops:
        loops.append(host)  # between cells nothing else would run it: marimo's loop idles then
    for loop in loops:
        # The loop may be closing at shutdown: then the waker or the next wait runs the callback.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(run_posted)


class _Later:
    """Callbacks due at a time, posted to the main thread then (`post_later`): one daemon thread sleeps until
    the next is due, however many wait."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, delay: float, fn: Callable[[], None]) -> None:
        with self._cond:
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), fn))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mcp-widgets-later", daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._cond.wait(self._due[0][0] - time.monotonic() if self._due else None)
                fn = heapq.heappop(self._due)[2]
            post(fn)


_LATER = _Later()


def post_later(delay: float, fn: Callable[[], None]) -> None:
    """`post` `fn` once `delay` seconds have passed (callable from any thread)."""
    if delay <= 0:
        post(fn)
    else:
        _LATER.add(delay, fn)


def flush_posted() -> None:
    """Without a kernel, run what was posted now, in this thread: a close returns with what it withdrew
    closed, though nothing waits any more. A kernel's loop runs them when the cell lets it."""
    if get_kernel() is None:
        run_posted()


def call_on_main(fn: Callable[[], T]) -> concurrent.futures.Future[T]:
    """Like `post`, but return a future holding `fn`'s result or exception (for background threads)."""
    fut: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(fn())
        except BaseException as exc:
            fut.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    post(run)
    return fut


_kernel_lock = threading.Lock()
_kernel_cache: list[Kernel] = []  # empty until a kernel is found
_warned_background = False


def get_kernel() -> Kernel | None:
    if _kernel_cache:
        return _kernel_cache[0]
    # Without IPython's shell loaded there is no kernel; don't import it just to find out. (What
    # `IPython.get_ipython()` does, without the two imports it makes on each call: this runs on every
    # post and wait.)
    shells = sys.modules.get("IPython.core.interactiveshell")
    shell = None
    if shells is not None:
        with contextlib.suppress(Exception):
            if shells.InteractiveShell.initialized():
                shell = shells.InteractiveShell.instance()
    kernel_obj = getattr(shell, "kernel", None) if shell is not None else None
    if kernel_obj is None:
        return None  # not cached: a kernel may still start around us (imported from sitecustomize, say)
    with _kernel_lock:
        if not _kernel_cache:
            import ipykernel

            _kernel_cache.append(Kernel(kernel_obj, getattr(ipykernel, "__version__", "")))
    return _kernel_cache[0]


def forget_kernel() -> None:
    """Forget the kernel found so far (the next look finds it again); the client's `Runtime` resets it."""
    with _kernel_lock:
        _kernel_cache.clear()


def kernel_version() -> str | None:
    """The running ipykernel's version, or None without a kernel."""
    kernel = get_kernel()
    return kernel.version if kernel is not None else None


def attach() -> None:
    """Hook into the running kernel, if any: cheap and idempotent; widgets call it when they are built.

    Among other things this makes widget updates that arrive while a cell is running acknowledged to the
    frontend (see `Kernel.comm_handled_during_cell`), whether or not the cell waits through this module.
    The first time a kernel is found, a frontend known not to show widgets is said (`frontend_problem`).
    """
    global _frontend_checked
    if get_kernel() is None:
        in_marimo()  # looked at from a cell's thread, where marimo's context is; remembered for the others
        return
    if _frontend_checked:
        return
    _frontend_checked = True
    problem = frontend_problem()
    if problem is not None:
        sys.stderr.write(problem + "\n")  # one line in the cell that imported us (the kernel's stderr)


_frontend_checked = False

VSCODE_BLANK_WIDGETS = frozenset({"8.1.9"})
"""ipywidgets releases from which VS Code's notebooks show no widget at all (vscode-jupyter #17504, open since
2026-08-19: a plain FloatSlider shows with 8.1.8, nothing with 8.1.9). Add a release once it is confirmed."""


def under_vscode(environ: Mapping[str, str] | None = None) -> bool:
    """Did VS Code's Jupyter extension start this kernel?

    It starts a Python kernel with its extension host's environment (`VSCODE_PID`, `VSCODE_CWD`,
    `VSCODE_IPC_HOOK`, ...) and sets `PYDEVD_IPYTHON_COMPATIBLE_DEBUGGING=1` itself
    (`KernelEnvironmentVariablesService`). Both are asked: a JupyterLab started from VS Code's terminal
    inherits VS Code's variables, not that one.
    """
    env = os.environ if environ is None else environ
    vscode = any(name.startswith("VSCODE_") for name in env)
    return vscode and env.get("PYDEVD_IPYTHON_COMPATIBLE_DEBUGGING") == "1"


def frontend_problem(environ: Mapping[str, str] | None = None, widgets: str | None = None) -> str | None:
    """The line to say when this kernel's frontend cannot show our forms (VS Code with an ipywidgets it
    shows nothing of), else None. `widgets`: the installed ipywidgets version (default: looked up)."""
    if not under_vscode(environ):
        return None
    if widgets is None:
        try:
            widgets = metadata.version("ipywidgets")
        except metadata.PackageNotFoundError:
            return None
    if widgets not in VSCODE_BLANK_WIDGETS:
        return None
    return (
        f"mcp-widgets: VS Code shows no widget from ipywidgets {widgets} (vscode-jupyter #17504), so no "
        "form would appear here: pip install ipywidgets==8.1.8 in this kernel's environment, then restart "
        "the kernel"
    )


def kernel_support() -> KernelSupport:
    """How a running cell can wait for widget clicks on this kernel.

    Returns:
        "native": ipykernel >= 7.4; a top-level `await` receives comms by itself.
        "pump": a tested older release (6.17, Colab's; 6.31; 7.3); waits pump comms themselves.
        "background": an unknown or unsupported kernel; warns once; callers should run calls in the
            background and let the cell return.
        "none": no IPython kernel (plain python, terminal IPython, marimo: `in_marimo` tells which).
    """
    global _warned_background
    kernel = get_kernel()
    if kernel is None:
        return "none"
    if kernel.support == "background" and not _warned_background:
        _warned_background = True
        why = kernel.pump_problem or "this release is not supported"
        warnings.warn(
            f"mcp_widgets: ipykernel {kernel.version or '(unknown version)'} cannot deliver widget clicks "
            f"to a waiting cell ({why}); calls run in the background instead",
            RuntimeWarning,
            stacklevel=2,
        )
    return kernel.support


def blocking_supported() -> bool:
    """True when `wait_sync` can wait for clicks here (the pump works, or there is no kernel)."""
    kernel = get_kernel()
    if kernel is None:
        return True
    return kernel.support != "background" and kernel.pump_problem is None


def deliver_comms() -> None:
    """Handle now the widget messages that already reached the kernel; other requests stay queued.

    A frontend's messages wait behind a running cell unless it waits through this module (behind any
    cell on ipykernel 6.31-7.3; behind a busy synchronous cell on every release), and just after such a
    cell they may still be unread. Call this before deciding on what a frontend has said, such as whether
    it showed a form. A no-op off the kernel's main thread, inside a widget callback, or without a kernel.
    """
    kernel = get_kernel()
    if (
        kernel is None
        or kernel.support not in ("native", "pump")
        or kernel.pump_problem is not None
        or in_comm_handler()
        or threading.current_thread() is not threading.main_thread()
    ):
        return
    # Older than anything still on the socket: the kernel read them and has not handled them yet (on 7.4 too,
    # where a comm waits a loop turn or two in its tasks). Draining first would handle a click before the
    # keystrokes typed ahead of it.
    kernel.deliver_queued_comms()
    try:
        kernel.drain_socket()
    finally:
        kernel.rearm()
