"""Forms for a prompt's arguments and a resource template's variables: tool forms with another source.

A prompt's arguments are text (`core.prompt_args.prompt_schema`), a template's variables are text or lists of
text (`core.uri_template`): both become a JSON schema, so the fields, their checks, keys and look are the tool
form's (`ToolForm`), and so is what happens to what was typed (it stays in the widgets until `close()`, goes
to the server marked as typed, and to no log, repr or error). Run gets the prompt, Read reads the resource;
the result shows under the form as the client's result text (`result_text`, passed in by the client room:
roles, text, images and embedded resources as lines, server text literal).

Where the server declares `completions`, the client room passes `suggest` (`core.completion.Ask`): each text
field then offers the server's values as the person types (`_completion`), and `suggestions`,
`wait_suggestions` and `pick` drive that from Python as `fill` drives typing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import ipywidgets as w

from ..core.completion import Ask, Completion
from ..core.exceptions import FieldNotFound
from ..core.prompt_args import prompt_schema
from ..core.text import NAMES_KEEP, quoted, shorten
from ..core.tools.schema import ARGUMENTS, ArgumentCheck
from ..core.uri_template import TemplateError, UriTemplate, parse_template
from ._completion import Suggester
from ._fields import WRAP_CLASS, SecretField, TextField
from ._tool_form import HEADER_KEEP, Run, ToolForm, not_listed
from ._tool_result import plain_text

__all__ = ["PromptForm", "TemplateForm", "prompt_form", "template_form"]

ResultText = Callable[[Any], str]
"""A result as the plain text a notebook shows for it (`client.results.result_text`)."""

URI_KEEP = 2_000
"""Characters of the URI a template form will read shown under its fields (`form.uri` has it whole)."""
PROMPT_FORM_CLASS = "mcp-widgets-prompt-form"
TEMPLATE_FORM_CLASS = "mcp-widgets-template-form"


class ExploreForm(ToolForm):
    """A tool form whose text fields may offer the server's completions (`suggest`; None: they do not)."""

    def __init__(self, server: Any, tool: Any, suggest: Ask | None = None, *, run: Run | None = None) -> None:
        self._suggest = suggest
        self._suggesters: dict[str, Suggester] = {}
        super().__init__(server, tool, run=run)

    def _extra(self) -> tuple[w.Widget, ...]:
        # the fields are made by now: each text one gets its list (a secret one never: no partial secrets)
        ask = self._suggest
        if ask is not None:
            for name, field in self._fields.items():
                if type(field) is TextField:
                    self._suggesters[name] = Suggester(field, name, ask, self._context_for(name), self._kit)
        return ()

    def _context_for(self, name: str) -> Callable[[], dict[str, str]]:
        def context() -> dict[str, str]:
            # A masked field's value goes to the server only on Run, never with a completion request.
            values = self._values() if not self._closed else {}
            skip = {name} | {k for k, field in self._fields.items() if isinstance(field, SecretField)}
            return {k: v for k, v in values.items() if k not in skip and isinstance(v, str) and v}

        return context

    def _children(self) -> tuple[w.Widget, ...]:
        views: list[w.Widget] = []
        for name, field in self._fields.items():
            shown = field.views()
            suggester = self._suggesters.get(name)
            views += shown[:1] + ((suggester.view,) if suggester is not None else ()) + shown[1:]
        return (*self._top, *views, *self._bottom)

    @property
    def suggesting(self) -> tuple[str, ...]:
        """The fields that offer the server's completions as you type (none without `completions`)."""
        return tuple(self._suggesters)

    def suggestions(self, name: str) -> Completion | None:
        """What the list under the field `name` shows now (None: nothing)."""
        return self._suggester(name).shown

    async def wait_suggestions(self, name: str) -> Completion | None:
        """What the list under `name` shows once the server answered the newest change (None: nothing:
        no values, or a slow or failing server)."""
        return await self._suggester(name).wait()

    def pick(self, name: str, value: str) -> None:
        """Pick `value` from the list under `name`, as Enter or a click would (the list closes).

        Raises:
            FieldNotFound: `name` is no field offering suggestions.
            ValueError: The list shows no such value.
        """
        self._suggester(name).pick(value)

    def _suggester(self, name: str) -> Suggester:
        suggester = self._suggesters.get(name)
        if suggester is None:
            raise FieldNotFound(name, self.suggesting)
        return suggester

    def close(self) -> None:
        for suggester in getattr(self, "_suggesters", {}).values():  # (none yet: a form that failed to build)
            suggester.close()
        self._suggesters = {}
        super().close()


