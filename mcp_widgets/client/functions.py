"""`srv.fn`: a server's tools as Python functions (docs/functions.md).

Each tool is a real function object (so `help()`, IPython's `?` and completion read it as any function):
its `__signature__` and `__doc__` come from the tool (`core.tool_signature`), calling it checks the
arguments before anything is sent and returns an awaitable; `fn.sync(...)` blocks as `call_tool_sync` does.
Forms, URL cards and progress appear in the cell as for any call (the calls go through the server's own
`call_tool` / `call_tool_sync`).

The parts take only what they need: the tool listing, a call function for each style, and the server's
name — not the `Server`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

import mcp_types

from ..core.exceptions import argument_errors, one_line
from ..core.text import shorten
from ..core.tools.signature import (
    OutputSchemaError,
    ToolError,
    bind_arguments,
    check_output,
    python_names,
    reserved,
    tool_docstring,
    tool_signature,
)

__all__ = ["ToolFunctions", "tool_function"]

ERROR_KEEP = 2_000
"""Characters of a tool's refusal a `ToolError` says, as of a server's error (`running.ERROR_KEEP`)."""

AsyncCall = Callable[[str, dict[str, Any]], Awaitable[mcp_types.CallToolResult]]
SyncCall = Callable[[str, dict[str, Any]], mcp_types.CallToolResult]


class InvalidStructuredContent(RuntimeError):
    """The SDK's own outputSchema check failed (its RuntimeError, same message), with `result` kept."""

    def __init__(self, message: str, *, result: mcp_types.CallToolResult) -> None:
        super().__init__(message)
        self.result = result


def keep_invalid_results(session: Any) -> None:
    """Make the SDK session's outputSchema check raise `InvalidStructuredContent` carrying the result (the
    SDK raises a plain RuntimeError and the result is lost), so that a tool's function can keep it."""
    check = session.validate_tool_result

    async def validate(name: str, result: mcp_types.CallToolResult) -> None:
        try:
            await check(name, result)
        except InvalidStructuredContent:
            raise
        except RuntimeError as exc:
            raise InvalidStructuredContent(str(exc), result=result) from exc

    session.validate_tool_result = validate


def _text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))


def outcome(tool: mcp_types.Tool, result: mcp_types.CallToolResult) -> Any:
    """What a tool's function returns for `result`: the structured content (checked against the output
    schema), else the text, else the content list.

    Raises:
        ToolError: The tool reported a failure.
        OutputSchemaError: The structured content breaks the tool's outputSchema (`.result` is the result).
    """
    if result.is_error:  # the line a cell shows: a refusal of 1 MB is cut (`.result` has it whole)
        said = shorten(_text(result), ERROR_KEEP)
        raise ToolError(f"{tool.name}: {said or 'the tool reported an error'}", result=result)
    structured = result.structured_content
    schema = tool.output_schema
    if schema:
        if structured is None:
            raise OutputSchemaError(
                f"{tool.name}: no structured content, though the tool declares an outputSchema", result=result
            )
        problem = check_output(schema, structured)
        if problem is not None:
            raise OutputSchemaError(
                f"{tool.name}: the result does not match its outputSchema: {problem}", result=result
            )
        if _wrapped(schema) and isinstance(structured, dict) and set(structured) == {"result"}:
            return structured["result"]  # a plain value the server wrapped in {"result": ...}
        return structured
    if structured is not None:
        return structured
    text = _text(result)
    if text or not result.content:
        return text
    return list(result.content)


def _wrapped(schema: Any) -> bool:
    """fastmcp marks an output schema it made for a plain return value (`-> int`)."""
    return isinstance(schema, dict) and schema.get("x-fastmcp-wrap-result") is True


