"""ToolForm: a form built from a tool's inputSchema; a person fills the arguments and runs the tool.

The result (and any form the tool raises while it runs) appears in an Output under the form, as plain text.
Unlike an elicitation form, a tool form keeps what was typed after running, so the tool can be run again
with the same or edited arguments: the values stay in the widgets (and in a notebook saved with widget
state) until the form is closed. They go to the server when Run is pressed, and nowhere else: never to a
log, a repr or an error message.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import logging
import uuid
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from .. import kernel
from ..core.call_code import call_code
from ..core.exceptions import FormStateError, brief
from ..core.redaction import is_secret_argument
from ..core.text import clip_line, shorten
from ..core.tools.args import check_arguments, widget_value
from ..core.tools.schema import ARGUMENTS, JSON, LINES, ArgumentCheck, ToolFormSpec, parse_tool_schema
from ._fields import (
    ERROR_CLASS,
    FIRST_CLASS,
    FORM_CLASS,
    LAST_CLASS,
    WRAP_CLASS,
    Field,
    JsonField,
    Kit,
    SecretField,
    fill_fields,
    make_field,
    title_width,
)
from ._keys import FormStyle
from ._kit import HINT_CLASS, click
from ._plain import PlainInMarimo
from ._tool_result import describe_failure, format_result, label, plain_text, shorten_status, show_result

__all__ = ["ToolForm", "format_result", "tool_form"]

log = logging.getLogger("mcp_widgets")

TOOL_FORM_CLASS = "mcp-widgets-tool-form"
HEADER_KEEP = 400
"""Characters of the header shown (a 70 KB template's form names it)."""
DESCRIPTION_KEEP = 2_000
"""Characters of the description shown (the rest: `form.tool.description`)."""
RUN_WHY_CLASS = "mcp-widgets-run-why"
COPY_CLASS = "mcp-widgets-copy-code"
"""The "Copy as code" button (the form's page finds it to show the code under its row)."""
Run = Callable[[str, dict[str, Any], Any], Any]
"""What starts a form's call: `run(name, arguments, output)` returns its `Call`."""
TIP_KEEP = 300
"""Characters of Run's tooltip kept (it names the server's tool or prompt: one line, escapes visible)."""


class ToolForm(PlainInMarimo, w.VBox):
    """A form for one tool of a connected server: its arguments, a Run button, and the result below.

    Server text (the tool's title and description, field titles, the result) is shown as plain text.
    Running starts a background call (`run`, else `server.call_tool_background(..., output=...)`): forms the
    tool raises appear in the result area, and the form can be run again once the call has ended.

    Args:
        server: A connected `mcp_widgets.Server` (anything with `name` and `call_tool_background`).
        tool: The tool (an `mcp_types.Tool`, or anything with `name`, `title`, `description` and
            `input_schema`).
        run: Starts the call: `run(name, arguments, output)` returns its `Call` (`srv.form` passes one that
            marks the arguments as typed, so the wire names them and never keeps their values).
    """

    kind = "tool"
    """What the form runs, in the words of its lines ("the tool is running")."""
    run_label = "Run"
    code_method = "call_tool"
    """The server's method its code calls (`form.code`)."""

    def __init__(self, server: Any, tool: Any, *, run: Run | None = None) -> None:
        self.server = server
        self._starts = run
        self.tool = tool
        self.tool_name: str = self._name_of(tool)
        self.spec: ToolFormSpec = parse_tool_schema(self._schema_of(tool))
        self._call: Any = None
        self._done: concurrent.futures.Future[Any] | None = None
        self._result: Any = None
        self._running = False
        self._closed = False
        self._pressing = False  # inside `run()`: a click from Python, not from a browser
        kernel.attach()  # keystrokes reach the form even while a cell awaits
        kit = self._kit = Kit(description_width=title_width([f.spec for f in self.spec.fields]))
        try:
            self._build()
        except BaseException:
            kit.close()
            raise

    # -- what a kind of form changes (a prompt's or a resource template's form: `_prompt_forms`) ------------
    def _name_of(self, tool: Any) -> str:
        return str(tool.name)

    def _schema_of(self, tool: Any) -> Any:
        schema = getattr(tool, "input_schema", None)
        if schema is None:
            schema = getattr(tool, "inputSchema", None)
        return schema if schema is not None else {}

    def _header(self) -> str:
        tool = self.tool
        server_name = str(getattr(self.server, "name", "server"))
        title = getattr(tool, "title", None) or getattr(getattr(tool, "annotations", None), "title", None)
        header = f"{self.kind.capitalize()} {self.tool_name} on {server_name}"
        if title and title != self.tool_name:
            header = f"{title} — {self.kind} {self.tool_name} on {server_name}"
        return header

    def _launch(self, arguments: dict[str, Any]) -> Any:
        """Start the call (a `Call`) with what the person typed; its result and questions show in `_out`."""
        if self._starts is not None:
            return self._starts(self.tool_name, arguments, self._out)
        return self._unmarked(arguments)

    def _unmarked(self, arguments: dict[str, Any]) -> Any:
        """The call of a form made without `run` (not by a server): the server's public method."""
        return self.server.call_tool_background(self.tool_name, arguments, output=self._out)

    def _result_text(self, result: Any) -> str | None:
        """The result as one text, its media after it; None: the tool's parts in the server's order."""
        return None

    def _run_tip(self) -> str:
        return f"Call {self.tool_name} on {getattr(self.server, 'name', 'the server')}"

    def _extra(self) -> tuple[w.Widget, ...]:
        """Widgets shown between the fields and the problem line (made with the form's kit)."""
        return ()

    def _changed(self, check: ArgumentCheck) -> None:
        """After each check (a value changed)."""

    def _build(self) -> None:
        kit = self._kit
        tool = self.tool
        header = shorten(self._header(), HEADER_KEEP)
        top: list[w.Widget] = [kit.make(w.Label, value=header, variant="bold", _dom_classes=(WRAP_CLASS,))]
        description = getattr(tool, "description", None)
        if description:
            text = shorten(" ".join(str(description).split()), DESCRIPTION_KEEP)
            top.append(kit.make(w.Label, value=text, tooltip=text[:500], _dom_classes=(WRAP_CLASS,)))
        for note in self.spec.notes:
            top.append(kit.make(w.Label, value=f"Note: {note}.", _dom_classes=(WRAP_CLASS,)))

        self._fields: dict[str, Field] = {}
        for tool_field in self.spec.fields:
            spec = tool_field.spec
            spec = dataclasses.replace(spec, title=label(spec.name, spec.title))  # "Kind", "Sort by"
            if spec.kind in (JSON, LINES):
                made: Field = JsonField(spec, kit, hint=tool_field.hint, placeholder=tool_field.placeholder)
            elif spec.kind == "text" and is_secret_argument(spec.name, spec.schema):
                made = SecretField(spec, kit)
            else:
                made = make_field(spec, kit)
            self._fields[spec.name] = made
        fields = list(self._fields.values())
        if fields:
            fields[0].control.add_class(FIRST_CLASS)
            fields[-1].control.add_class(LAST_CLASS)

        self._problem = kit.make(w.Label, layout="hidden", _dom_classes=(WRAP_CLASS,))
        self._run = kit.make(w.Button, description=self.run_label, button_style="primary", icon="play")
        self._stop = kit.make(w.Button, description="Stop", icon="stop", tooltip="Cancel the running call")
        copy_tip = "Copy this call as Python, to run in a cell"
        self._copy = kit.make(w.Button, description="Copy as code", icon="copy", tooltip=copy_tip)
        self._copy.add_class(COPY_CLASS)
        self._run.on_click(lambda _b: self._clicked())
        self._stop.on_click(lambda _b: self._stop_clicked())
        self._copy.on_click(lambda _b: self._copy_clicked())
        # Why Run is disabled, next to it: a tooltip alone says it only to a person who hovers.
        self._why = kit.make(w.Label, layout="hidden", _dom_classes=(WRAP_CLASS, HINT_CLASS, RUN_WHY_CLASS))
        buttons = kit.make(w.HBox, children=(self._run, self._stop, self._copy, self._why))
        self._out = kit.make(w.Output)
        # The form's model id is chosen now, so that the style's view can find the form's controls.
        model_id = uuid.uuid4().hex
        style = self._style = kit.make(FormStyle, layout="hidden", form_id=model_id)

        for field in fields:
            field.on_change(functools.partial(self._on_change, field))
        self._top, self._bottom = tuple(top), (*self._extra(), self._problem, buttons, self._out, style)
        self._refresh()

        super().__init__(
            children=self._children(),
            layout=kit.layout(),
            _dom_classes=(FORM_CLASS, TOOL_FORM_CLASS),
            model_id=model_id,
        )

    # -- what the form shows ---------------------------------------------------------------------------------
    @property
    def field_names(self) -> tuple[str, ...]:
        """The arguments, in the schema's order."""
        return tuple(f.name for f in self.spec.fields)

    @property
    def errors(self) -> dict[str, str]:
        """Every current problem: field -> message ("" for the arguments as a whole); untouched ones too."""
        return dict(self._check().errors)

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The arguments Run would send now, or None while the form is invalid."""
        return self._check().arguments

    @property
    def code(self) -> str:
        """This call as one line of Python, with what is typed now: `await srv.call_tool("weather", {"city":
        "Oslo"})`. The server is called by the name the notebook binds it to (else `srv`); a masked field
        (a password, a token) is `...`, never its value. "Copy as code" copies this."""
        check = self._check()
        arguments = check.arguments
        if arguments is None:  # not valid yet: what is filled in so far
            arguments = {k: v for k, v in self._values().items() if v is not None and v != ""}
        hidden = {f.spec.name for f in self.spec.fields if is_secret_argument(f.spec.name, f.spec.schema)}
        receiver = kernel.bound_name(self.server) or "srv"
        return call_code(receiver, self.code_method, self.tool_name, arguments, hidden)

    @property
    def running(self) -> bool:
        """A call started from this form has not ended yet."""
        return self._running

    @property
    def call(self) -> Any:
        """The `Call` of the last run (None before the first)."""
        return self._call

    @property
    def result(self) -> Any:
        """The `CallToolResult` of the last run that succeeded (None before, or while it runs)."""
        return self._result

    @property
    def result_text(self) -> str:
        """The plain text the result area shows (not the forms and status line the call adds there)."""
        outputs = self._out.outputs if not self._closed else ()
        return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")

    def __repr__(self) -> str:
        server = getattr(self.server, "name", "?")
        state = "running" if self._running else "closed" if self._closed else "ready"
        what = f"{type(self).__name__} {self.kind}={self.tool_name!r}"
        return f"<{what} server={server!r} fields={len(self.spec.fields)} {state}>"

    # -- driving it as a person would ------------------------------------------------------------------------
    def fill(self, /, **values: Any) -> None:
        """Enter argument values as a person would (through each control's front-end path).

        JSON fields take the text a person types or any value JSON can hold; one-per-line fields take a str
        or a list of str; other fields take what the elicitation form takes.

        Raises:
            FieldNotFound: A name the tool has no argument for.
            FormStateError: The form is closed.
            TypeError, ValueError: A value no person could enter in that control (nothing is set then).
        """
        if self._closed:
            raise FormStateError(f"the {self.kind} form is closed")
        fill_fields(self._fields, values, lambda name, value: widget_value(self.spec.field(name), value))

    def run(self) -> Any:
        """Click Run; returns the new `Call`, or None when Run is disabled (invalid, running, closed)."""
        if self._closed or self._run.disabled:
            return None
        before = self._call
        self._pressing = True  # from Python: every value it set is here already
        try:
            click(self._run)
        finally:
            self._pressing = False
        return self._call if self._call is not before else None

    def stop(self) -> bool:
        """Click Stop: cancel the running call (False when nothing runs)."""
        if self._closed or self._stop.disabled:
            return False
        click(self._stop)
        return True

    async def wait(self) -> Any:
        """The last run's `CallToolResult` once the call has ended and its result is shown.

        Raises:
            FormStateError: The form has not been run.
            Exception: What the call raised (also shown in the result area).
        """
        if self._done is None:
            raise FormStateError(f"the {self.kind} form has not been run")
        return await kernel.wait_async(self._done)

    def close(self) -> None:
        """Close every model the form created, and what the last call left in the result area."""
        if getattr(self, "_closed", True):
            super().close()
            return
        self._closed = True
        call = self._call
        if call is not None and not call.done():
            call.cancel()
        self._clear_result()
        self._fields = {}
        self._kit.close()
        super().close()

    # -- internals -------------------------------------------------------------------------------------------
    def _values(self) -> dict[str, Any]:
        return {name: field.value for name, field in self._fields.items()}

    def _check(self) -> ArgumentCheck:
        return check_arguments(self.spec, self._values())

    def _on_change(self, field: Field) -> None:
        if self._closed:
            return
        field.touched = True
        self._refresh()

    def _refresh(self, check: ArgumentCheck | None = None) -> ArgumentCheck:
        """Re-validate: every note, the whole-arguments line, and Run enabled only when all is well."""
        check = check or self._check()
        made = False
        for name, field in self._fields.items():
            made |= field.show(check.errors.get(name))
        if made and self.trait_has_value("children"):
            self.children = self._children()  # a field's first error line goes under it
        lines = []
        if ARGUMENTS in check.errors:
            lines.append(f"⚠ Error: {check.errors[ARGUMENTS]}")
        lines += [f"Note: {warning}." for warning in check.warnings]
        classes = (WRAP_CLASS, ERROR_CLASS) if ARGUMENTS in check.errors else (WRAP_CLASS,)
        with self._problem.hold_sync():
            self._problem.value = "\n".join(lines)
            self._problem.layout = self._kit.layout("default" if lines else "hidden")
            if tuple(self._problem._dom_classes) != classes:
                self._problem._dom_classes = classes
        self._run.disabled = self._running or not check.ok
        self._stop.disabled = not self._running
        why = ""
        if self._running:
            tip = f"The {self.kind} is running"
        elif not check.ok:
            titles = [self._title(name) for name in check.errors]
            tip = "Still to fix: " + ", ".join(titles)
            why = self._why_disabled(check)
        else:
            tip = self._run_tip()
        # Names the server's tool or prompt: its control, bidi and zero-width characters shown, one line.
        self._run.tooltip = clip_line(tip, TIP_KEEP)
        with self._why.hold_sync():
            self._why.value = why
            self._why.layout = self._kit.layout("default" if why else "hidden")
        self._changed(check)
        return check

    def _why_disabled(self, check: ArgumentCheck) -> str:
        """Next to a disabled Run: "To run: fill in Who; fix Age"."""
        missing = [self._title(name) for name, error in check.errors.items() if error == "required"]
        wrong = [self._title(name) for name, error in check.errors.items() if error != "required"]
        said = (("fill in", missing), ("fix", wrong))
        parts = [f"{verb} {', '.join(titles)}" for verb, titles in said if titles]
        return shorten(f"To {self.run_label.lower()}: " + "; ".join(parts), TIP_KEEP)

    def _children(self) -> tuple[w.Widget, ...]:
        views = [view for field in self._fields.values() for view in field.views()]
        return (*self._top, *views, *self._bottom)

    def _title(self, name: str) -> str:
        if name == ARGUMENTS:
            return "the arguments"
        return self._fields[name].spec.title if name in self._fields else name

    def _clicked(self) -> None:
        if self._closed or self._running or self._run.disabled:
            return  # a stale click from a browser that had not yet seen the update
        # A click from the browser waits for the updates its front end still holds back (the last keystrokes).
        if not self._pressing and self._style.after_flush(self._run_now):
            return
        self._run_now()

    def _run_now(self) -> None:
        if self._closed or self._running or self._run.disabled:
            return
        for field in self._fields.values():
            field.touched = True
        check = self._refresh()
        if not check.ok or check.arguments is None:
            return
        self._start(check.arguments)

    def _start(self, arguments: dict[str, Any]) -> None:
        self._clear_result()
        self._result = None
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._done = done
        try:
            call = self._launch(arguments)
        except Exception as exc:  # not connected, ...: said in the result area, the form stays usable
            self._out.append_stdout(plain_text(f"⚠ Could not run the {self.kind}: {exc}") + "\n")
            done.set_exception(exc)
            self._refresh()
            return
        self._call = call
        self._running = True
        self._refresh()
        call.add_done_callback(lambda c: self._finished(c, done))

    def _copy_clicked(self) -> None:
        """Send the code to the form's page, which copies it (or shows it to select where the browser
        refuses): a message, never a synced value, since it holds what was typed."""
        if not self._closed:
            self._style.send({"copy": self.code})

    def _stop_clicked(self) -> None:
        call = self._call
        if call is not None and self._running:
            call.cancel()

    def _finished(self, call: Any, done: concurrent.futures.Future[Any]) -> None:
        """Main thread, once the call ended: show its result (or why it failed) and allow another run."""
        cancelled = call.state == "cancelled"
        error = None if cancelled else call.exception()
        result = None if cancelled or error is not None else call.result()  # done: returns at once
        try:
            if self._closed or call is not self._call:
                return
            if cancelled:
                self._out.append_stdout("The call was cancelled.\n")
            elif error is not None:
                self._out.append_stdout(plain_text(f"⚠ {describe_failure(error)}") + "\n")
            else:
                self._result = result
                if not getattr(result, "is_error", False):  # (an error's line may carry a hint: kept whole)
                    shorten_status(self._out)  # the result shows in full below, not in the status line too
                # In the server's order: an image under the line naming it ("the image above" reads true).
                show_result(self._out, result, self._result_text(result))
        except Exception:
            log.exception("showing a tool result failed")
        finally:
            if call is self._call:
                self._running = False
            if not self._closed:
                self._refresh()
            if cancelled:
                done.cancel()
            elif error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

    def _clear_result(self) -> None:
        """Empty the result area (the previous call closed its own widgets when it ended)."""
        self._out.outputs = ()


def not_listed(message: str) -> KeyError:
    """A KeyError that reads as its one line in a notebook: what was asked for is not listed."""
    return brief(KeyError(message), message)


def tool_form(server: Any, name: str, *, run: Run | None = None) -> ToolForm:
    """A `ToolForm` for the tool `name` of `server` (from the listing made when it connected).

    Raises:
        KeyError: The server lists no tool of that name (the message lists the ones it has).
    """
    tools: list[Any] = list(getattr(server, "tools", None) or ())
    for tool in tools:
        if getattr(tool, "name", None) == name:
            return ToolForm(server, tool, run=run)
    known = ", ".join(str(getattr(t, "name", "?")) for t in tools[:50]) or "none"
    if any(getattr(p, "name", None) == name for p in list(getattr(server, "prompts", None) or ())):
        raise not_listed(
            f"{getattr(server, 'name', 'the server')!r} lists no tool named {name!r} but a prompt: "
            f"srv.prompt_form({name!r}) (tools: {known})"
        )
    raise not_listed(
        f"{getattr(server, 'name', 'the server')!r} lists no tool named {name!r} (tools: {known}); "
        "if it was added since connecting, run `await srv.list_tools()` first"
    )