class PromptForm(ExploreForm):
    """A form for one prompt's arguments: Run gets the prompt (`server.get_prompt_background`) and shows its
    messages below; `form.result` is the SDK's `GetPromptResult`.

    Args:
        server: A connected `mcp_widgets.Server`.
        prompt: The prompt (an `mcp_types.Prompt`: `name`, `title`, `description`, `arguments`).
        result_text: How a result reads as text.
        suggest: Asks the server for completions (None: no suggestions).
    """

    kind = "prompt"
    code_method = "get_prompt"

    def __init__(
        self,
        server: Any,
        prompt: Any,
        result_text: ResultText,
        suggest: Ask | None = None,
        *,
        run: Run | None = None,
    ) -> None:
        self._text_of = result_text
        super().__init__(server, prompt, suggest, run=run)
        self.add_class(PROMPT_FORM_CLASS)

    @property
    def prompt_name(self) -> str:
        return self.tool_name

    def _schema_of(self, tool: Any) -> Any:
        return prompt_schema(getattr(tool, "arguments", None))

    def _unmarked(self, arguments: dict[str, Any]) -> Any:
        return self.server.get_prompt_background(self.tool_name, arguments, output=self._out)

    def _result_text(self, result: Any) -> str:
        return plain_text(self._text_of(result)) + "\n"

    def _run_tip(self) -> str:
        return f"Get the prompt {self.tool_name} from {getattr(self.server, 'name', 'the server')}"


class TemplateForm(ExploreForm):
    """A form for one resource template's variables (RFC 6570): it shows the URI it will read as you type;
    Read reads it (`server.read_template_background`) and shows the resource below; `form.result` is the
    SDK's `ReadResourceResult`.

    Args:
        server: A connected `mcp_widgets.Server`.
        template: The template (an `mcp_types.ResourceTemplate`: `uri_template`, `name`, `title`, ...).
        result_text: How a result reads as text.
        suggest: Asks the server for completions (None: no suggestions).

    Raises:
        TemplateError: The server's URI template is not one (RFC 6570).
    """

    kind = "template"
    run_label = "Read"
    code_method = "read_template"

    def __init__(
        self,
        server: Any,
        template: Any,
        result_text: ResultText,
        suggest: Ask | None = None,
        *,
        run: Run | None = None,
    ) -> None:
        self._text_of = result_text
        self.template: UriTemplate = parse_template(str(getattr(template, "uri_template", "")))
        super().__init__(server, template, suggest, run=run)
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
        # the template cut, not the server's name after it (a template of 10,000 variables is 70 KB)
        header = f"Resource template {shorten(self.tool_name, HEADER_KEEP // 2)} on {server_name}"
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
        return (*super()._extra(), self._uri)

    def _changed(self, check: ArgumentCheck) -> None:
        if check.arguments is not None:
            text = "Reads: " + self.template.expand(check.arguments)
        else:
            names = [self._title(n) for n in check.errors if n != ARGUMENTS] or ["the variables"]
            text = "Reads: (fill in " + shorten(", ".join(names), HEADER_KEEP) + ")"
        self._uri.value = plain_text(shorten(text, URI_KEEP))

    def _unmarked(self, arguments: dict[str, Any]) -> Any:
        return self.server.read_template_background(self.tool_name, arguments, output=self._out)

    def _result_text(self, result: Any) -> str:
        return plain_text(self._text_of(result)) + "\n"

    def _run_tip(self) -> str:
        return f"Read the resource from {getattr(self.server, 'name', 'the server')}"


def _known(items: list[Any], attr: str) -> str:
    return shorten(", ".join(str(getattr(i, attr, "?")) for i in items[:50]), NAMES_KEEP) or "none"


def prompt_form(
    server: Any, name: str, result_text: ResultText, suggest: Ask | None = None, *, run: Run | None = None
) -> PromptForm:
    """A `PromptForm` for the prompt `name` of `server` (exactly as listed, whatever its spelling; the
    server's tools are not looked at, so a tool of the same name is never taken for it).

    Raises:
        KeyError: The server lists no prompt of that name (the message lists the ones it has).
    """
    prompts: list[Any] = list(getattr(server, "prompts", None) or ())
    for prompt in prompts:
        if getattr(prompt, "name", None) == name:
            return PromptForm(server, prompt, result_text, suggest, run=run)
    raise not_listed(
        f"{quoted([getattr(server, 'name', 'the server')])} lists no prompt named {quoted([name])} (prompts: "
        f"{_known(prompts, 'name')}); if it was added since connecting, run `await srv.list_prompts()` first"
    )


def template_form(
    server: Any, template: str, result_text: ResultText, suggest: Ask | None = None, *, run: Run | None = None
) -> TemplateForm:
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
        return TemplateForm(server, found[0], result_text, suggest, run=run)
    raise not_listed(
        f"{quoted([getattr(server, 'name', 'the server')])} lists no resource template {quoted([template])} "
        f"(templates: {_known(templates, 'uri_template')}); if it was added since connecting, run "
        "`await srv.list_resources()` first"
    )
