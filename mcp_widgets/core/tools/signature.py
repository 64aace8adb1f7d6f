"""A tool as a Python function's parts (pure): its Python name, signature, docstring; checking the arguments
a call binds, and the structured result against `outputSchema`.

Imports only the standard library and jsonschema (through `tools.schema`).

- Names: a tool name that is not an identifier (`get-weather`, `2fa`, `class`) becomes one (`get_weather`,
  `_2fa`, `class_`); one that begins and ends with an underscore (`__init__`, `_ipython_display_`: names
  Python, IPython and the namespace itself use) gets `tool` in front (`tool__init__`); a number is added on
  a clash. The tool's own name always works as a key.
- Parameters: the required properties first, in the schema's order, then the optional ones with their
  default (`None` for an optional without one: left out of the call). A property whose name is not an
  identifier (as Python reads it: NFKC-normalised) is taken through `**arguments` (`**arguments_` when a
  property is called `arguments`). Annotations come from the schema: `str`, `int`, `float`,
  `bool`, `list[...]`, `dict[str, Any]`, `Literal[...]` for an enum, `X | None` when null is allowed.
- Docstrings: the server's text shown literally (escapes and bidi controls made visible), each argument in
  sentences.
- Checking: the bound arguments against the real `inputSchema` (patterns bounded in time), before anything
  is sent; a wrong JSON type is a `TypeError`, any other broken rule a `ValueError`, each naming the
  argument and the rule, never the value.
"""

from __future__ import annotations

import inspect
import keyword
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional, Union

from ..exceptions import MCPWidgetsError
from ..text import shown
from .args import deepest_error, rule_message
from .parts import Refused, deref, unwrap_null
from .schema import parse_tool_schema
from .validator import make_validator

__all__ = [
    "OutputSchemaError",
    "ToolError",
    "bind_arguments",
    "check_output",
    "python_names",
    "tool_docstring",
    "tool_signature",
]


class ToolError(MCPWidgetsError):
    """The tool reported a failure (`isError`): the message is its text; `result` is the whole result."""

    def __init__(self, message: str, *, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class OutputSchemaError(MCPWidgetsError, ValueError):
    """The tool's structured content does not match its `outputSchema`: `result` is the raw result."""

    def __init__(self, message: str, *, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


def reserved(name: str) -> bool:
    """A name that begins and ends with an underscore: Python's (`__init__`), IPython's (`_ipython_display_`,
    `_repr_html_`) and the namespace's own; no tool's Python name is one."""
    return name.startswith("_") and name.endswith("_")


def parameter_name(name: str) -> bool:
    """Whether a property can be a parameter: an identifier, not a keyword, and read by Python as written
    (source is NFKC-normalised: `ﬁle=1` in a cell passes `file`)."""
    return name.isidentifier() and not keyword.iskeyword(name) and unicodedata.normalize("NFKC", name) == name


def python_name(name: str) -> bool:
    """Whether a tool name can be its own Python name (`srv.fn.<name>`)."""
    return parameter_name(name) and not reserved(name)


def identifier(name: str) -> str:
    """A Python name for a tool name: `get-weather` -> `get_weather`, `2fa` -> `_2fa`, `if` -> `if_`,
    `__init__` -> `tool__init__`."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c if ("_" + c).isidentifier() else "_" for c in text) or "_"
    if not text[0].isidentifier():
        text = "_" + text  # a digit (or another character that may not start a name)
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    if reserved(text):
        text = "tool" + text
    if not python_name(text):  # a character whose normal form is not one: keep the ASCII letters only
        text = "tool_" + "".join(c if c.isascii() and ("_" + c).isidentifier() else "_" for c in text)
    return text


def python_names(names: Sequence[str]) -> dict[str, str]:
    """Python name -> tool name, for every tool in the listing's order; a name that can be one keeps it,
    the others get one (`identifier`), with a number added on a clash (`get_weather_2`)."""
    taken: dict[str, str] = {n: n for n in names if python_name(n)}
    done = set(taken)
    for name in names:
        if name in done:
            continue
        done.add(name)
        base = identifier(name)
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base}_{n}", n + 1
        taken[candidate] = name
    python = {name: py for py, name in taken.items()}
    return {python[name]: name for name in dict.fromkeys(names)}  # in the listing's order


def keywords_name(properties: Mapping[str, Any]) -> str:
    """The `**arguments` parameter's name: `arguments`, with underscores added while a property has it."""
    name = "arguments"
    while name in properties:
        name += "_"
    return name


_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def annotation(root: Mapping[str, Any], prop: Any, depth: int = 0) -> Any:
    """The Python type a property's schema stands for (Any when it says too little)."""
    if depth > 8 or not isinstance(prop, Mapping):
        return Any
    try:
        prop = deref(root, prop)
        prop, nullable = unwrap_null(root, prop)
    except Refused:
        return Any
    if not isinstance(prop, Mapping):
        return Any
    kind: Any
    enum = prop.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, bool)) for v in enum):
        kind = Literal[tuple(enum)]
    elif "const" in prop and isinstance(prop["const"], (str, int, bool)):
        kind = Literal[prop["const"]]
    else:
        type_ = prop.get("type")
        if isinstance(type_, list):
            kinds = [_SCALARS.get(t, Any) for t in type_ if isinstance(t, str)]
            kind = Union[tuple(kinds)] if kinds and Any not in kinds else Any  # noqa: UP007
        elif type_ in _SCALARS:
            kind = _SCALARS[type_]
        elif type_ == "array":
            kind = list[annotation(root, prop.get("items"), depth + 1)]  # type: ignore[misc]
        elif type_ == "object":
            kind = dict[str, Any]
        else:
            branches = prop.get("anyOf") or prop.get("oneOf")
            if isinstance(branches, list) and branches:
                kinds = [annotation(root, b, depth + 1) for b in branches]
                kind = Any if Any in kinds else Union[tuple(kinds)]  # noqa: UP007
            else:
                kind = Any
    return Optional[kind] if nullable and kind is not Any else kind  # noqa: UP045


