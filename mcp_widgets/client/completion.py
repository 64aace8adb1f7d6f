"""Asking a server to complete a prompt argument or a template variable (`completion/complete`).

`Completer.subject` finds what is completed (a listed prompt by name, a listed resource template by its URI
template or name) and refuses, before anything is sent, a server without the `completions` capability or a
name it does not list: one line naming what it has. `Completer.ask` sends the request on the client thread
(the SDK speaks either protocol generation) and reads the answer as a `Completion`, at most 100 values.

`Completer.code_values` answers Tab in a code cell (`kernel.complete_in_code`: the kernel's shell thread waits
for it, at most `CODE_TIMEOUT`): the values, or none when the server offers no completions for it, is slow
or fails, or when asked from the client thread (it would deadlock).

A completion is no call: it has no panel, no history row and no questions (one the server asks meanwhile,
outside any call, is declined unseen). What it sends is typed (the partial value, the other arguments as
context; a password-like argument is never sent as context): the wire keeps names, never values
(`core.wire`), what the server says meanwhile and after is redacted as a call's echo is
(`privacy.LateLines.completing`), a malformed answer raises `MalformedAnswer` in one line, and an error
names the argument and the code, with the server's message only once what was sent is scrubbed out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from mcp.shared.exceptions import MCPError

from .. import kernel
from ..core.completion import Ask, Completion, completion_of
from ..core.completion_code import CodeArgument
from ..core.exceptions import ConnectionClosedError, MCPWidgetsError, RequestTimeout, ServerError, brief
from ..core.redaction import REDACTED, is_secret_argument, typed_pattern
from ..core.text import clip_line, quoted, shorten
from ..core.wire import error_name
from .privacy import Completing, foreign
from .record import sent_by
from .runtime import RUNTIME

if TYPE_CHECKING:
    from .connection import Connection
    from .context import ServerContext
    from .in_flight import CallsInFlight
    from .privacy import LateLines

__all__ = [
    "CODE_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "FORM_DELAY",
    "FORM_TIMEOUT",
    "Completer",
    "Subject",
    "blocking",
]

DEFAULT_TIMEOUT = 10.0
"""Seconds a completion may take when the server has no `timeout=` (suggestions that late help nobody)."""

FORM_DELAY = 0.03
"""Seconds a form's field waits after a keystroke before it asks (a newer keystroke cancels the wait and the
request): a burst of typing sends one request, and suggestions still show well within 150 ms."""

FORM_TIMEOUT = 5.0
"""Seconds a form's field waits for suggestions at most (then it shows none)."""


CODE_TIMEOUT = 0.5
"""Seconds Tab in a code cell waits for a server's completions at most (then it offers none of them)."""


@dataclass(frozen=True)
class Subject:
    """What is completed: a prompt (`kind` "prompt", `name` as the server spells it) or a resource template
    (`kind` "template", `name` its URI template); `label` reads as "prompt 'x'" in a message."""

    kind: Literal["prompt", "template"]
    name: str
    label: str

    def ref(self) -> mcp_types.PromptReference | mcp_types.ResourceTemplateReference:
        if self.kind == "prompt":
            return mcp_types.PromptReference(type="ref/prompt", name=self.name)
        return mcp_types.ResourceTemplateReference(type="ref/resource", uri=self.name)


NAME_KEEP = 200
"""Characters of each listed name an error quotes."""


def _known(items: list[Any], attr: str) -> str:
    """The names a server lists, quoted and clipped (a template may be 70 KB, and a server may list 5,000)."""
    return quoted(shorten(str(getattr(i, attr, "?")), NAME_KEEP) for i in items[:50]) or "none"


