"""The kernel room: the only code that knows ipykernel, comm, zmq, IPython internals and signals.

Waiting for a person while a cell runs. A click on a form reaches the kernel as a `comm_msg` on the shell
channel. Whether the kernel handles it while a cell is still running depends on the ipykernel version and on
how the cell waits:

- ipykernel >= 7.4 dispatches comm messages while a running cell awaits ("native"): `wait_async` just
  awaits. ipykernel turns an interrupt of an awaiting cell into a cancellation scheduled without waking
  the event loop, so the wait also makes SIGINT wake the loop (and wakes every 0.25 s regardless).
- ipykernel 6.31 and 7.3, and 6.17 (Google Colab's), queue them behind the running cell ("pump"; only the
  releases the tests run pump, any other waits in the background): `wait_async` takes over the main shell
  stream's receive callback while it awaits, handles comm messages at once and passes everything else on
  to the kernel's own queue, in order. Comm messages the kernel queued before the wait began (the cell had
  already yielded to the event loop) are taken out of its queue when the wait starts.
- A blocking wait (`wait_sync`) stops the event loop on every version, so it always pumps: it reads the
  main shell socket itself on the main thread, dispatches comm messages, runs posted callbacks, and
  hands every other request (execute, complete, ...) to the kernel's own queue, where it runs after the
  wait, in arrival order, never re-entrantly.

The pump relies on private ipykernel attributes (`ZMQStream._recv_callback`, `kernel._parent_ident`,
`kernel.shell_handlers`, the subshell manager's socket pair on 7.x; for what the kernel queued, 6.x's
`msg_queue` and on 7.x the tasks waiting on `_main_asyncio_lock`). They are used only by `Kernel` (adapter,
queued, pump), are checked before use (`Kernel._check_pump`: a kernel without them gets "background"
support), and the real-kernel tests in tests/kernel pin them per release.

Modules: `posted` (callbacks for the main thread and the waker), `adapter` (one kernel: cell tracking and
comm dispatch, with `queued` for the comms it queued and `pump` for the pump), `running_kernel` (finding
the kernel, what it supports, `post`), `waits`, `signals`, `views` (displays; is anyone looking?), `comms` (do
comms reach a front end?), `marimo` (marimo's runtime, which has no IPython kernel), `formatters` (how
IPython shows objects we do not own), `completion` (Tab in a code cell: a server's completions in a
prompt's or template's argument string) and `names` (the name a notebook binds an object to).
"""

from __future__ import annotations

from .adapter import KernelSupport
from .completion import complete_in_code
from .formatters import show_types_with
from .marimo import in_marimo, marimo_stack, ui_element
from .names import bound_name
from .posted import in_comm_handler
from .running_kernel import (
    attach,
    blocking_supported,
    call_on_main,
    deliver_comms,
    flush_posted,
    forget_kernel,
    kernel_support,
    kernel_version,
    post,
    post_later,
)
from .signals import interrupt_deferred, interrupts
from .views import (
    bundle_of,
    display,
    display_as,
    is_viewed,
    note_page,
    page_seen,
    running_cell,
    say,
    seen_by_now,
    track_views,
    viewed_future,
    widget_bundle,
    with_text,
)
from .waits import wait_async, wait_sync

__all__ = [
    "KernelSupport",
    "attach",
    "blocking_supported",
    "bound_name",
    "bundle_of",
    "call_on_main",
    "complete_in_code",
    "deliver_comms",
    "display",
    "display_as",
    "flush_posted",
    "forget_kernel",
    "in_comm_handler",
    "in_marimo",
    "interrupt_deferred",
    "interrupts",
    "is_viewed",
    "kernel_support",
    "kernel_version",
    "marimo_stack",
    "note_page",
    "page_seen",
    "post",
    "post_later",
    "running_cell",
    "say",
    "seen_by_now",
    "show_types_with",
    "track_views",
    "ui_element",
    "viewed_future",
    "wait_async",
    "wait_sync",
    "widget_bundle",
    "with_text",
]

# Detect the kernel at import, so that comm handlers are marked before any widget callback runs.
attach()
