"""The connection's stream stack: the layers a transport's two streams pass through, in one stated order.

Each layer wraps the transport (an async context manager yielding `(read, write)`) and gives one back; the
SDK client gets the last. A layer that has nothing to do for a kind of target gives the transport back as it
is (an in-process server has no JSON-RPC stream: only its client is tapped, `WireCapture.tap_client`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .questions import bounds
from .targets import watched
from .tasks import experimental as tasks

if TYPE_CHECKING:
    from .context import ServerContext
    from .wire.capture import WireCapture

ORDER = ("exit", "wire", "tasks", "rounds")
"""The layers, innermost (nearest the server) first. Why this order:

- `exit` sits on the transport itself: it must see the server's output end and each stdout line that was
  not JSON-RPC as the transport reports them, before anything else reads (or records) them.
- `wire` comes next, under every layer that rewrites a message: the wire shows what the server sent (a
  task's `CreateTaskResult`, an oversized round) and what we sent, not what we made of it.
- `tasks` hands a task-augmented call's `CreateTaskResult` on as a `CallToolResult` (it and `rounds`
  rewrite different answers).
- `rounds` is outermost, nearest the SDK: an oversized `input_required` round becomes an error just before
  the SDK parses it (the SDK builds a model of every question of a round first), so nothing of it is built.
"""


@dataclass(frozen=True)
class Layer:
    """One layer of the stack: its name (one of `ORDER`) and what wraps a transport in it."""

    name: str
    wrap: Callable[[Any], Any]


def stack(
    kind: str,
    ctx: ServerContext,
    wire: WireCapture,
    *,
    on_end: Callable[[], None],
    on_garbage: Callable[[Exception], None],
) -> list[Layer]:
    """The layers for a target of `kind`, in `ORDER` (innermost first)."""
    layers = {
        "exit": Layer("exit", lambda t: watched(t, on_end, on_garbage) if kind == "stdio" else t),
        "wire": Layer("wire", lambda t: wire.tap(kind, t)),
        "tasks": Layer("tasks", lambda t: tasks.adapt(kind, t)),
        "rounds": Layer("rounds", lambda t: bounds.bound(kind, ctx, t)),
    }
    return [layers[name] for name in ORDER]


def stacked(transport: Any, layers: list[Layer]) -> Any:
    """`transport` wrapped in each of `layers`, the first innermost."""
    for layer in layers:
        transport = layer.wrap(transport)
    return transport