def _properties(schema: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, None]]:
    """The properties, and the required names in their order, as dict keys: each property asks whether it is
    required, and a list asked 10,000 times walked 10,000 names each time."""
    props = schema.get("properties")
    required = schema.get("required")
    return (
        dict(props) if isinstance(props, Mapping) else {},
        dict.fromkeys(r for r in required if isinstance(r, str)) if isinstance(required, list) else {},
    )


def tool_signature(
    input_schema: Mapping[str, Any], output_schema: Mapping[str, Any] | None
) -> inspect.Signature:
    """The signature a tool's function shows (required first, then optional with defaults)."""
    props, required = _properties(input_schema)
    positional, optional, extra = [], [], False
    for name, prop in props.items():
        if not parameter_name(name):
            extra = True
            continue
        kind = annotation(input_schema, prop)
        if name in required:
            positional.append(
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=kind)
            )
        else:
            default = prop.get("default") if isinstance(prop, Mapping) else None
            if kind is not Any and default is None:
                kind = Optional[kind]  # noqa: UP045
            optional.append(
                inspect.Parameter(
                    name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind
                )
            )
    params = positional + optional
    more = input_schema.get("additionalProperties")
    if extra or more is True or isinstance(more, Mapping):  # names no parameter can have, or any key
        params.append(inspect.Parameter(keywords_name(props), inspect.Parameter.VAR_KEYWORD, annotation=Any))
    returns: Any = dict[str, Any] if output_schema else str
    if output_schema and output_schema.get("x-fastmcp-wrap-result") is True:  # a plain value, wrapped
        listed = output_schema.get("properties")
        inner = listed.get("result") if isinstance(listed, Mapping) else None
        returns = annotation(output_schema, inner) if isinstance(inner, Mapping) else Any
    return inspect.Signature(params, return_annotation=returns)


def tool_docstring(
    description: str | None,
    input_schema: Mapping[str, Any],
    output_schema: Mapping[str, Any] | None,
    *,
    server: str,
    tool: str,
) -> str:
    """The tool's description, then its arguments (Google style), what it returns, and where it lives.

    Every server-supplied string is shown literally (`core.text.shown`): an escape or a bidi control in a
    description is written as `\\x1b` / `U+202E`, so a pager neither draws nor reverses it.
    """
    props, required = _properties(input_schema)
    lines = [(description or "").strip() or f"The tool {tool!r}."]
    args = []
    for name, prop in props.items():
        shown_name = name if parameter_name(name) else f"{name!r} (pass as **{{...}})"
        text = _argument_text(name, prop, required=name in required)
        args.append(f"    {shown_name}: " + text.replace("\n", "\n        "))
    if args:
        lines += ["", "Args:", *args]
    lines += ["", "Returns:"]
    lines.append(
        "    The structured content (a dict, checked against the tool's outputSchema)."
        if output_schema
        else "    The text of the result (its content list when it has no text)."
    )
    lines += [
        "",
        "Raises:",
        "    TypeError, ValueError: An argument is missing, unknown or breaks the input schema",
        "        (nothing is sent then).",
        "    ToolError: The tool reported a failure (its text).",
        "",
        f"MCP tool {tool!r} of the server {server!r}. `await fn(...)` in a cell; `fn.sync(...)` blocks.",
    ]
    return shown("\n".join(lines))


