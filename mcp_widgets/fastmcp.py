"""Use mcp-widgets forms as a fastmcp `Client`'s elicitation handler (fastmcp is an optional extra).

    from fastmcp import Client
    from mcp_widgets.fastmcp import elicitation_handler

    async with Client(url, elicitation_handler=elicitation_handler(server="weather")) as client:
        await client.call_tool("forecast", {})

fastmcp runs its client on the notebook's own event loop, in the cell that awaits it, so the form is shown
in that cell and the handler awaits the answer there (pumping widget messages on kernels that need it).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import mcp_types

from . import kernel
from .client.questions.answering import answer, pick_handler
from .core.card import Card, Handler
from .core.outcome import Action, Reason

__all__ = ["elicitation_handler"]


def elicitation_handler(
    *, server: str, handler: Handler | None = None, output: Any = None
) -> Callable[..., Awaitable[Any]]:
    """A fastmcp elicitation handler that shows each request as a form.

    Args:
        server: The name the form shows for the server that asks.
        handler: Answers instead of the person (as `connect(..., handler=)`); else the default handler,
            then MCP_WIDGETS_HANDLER, then the person.
        output: An ipywidgets `Output` to show forms in (instead of the current cell).

    Returns:
        `async def handle(message, response_type, params, context)`: returns the accepted content as a dict,
        or fastmcp's `ElicitResult` for decline / cancel.

    Raises (from the returned handler):
        SchemaError: the server's schema is invalid (fastmcp reports it to the server as an error).
    """

    async def handle(message: str, response_type: Any, params: Any, context: Any) -> Any:
        schema = getattr(params, "requested_schema", None)
        if schema is None:
            schema = getattr(params, "requestedSchema", None)
        if schema is None:  # a URL-mode request: not supported yet
            return _result("decline", None)
        from .widgets import ElicitationForm

        form = ElicitationForm(message, dict(schema), server=server)  # SchemaError propagates

        def _show(card: Card) -> None:
            if output is not None:
                output.append_display_data(card)
            elif kernel.kernel_support() != "none":
                kernel.display(card)

        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        form.add_done_callback(lambda f: done.set_result(f.result))
        # Awaited in the cell, like `await srv.call_tool(...)`: the same checks (console, background kernel).
        answer(form, pick_handler(handler), server=server, style="await", show=_show)
        try:
            result = await kernel.wait_async(done)
        except BaseException:  # interrupted (KeyboardInterrupt / CancelledError): the form says so
            form.finish(Action.CANCEL, reason=Reason.INTERRUPT)  # its reason says so: no note repeats it
            raise
        if result.action == "accept":
            return dict(result.content or {})
        return _result(result.action, None)

    return handle


def _result(action: Literal["accept", "decline", "cancel"], content: Any) -> Any:
    """fastmcp's `ElicitResult` (without fastmcp, in our tests, the SDK's: it has the same fields)."""
    try:
        from fastmcp.client.elicitation import ElicitResult as FastResult
    except ImportError:
        return mcp_types.ElicitResult(action=action, content=content)
    return FastResult(action=action, content=content)
