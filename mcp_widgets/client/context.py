"""What every part of a server shares: the person's settings and what the connection learned.

A `Server` is a facade over parts (connection, intake, display, runner, catalog). None of them holds the
`Server`: each gets the `ServerContext` and the few callbacks it needs, as the SDK's `ClientSession` gets
its callbacks. `srv.timeout = 5` writes into `ctx.settings`, so a change takes effect at the next use.
State a part keeps per server (open tasks, recent answers, a round's limit) lives in that part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, overload

from ..core.card import Handler
from ..core.exceptions import argument_errors, one_line

if TYPE_CHECKING:
    import ipywidgets
    from mcp import Client

    from .listings import PromptList, ResourceList, ServerInfo, ToolList

__all__ = ["Handler", "Learned", "Link", "LinkState", "ServerContext", "Setting", "Settings"]

LinkState = Literal["new", "connecting", "connected", "closed", "lost"]


@dataclass(eq=False)
class Settings:
    """What the person chose for a server (`connect(...)` arguments, or set on the server later)."""

    name: str
    """The name we know it by: its pending list, history and forms go by it."""
    handler: Handler | None = None
    mode: str = "auto"
    timeout: float | None = None
    answer_timeout: float | None = None
    output: ipywidgets.Output | None = None
    log_level: str | None = "info"
    max_questions: tuple[int, int] = (100, 20)
    apps: bool = True
    """Show MCP Apps (and advertise the extension): `connect(..., apps=False)` turns them off."""
    wire: int = 5000
    """Messages the wire keeps (`srv.wire`); 0: none are captured."""


@dataclass(eq=False)
class Learned:
    """What the connection learned at the handshake and from listing (kept after `close`)."""

    declared_name: str | None = None
    """What the server calls itself (its `serverInfo.name`)."""
    protocol_version: str | None = None
    info: ServerInfo | None = None
    tools: ToolList | None = None
    resources: ResourceList | None = None
    prompts: PromptList | None = None


@dataclass(eq=False)
class Link:
    """The state of the connection as the other parts see it (written by the connection only)."""

    state: LinkState = "new"
    client: Client | None = None
    """The SDK client while connected (a new one after `reconnect`)."""
    closing: bool = False
    """`close` was asked for: the connection is on its way down."""
    released: bool = False
    """`close` was asked for, or a failed connect gave up: the server's name is free for another."""
    resuming: bool = False
    """`reconnect` is under way: the tasks in flight are kept for the next connection."""


@dataclass(eq=False)
class ServerContext:
    """A server's settings, what it told us, and its link: what its parts receive instead of the server."""

    settings: Settings
    learned: Learned = field(default_factory=Learned)
    link: Link = field(default_factory=Link)

    @property
    def name(self) -> str:
        return self.settings.name


T = TypeVar("T")


class _HasContext(Protocol):
    _ctx: ServerContext


class Setting(Generic[T]):
    """An attribute of the server facade that is one of its `Settings` (`srv.timeout = 5` writes there,
    so every part reads the new value at its next use).

    `check(facade, field, value)` (`Server`'s: `connect`'s own checks) returns the value as kept (an int
    `max_questions` as its pair) or raises: a wrong value is a one-line error where it is set and the old
    value stays (it never reaches the client thread, where it would fail a question).
    """

    def __init__(self, doc: str, check: Callable[[Any, str, Any], Any] | None = None) -> None:
        self.__doc__ = doc
        self.field = ""
        self.check = check

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = name

    @overload
    def __get__(self, obj: None, owner: type) -> Setting[T]: ...
    @overload
    def __get__(self, obj: _HasContext, owner: type) -> T: ...
    def __get__(self, obj: _HasContext | None, owner: type) -> Any:
        return self if obj is None else getattr(obj._ctx.settings, self.field)

    @one_line
    def __set__(self, obj: _HasContext, value: T) -> None:
        if self.check is not None:
            with argument_errors():
                value = self.check(obj, self.field, value)
        setattr(obj._ctx.settings, self.field, value)