def tool_function(
    tool: mcp_types.Tool, python_name: str, server: str, call: AsyncCall, call_sync: SyncCall
) -> Any:
    """The tool as a function: `await f(...)`, `f.sync(...)`; `f.tool` is the SDK's Tool."""
    schema: Mapping[str, Any] = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
    output = tool.output_schema if isinstance(tool.output_schema, Mapping) else None
    signature = tool_signature(schema, output)

    def arguments(args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        with argument_errors():  # one line, as every error a call raises (docs/troubleshooting.md)
            return bind_arguments(signature, schema, python_name, args, kwargs)

    @one_line
    async def finish(sent: dict[str, Any]) -> Any:
        try:
            result = await call(tool.name, sent)
        except InvalidStructuredContent as exc:
            result = exc.result  # the SDK's check failed: ours says how, and keeps the result
        return outcome(tool, result)

    @one_line
    def function(*args: Any, **kwargs: Any) -> Awaitable[Any]:
        return finish(arguments(args, kwargs))  # checked now: a bad call raises before anything is sent

    @one_line
    def sync(*args: Any, **kwargs: Any) -> Any:
        try:
            result = call_sync(tool.name, arguments(args, kwargs))
        except InvalidStructuredContent as exc:
            result = exc.result
        return outcome(tool, result)

    doc = tool_docstring(tool.description, schema, output, server=server, tool=tool.name)
    made: tuple[Any, ...] = (function, sync)
    for f in made:
        f.__name__ = f.__qualname__ = python_name if f is function else f"{python_name}.sync"
        f.__doc__ = doc
        f.__signature__ = signature
        f.__module__ = "mcp_widgets.tools"
    function.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    returns: Any = signature.return_annotation
    function.__annotations__["return"] = Awaitable[returns]
    function.sync = sync  # type: ignore[attr-defined]
    function.tool = tool  # type: ignore[attr-defined]
    return function


class _Listing:
    """What a `ToolFunctions` knows besides its functions: the Python names, the functions by tool name, and
    the server's name."""

    __slots__ = ("by_tool", "names", "server")

    def __init__(self, names: dict[str, str], by_tool: dict[str, Any], server: str) -> None:
        self.names = names
        self.by_tool = by_tool
        self.server = server


class ToolFunctions:
    """A server's tools as functions, by Python name (`srv.fn.get_weather`) or by the tool's own name
    (`srv.fn["get-weather"]`). Made from the listing when connecting (`await srv.list_tools()` refreshes).

    The instance's `__dict__` holds the functions only (real attributes: completion, jedi or not, lists
    them); its own state is in the slot `__listing__`, a name no tool's Python name can be (one that
    begins and ends with an underscore is renamed, `core.tool_signature.identifier`), and so are the
    names Python and IPython look up (`__init__`, `_ipython_display_`, `_repr_html_`).
    """

    __slots__ = ("__dict__", "__listing__")

    def __init__(
        self, tools: Sequence[mcp_types.Tool], server: str, call: AsyncCall, call_sync: SyncCall
    ) -> None:
        names = python_names([t.name for t in tools])
        by_name = {t.name: t for t in tools}
        by_tool: dict[str, Any] = {}
        for py, name in names.items():
            f = tool_function(by_name[name], py, server, call, call_sync)
            by_tool[name] = f
            self.__dict__[py] = f
        self.__listing__ = _Listing(names, by_tool, server)

    def __getitem__(self, name: str) -> Any:
        """The function of the tool `name` (its own name, or its Python name)."""
        listing = self.__listing__
        if name in listing.by_tool:
            return listing.by_tool[name]
        if name in listing.names:
            return listing.by_tool[listing.names[name]]
        raise KeyError(f"{listing.server!r} lists no tool {name!r} (refresh with `await srv.list_tools()`)")

    def __getattr__(self, name: str) -> Any:
        if reserved(name):  # what Python and IPython ask of any object (`_repr_html_`): not a tool
            raise AttributeError(name)
        listing = self.__listing__
        raise AttributeError(
            f"{listing.server!r} lists no tool {name!r}: its tools are "
            + (", ".join(sorted(listing.names)) or "none")
        )

    def __dir__(self) -> list[str]:
        return sorted(self.__listing__.names)

    def _ipython_key_completions_(self) -> list[str]:
        """`srv.fn["<Tab>` completes the tools' own names."""
        return list(self.__listing__.by_tool)

    def __iter__(self) -> Iterator[str]:
        return iter(self.__listing__.names)

    def __len__(self) -> int:
        return len(self.__listing__.names)

    def __contains__(self, name: object) -> bool:
        listing = self.__listing__
        return name in listing.names or name in listing.by_tool

    def __repr__(self) -> str:
        listing = self.__listing__
        shown = []
        for py, name in listing.names.items():
            sig = inspect.signature(listing.by_tool[name])
            shown.append(f"  {py}{sig}" + (f"  # tool {name!r}" if py != name else ""))
        return f"<tools of {listing.server!r} as functions:\n" + "\n".join(shown) + ">"
