"""Forms for a prompt's arguments and a resource template's variables: tool forms with another source.

A prompt's arguments are text (`core.prompt_args.prompt_schema`), a template's variables are text or lists of
text (`core.uri_template`): both become a JSON schema, so the fields, their checks, keys and look are the tool
form's (`ToolForm`), and so is what happens to what was typed (it stays in the widgets until `close()`, goes
to the server marked as typed, and to no log, repr or error). Run gets the prompt, Read reads the resource;
the result shows under the form as the client's result text (`result_text`, passed in by the client room:
roles, text, images and embedded resources as lines, server text literal).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import ipywidgets as w

from ..core.prompt_args import prompt_schema
from ..core.tools.schema import ARGUMENTS, ArgumentCheck
from ..core.uri_template import TemplateError, UriTemplate, parse_template
from ._fields import WRAP_CLASS
from ._tool_form import ToolForm
from ._tool_result import plain_text

__all__ = ["PromptForm", "TemplateForm", "prompt_form", "template_form"]

ResultText = Callable[[Any], str]
"""A result as the plain text a notebook shows for it (`client.results.result_text`)."""

PROMPT_FORM_CLASS = "mcp-widgets-prompt-form"
TEMPLATE_FORM_CLASS = "mcp-widgets-template-form"


class PromptForm(ToolForm):
    """A form for one prompt's arguments: Run gets the prompt (`server.get_prompt_background`) and shows its
    messages below; `form.result` is the SDK's `GetPromptResult`.

    Args:
        server: A connected `mcp_widgets.Server`.
        prompt: The prompt (an `mcp_types.Prompt`: `name`, `title`, `description`, `arguments`).
        result_text: How a result reads as text.
    """

    kind = "prompt"

    def __init__(self, server: Any, prompt: Any, result_text: ResultText) -> None:
        self._text_of = result_text
        super().__init__(server, prompt)
        self.add_class(PROMPT_FORM_CLASS)

    @property
    def prompt_name(self) -> str:
        return self.tool_name

    def _schema_of(self, tool: Any) -> Any:
        return prompt_schema(getattr(tool, "arguments", None))

    def _launch(self, arguments: dict[str, Any]) -> Any:
        return self.server.get_prompt_background(self.tool_name, arguments, output=self._out, typed=True)

    def _result_text(self, result: Any) -> str:
        return plain_text(self._text_of(result)) + "\n"

    def _run_tip(self) -> str:
        return f"Get the prompt {self.tool_name} from {getattr(self.server, 'name', 'the server')}"


class TemplateForm(ToolForm):
    """A form for one resource template's variables (RFC 6570): it shows the URI it will read as you type;
    Read reads it (`server.read_template_background`) and shows the resource below; `form.result` is the
    SDK's `ReadResourceResult`.

    Args:
        server: A connected `mcp_widgets.Server`.
        template: The template (an `mcp_types.ResourceTemplate`: `uri_template`, `name`, `title`, ...).
        result_text: How a result reads as text.

    Raises:
        TemplateError: The server's URI template is not one (RFC 6570).
    """

    kind = "template"
    run_label = "Read"

    def __init__(self, server: Any, template: Any, result_text: ResultText) -> None:
        self._text_of = result_text
        self.template: UriTemplate = parse_template(str(getattr(template, "uri_template", "")))
        super().__init__(server, template)
        self.add_class(TEMPLATE_FORM_CLASS)

    @property
    def uri(self) -> str | None:
        """The URI Read would read now, or None while the form is invalid."""
        arguments = self.arguments
        return None if arguments is None else self.template.expand(arguments)

    def _name_of(self, tool: Any) -> str:
        return str(getattr(tool, "uri_template", ""))

    def _schema_of(self, tool: Any) -> Any:
        return self.template.schema()

    def _header(self) -> str:
        server_name = str(getattr(self.server, "name", "server"))
        named = getattr(self.tool, "title", None) or getattr(self.tool, "name", None)
        header = f"Resource template {self.tool_name} on {server_name}"
        return f"{named} — {header[:1].lower()}{header[1:]}" if named else header

    def _check(self) -> ArgumentCheck:
        check = super()._check()
        if check.arguments is None:
            return check
        try:
            self.template.expand(check.arguments)
        except TemplateError as exc:  # e.g. a list for `{var:3}`: said before Read, naming the variable
            return replace(check, errors={ARGUMENTS: str(exc)}, arguments=None)
        return check

    def _extra(self) -> tuple[w.Widget, ...]:
        # under the controls, as a field's note: it reads as what the fields above make
        self._uri = self._kit.make(w.Label, value="", layout="note", _dom_classes=(WRAP_CLASS,))
        return (self._uri,)

    def _changed(self, check: ArgumentCheck) -> None:
        if check.arguments is not None:
            text = "Reads: " + self.template.expand(check.arguments)
        else:
            names = [self._title(n) for n in check.errors if n != ARGUMENTS] or ["the variables"]
            text = "Reads: (fill in " + ", ".join(names) + ")"
        self._uri.value = plain_text(text)

    def _launch(self, arguments: dict[str, Any]) -> Any:
        return self.server.read_template_background(self.tool_name, arguments, output=self._out, typed=True)

    def _result_text(self, result: Any) -> str:
        return plain_text(self._text_of(result)) + "\n"

    def _run_tip(self) -> str:
        return f"Read the resource from {getattr(self.server, 'name', 'the server')}"


def _known(items: list[Any], attr: str) -> str:
    return ", ".join(str(getattr(i, attr, "?")) for i in items[:50]) or "none"


def prompt_form(server: Any, name: str, result_text: ResultText) -> PromptForm:
    """A `PromptForm` for the prompt `name` of `server` (exactly as listed, whatever its spelling; the
    server's tools are not looked at, so a tool of the same name is never taken for it).

    Raises:
        KeyError: The server lists no prompt of that name (the message lists the ones it has).
    """
    prompts: list[Any] = list(getattr(server, "prompts", None) or ())
    for prompt in prompts:
        if getattr(prompt, "name", None) == name:
            return PromptForm(server, prompt, result_text)
    raise KeyError(
        f"{getattr(server, 'name', 'the server')!r} lists no prompt named {name!r} (prompts: "
        f"{_known(prompts, 'name')}); if it was added since connecting, run `await srv.list_prompts()` first"
    )


def template_form(server: Any, template: str, result_text: ResultText) -> TemplateForm:
    """A `TemplateForm` for a resource template of `server`, given by its URI template (as listed) or its
    name.

    Raises:
        KeyError: The server lists no such template (the message lists the ones it has).
        TemplateError: The server's URI template is not one.
    """
    resources = getattr(server, "resources", None)
    templates: list[Any] = list(getattr(resources, "templates", None) or ())
    found = [t for t in templates if getattr(t, "uri_template", None) == template]
    found = found or [t for t in templates if getattr(t, "name", None) == template]
    if found:
        return TemplateForm(server, found[0], result_text)
    raise KeyError(
        f"{getattr(server, 'name', 'the server')!r} lists no resource template {template!r} (templates: "
        f"{_known(templates, 'uri_template')}); if it was added since connecting, run "
        "`await srv.list_resources()` first"
    )