_CLOSERS = "\"')]}»”’"


def _argument_text(name: str, prop: Any, *, required: bool) -> str:
    """What the docstring says of one argument, in sentences: "Only files of this kind. Optional."; a title
    that only repeats the name ("Sort By" for `sort_by`) says nothing, so it is left out."""
    text = ""
    if isinstance(prop, Mapping):
        lines = str(prop.get("description") or "").replace("\r\n", "\n").strip().split("\n")
        text = "\n".join(line.strip() for line in lines)  # only newlines: `shown` makes the rest visible
        title = str(prop.get("title") or "").strip()
        if not text and _words(title) != _words(name):
            text = title
    if text and text.rstrip(_CLOSERS)[-1:] not in (".", "!", "?", "…", ":"):
        text += "."
    said = text.casefold().startswith("optional")  # "Optional explicit elicitation ID." says it already
    note = "" if said or (required and text) else "Required." if required else "Optional."
    return f"{text} {note}".strip()


def _words(text: str) -> str:
    """A name or title as its letters and digits only, in lower case: `sort_by` and "Sort By" are alike."""
    return "".join(c for c in text.casefold() if c.isalnum())


def bind_arguments(
    signature: inspect.Signature,
    input_schema: Mapping[str, Any],
    fn_name: str,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
) -> dict[str, Any]:
    """The arguments to send for a call `fn(*args, **kwargs)`, checked against the input schema.

    Raises:
        TypeError: A missing or unknown argument, or a value of the wrong JSON type.
        ValueError: A value that breaks another rule of the schema (a bound, an enum, a pattern).
    """
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{fn_name}(): {exc}") from None
    _props, required = _properties(input_schema)
    arguments: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        param = signature.parameters[name]
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            arguments.update(value)
        elif value is None and name not in required and param.default is None:
            continue  # an optional argument at None: left out
        else:
            arguments[name] = value
    for name in required:
        if name not in arguments and not parameter_name(name):
            raise TypeError(
                f"{fn_name}(): missing a required argument: {name!r} (pass it as **{{{name!r}: ...}})"
            )
    _check(input_schema, arguments, fn_name)
    return arguments


def _check(schema: Mapping[str, Any], arguments: Mapping[str, Any], fn_name: str) -> None:
    validator = parse_tool_schema(schema).validator
    if validator is None:
        return
    try:
        errors = list(validator.iter_errors(dict(arguments)))
    except Exception:  # a broken schema: the server checks anyway
        return
    if not errors:
        return
    error, message = deepest_error(min(errors, key=lambda e: list(e.absolute_path)))
    text = message or rule_message(error)
    path = [str(p) for p in error.absolute_path]
    if error.validator == "additionalProperties" and not path:
        props, _ = _properties(schema)
        unknown = sorted(k for k in arguments if k not in props)
        raise TypeError(f"{fn_name}(): got an unexpected argument {', '.join(map(repr, unknown))}")
    where = (
        f"argument {path[0]!r}" + (f" (at {'.'.join(path[1:])})" if len(path) > 1 else "")
        if path
        else "arguments"
    )
    cls = TypeError if error.validator == "type" else ValueError
    raise cls(f"{fn_name}(): {where}: {text}")


def check_output(output_schema: Mapping[str, Any], structured: Any) -> str | None:
    """None when `structured` matches the tool's outputSchema, else why not (no values quoted)."""
    validator = make_validator(output_schema)
    if validator is None:
        return None
    try:
        errors = list(validator.iter_errors(structured))
    except Exception:
        return None
    if not errors:
        return None
    error, message = deepest_error(errors[0])
    path = ".".join(str(p) for p in error.absolute_path)
    return (f"{path}: " if path else "") + (message or rule_message(error))