class Completer:
    """A server's completions: what may be completed, and asking for it."""

    def __init__(
        self, ctx: ServerContext, connection: Connection, calls: CallsInFlight, late: LateLines
    ) -> None:
        self.ctx = ctx
        self.connection = connection
        self.calls = calls
        """The calls in flight: a question asked while a completion runs, outside any call, is declined."""
        self.late = late
        """What the server says meanwhile (logs, prints, listings, the wire) is redacted with the value."""

    def offered(self) -> bool:
        """The server is connected and declares the `completions` capability."""
        client = self.connection.client
        caps = getattr(client, "server_capabilities", None) if client is not None else None
        return getattr(caps, "completions", None) is not None

    def subject(self, prompt: str | None, template: str | None) -> Subject:
        """What `prompt=` or `template=` names, as listed (one of them, exactly).

        Raises:
            TypeError: Neither or both given.
            NotImplementedError: The server does not declare the `completions` capability.
            KeyError: The server lists no such prompt or template (the message names those it lists).
        """
        name = self.ctx.name
        if (prompt is None) == (template is None):
            raise brief(TypeError("complete() takes prompt= (a prompt's name) or template= (a URI template)"))
        self.connection.require_connected()
        if not self.offered():
            raise brief(
                NotImplementedError(
                    f"{name!r} does not offer completions: it declares no `completions` capability "
                    "(nothing was sent; srv.info shows what it declares)"
                )
            )
        if prompt is not None:
            prompts = self.ctx.learned.prompts
            listed: list[Any] = list(prompts or ())
            if not any(getattr(p, "name", None) == prompt for p in listed):
                raise _not_listed(
                    f"{name!r} lists no prompt named {quoted([prompt], NAME_KEEP)} (prompts: "
                    f"{_known(listed, 'name')}); if it was added since connecting, run "
                    "`await srv.list_prompts()` first"
                )
            real = prompts.real_name(prompt) if prompts is not None else prompt
            return Subject("prompt", real, f"prompt {prompt!r}")
        assert template is not None
        resources = self.ctx.learned.resources
        templates: list[Any] = list(resources.templates if resources is not None else ())
        found = [t for t in templates if str(getattr(t, "uri_template", "")) == template]
        found = found or [t for t in templates if getattr(t, "name", None) == template]
        if not found:
            raise _not_listed(
                f"{name!r} lists no resource template {quoted([template], NAME_KEEP)} (templates: "
                f"{_known(templates, 'uri_template')}); if it was added since connecting, run "
                "`await srv.list_resources()` first"
            )
        uri = str(found[0].uri_template)
        real = resources.real_name(uri) if resources is not None else uri
        return Subject("template", real, f"resource template {uri!r}")

    def asker(self, prompt: str | None = None, template: str | None = None) -> Ask | None:
        """How a form's fields ask (`core.completion.Ask`: after `FORM_DELAY`, bounded by `FORM_TIMEOUT`),
        or None when the server offers no completions for it (or is not connected, or does not list it)."""
        try:
            subject = self.subject(prompt, template)
        except Exception:
            return None

        def ask(argument: str, value: str, context: Mapping[str, str]) -> Future[Completion]:
            return self.submit(subject, argument, value, context, timeout=FORM_TIMEOUT, delay=FORM_DELAY)

        return ask

    def code_values(self, code: CodeArgument) -> list[str]:
        """The server's values for an argument string Tab was pressed in (`core.completion_code`), within
        `CODE_TIMEOUT`; [] when it offers none for it, is slow or fails (nothing raised, nothing logged)."""
        if RUNTIME.in_client_thread() or not self.offered():
            return []
        try:
            prompt = code.name if code.kind == "prompt" else None
            what = self.subject(prompt, None if prompt is not None else code.name)
        except Exception:
            return []
        future = self.submit(what, code.argument, code.value, code.context, timeout=CODE_TIMEOUT)
        try:
            return list(future.result(CODE_TIMEOUT + 0.1).values)
        except (Exception, KeyboardInterrupt):  # an interrupt while Tab waits: no values, as IPython does
            future.cancel()
            return []

    def submit(
        self,
        subject: Subject,
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
        timeout: float | None = None,
        delay: float = 0.0,
    ) -> concurrent.futures.Future[Completion]:
        """Ask on the client thread (after `delay` s there: cancelling the future meanwhile sends nothing);
        the future ends with a `Completion` or a one-line error."""
        if not isinstance(argument, str) or not isinstance(value, str):
            raise brief(TypeError("complete(): argument= is a name and value= the text typed so far"))
        # A password-like field's value goes to the server only when the person runs the form.
        given = {
            str(k): v
            for k, v in (context or {}).items()
            if isinstance(v, str) and k != argument and not is_secret_argument(str(k))
        }
        bound = timeout if timeout is not None else (self.ctx.settings.timeout or DEFAULT_TIMEOUT)
        return RUNTIME.submit(self._ask(subject, argument, value, given, bound, delay))

    async def _ask(
        self,
        subject: Subject,
        argument: str,
        value: str,
        context: dict[str, str],
        timeout: float,
        delay: float,
    ) -> Completion:
        if delay > 0:
            await asyncio.sleep(delay)
        about = f"completing {argument!r} of {subject.label} on {self.ctx.name!r}"
        client = self.connection.client
        if client is None:
            raise ConnectionClosedError(f"{about} failed: not connected", code=mcp_types.CONNECTION_CLOSED)
        sent = Completing(about, [value, *context.values()])
        # Before it is sent: what the server says meanwhile (logs, prints, listings, the wire) is redacted.
        self.late.completing(sent)
        try:
            asked = client.complete(subject.ref(), {"name": argument, "value": value}, context or None)
            # A question asked meanwhile, outside any call, is refused (`Intake`); the wire groups it alone.
            with self.calls.completion(), sent_by(f"completion of {argument!r} ({subject.label})"):
                result = await asyncio.wait_for(asked, timeout)
        except MCPError as exc:
            error = exc.error
            said = _scrubbed(str(error.message), [value, *context.values()])
            raise ServerError(
                f"{about} failed: {said} (code {error_name(error.code)})", code=error.code
            ) from None
        except asyncio.TimeoutError:
            raise RequestTimeout(f"{about}: no answer within {timeout:g} s") from None
        except Exception as exc:
            replaced = foreign(sent, exc)  # a malformed answer: `MalformedAnswer`, one line, no payload
            if replaced is None:
                raise
            raise replaced from None
        return completion_of(result)


@dataclass(frozen=True)
class Asked:
    """A completion asked for (`Completer.submit`), in the two ways a caller waits for it (`plans`): a
    completion has no `_background` form, it is no call (no panel, no `Call` to hold)."""

    future: concurrent.futures.Future[Completion]

    async def awaited(self) -> Completion:
        return await kernel.wait_async(self.future)

    def blocking(self) -> Completion:
        return blocking(self.future)


def blocking(future: concurrent.futures.Future[Completion]) -> Completion:
    """`complete_sync`'s wait: refused on the client thread (it would deadlock); inside a widget callback a
    plain wait (a completion needs no widget message while it waits), elsewhere the kernel's own."""
    if RUNTIME.in_client_thread():
        future.cancel()
        raise MCPWidgetsError("complete_sync from inside the client thread (a handler?) would deadlock")
    if kernel.in_comm_handler():
        return future.result()
    return kernel.wait_sync(future)


def _not_listed(message: str) -> KeyError:
    return brief(KeyError(message), message)


def _scrubbed(message: str, sent: list[str]) -> str:
    """The server's message on one line, what was sent (it may quote it) redacted."""
    pattern = typed_pattern([s for s in sent if s])
    text = pattern.sub(REDACTED, message) if pattern is not None else message
    return clip_line(text, 200)
