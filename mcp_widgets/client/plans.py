"""A request as a server's method plans it (`Plan`), and the three ways a caller waits for one.

`Server` writes one builder per kind of request (`_tool`, `_prompt`, `_resource`, `_template`): it takes the
public method's arguments and returns a `Plan`. Each public method is then one line, the builder in one
of three forms: `awaited` (`call_tool`), `blocking` (`call_tool_sync`) or `background`
(`call_tool_background`, returning a `Call`), so the three cannot drift apart. `name_variants` gives each
its public name, signature and docstring once the class is made.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar

from ..core.exceptions import one_line

if TYPE_CHECKING:
    from .call import Call
    from .running import Request, Runner

__all__ = ["Plan", "Waitable", "awaited", "background", "blocking", "name_variants"]

P = ParamSpec("P")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
S = TypeVar("S")
R = TypeVar("R")

_BLOCKING = """`{base}` for synchronous code: blocks the cell, while clicks still reach its forms.

Raises:
    BlockingCallError: Inside a widget callback (use `{base}_background` there), or on a kernel that
        cannot deliver clicks to a blocked cell.
"""
_BACKGROUND = """`{base}` returning at once with a `Call` handle (its forms still appear in this cell):
`await call`, `call.result()`, `call.cancel()`."""


class Waitable(Protocol[T_co]):
    """What a builder returns: a `Plan`, or a completion asked for (`completion.Asked`)."""

    def awaited(self) -> Coroutine[Any, Any, T_co]: ...

    def blocking(self) -> T_co: ...


@dataclass(frozen=True, eq=False)
class Plan(Generic[T]):
    """One request of a server, checked and ready to run (nothing sent yet), in any of the three ways."""

    runner: Runner
    kind: str
    """"tool", "prompt" or "resource": the words of the call's line."""
    name: str
    request: Request[T]
    arguments: dict[str, Any] | None = None
    output: Any = None

    async def awaited(self) -> T:
        return await self.runner.run(self.kind, self.name, self.output, self.request, self.arguments)

    def blocking(self) -> T:
        return self.runner.run_sync(self.kind, self.name, self.output, self.request, self.arguments)

    def background(self, *, typed: bool = False) -> Call:
        """`typed`: the arguments are what a person typed into a form: the wire names them, never their
        values (a form's Run passes it; no public method takes it)."""
        return self.runner.run_background(
            self.kind, self.name, self.output, self.request, self.arguments, typed=typed
        )


def awaited(
    build: Callable[Concatenate[S, P], Waitable[T]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """The method that awaits `build`'s request (`await srv.call_tool(...)`)."""

    async def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await build(self, *args, **kwargs).awaited()

    return _variant(one_line(run), build, "")


def blocking(build: Callable[Concatenate[S, P], Waitable[T]]) -> Callable[Concatenate[S, P], T]:
    """The method that blocks for `build`'s request (`srv.call_tool_sync(...)`)."""

    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return build(self, *args, **kwargs).blocking()

    return _variant(one_line(run), build, "_sync")


def background(build: Callable[Concatenate[S, P], Plan[Any]]) -> Callable[Concatenate[S, P], Call]:
    """The method that starts `build`'s request and returns its `Call` (`srv.call_tool_background(...)`)."""

    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> Call:
        return build(self, *args, **kwargs).background()

    return _variant(one_line(run), build, "_background")


def _variant(run: R, build: Callable[..., Any], suffix: str) -> R:
    run._variant_of = (build, suffix)  # type: ignore[attr-defined]  # read by `name_variants`
    return run


def name_variants(cls: type) -> None:
    """Give each method `awaited` / `blocking` / `background` made in `cls` its name, signature and
    docstring: the builder's, returning what the variant returns."""
    for name, method in list(vars(cls).items()):
        made = getattr(method, "_variant_of", None)
        if made is None:
            continue
        build, suffix = made
        base = name.removesuffix(suffix)
        signature = inspect.signature(build)
        returns = str(signature.return_annotation).partition("[")[2].removesuffix("]")  # Plan[T]: T
        if suffix == "_background":
            returns = "Call"
        method.__name__, method.__qualname__ = name, f"{cls.__name__}.{name}"
        method.__signature__ = signature.replace(return_annotation=returns)
        docs = {
            "": build.__doc__,
            "_sync": _BLOCKING.format(base=base),
            "_background": _BACKGROUND.format(base=base),
        }
        method.__doc__ = docs[suffix]
