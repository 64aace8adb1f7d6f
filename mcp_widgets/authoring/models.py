"""A model as an elicitation: the schema the SDK sends for it, and every reason it cannot be one.

The schema is the SDK's own rendering (`mcp.server.elicitation.render_elicitation_schema`, what `Elicit` and
`ctx.elicit` send on both generations), so what the desk shows is what goes on the wire. On top of the SDK's
check, `check_model` applies our `check_schema` and the round-trip rules below, naming the rule and the field.

Model rules, by id (all errors):

    not-a-model        not a pydantic model class or a dataclass
    nested-model       a field holding a model, dataclass or TypedDict (the spec's shapes are flat)
    list-of-objects    a list of models or mappings
    list-not-choices   a list whose items are not `Literal` strings (only multi-selects are lists)
    enum-class         an `Enum` field: pydantic renders it as a `$ref` the spec has no shape for
    union              a union of two or more types (`X | None` is fine: the field is optional)
    mapping            a dict field
    choice-not-string  a `Literal` of numbers or booleans: the spec's choices are strings
    fixed-value        a single `Literal`: nothing to ask (use a default)
    constraint-unchecked  a constraint forms do not check (`multipleOf`): the SDK would refuse answers
                       that the form let through
    unsupported-type   any other type the spec has no shape for (time, UUID, bytes, Decimal, ...)
    no-json-schema     pydantic cannot render the model at all
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, Field, create_model
from pydantic.fields import FieldInfo

from ..core.exceptions import MCPWidgetsError
from ..core.schema import parse_schema
from ..core.spec import Problem

__all__ = ["ModelError", "as_model", "check_model", "model_problems", "sendable_schema"]


class ModelError(MCPWidgetsError, TypeError):
    """A model that cannot be an elicitation; `.problems` names each rule and field."""

    def __init__(self, model: object, problems: tuple[Problem, ...]) -> None:
        self.problems = problems
        name = getattr(model, "__name__", type(model).__name__)
        super().__init__(f"{name} cannot be an elicitation: " + "; ".join(str(p) for p in problems))


def _is_model(cls: object) -> bool:
    return isinstance(cls, type) and issubclass(cls, BaseModel)


@functools.cache
def _from_dataclass(cls: type[Any]) -> type[BaseModel]:
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = ...
        fields[f.name] = (hints[f.name], default)
    doc = cls.__doc__ if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}(") else None
    model: type[BaseModel] = create_model(cls.__name__, __doc__=doc, __module__=cls.__module__, **fields)
    return model


def as_model(cls: type[Any]) -> type[BaseModel]:
    """The pydantic model `Elicit` takes: a model class as it is, a dataclass as a model of its fields.

    The SDK's `Elicit(message, Model)` renders pydantic models only; `Elicit(message, as_model(MyDataclass))`
    asks for a dataclass's fields (the tool then receives an instance of the model, not of the dataclass).
    The same dataclass always gives the same model class.
    """
    if _is_model(cls):
        return cls
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        return _from_dataclass(cls)
    raise ModelError(cls, (Problem("error", "not-a-model", _not_a_model(cls)),))


def _not_a_model(cls: object) -> str:
    what = f"the class {cls.__name__}" if isinstance(cls, type) else f"a {type(cls).__name__}"
    return f"{what} is not a pydantic model class or a dataclass"


def check_model(model: type[Any]) -> dict[str, Any]:
    """Check at the desk that `model` can be an elicitation; returns the requestedSchema the SDK sends for it.

    On 2025-11-25 it is sent whole; on 2026-07-28 the SDK's wire model keeps only its `type`, `properties`
    and `required` (a top-level title and description are dropped).

    Raises:
        ModelError: naming every rule broken and its field (see this module's docstring), plus any problem
            our `check_schema` finds in the rendered schema (errors and warnings: a model gives none when
            it is right).
    """
    schema, problems = model_problems(model)
    if problems or schema is None:
        raise ModelError(model, problems)
    return schema


def model_problems(model: type[Any]) -> tuple[dict[str, Any] | None, tuple[Problem, ...]]:
    """(the SDK's schema for `model` or None when it refuses it, every problem found); never raises."""
    try:
        cls = as_model(model)
    except ModelError as exc:
        return None, exc.problems
    except Exception as exc:  # a dataclass pydantic cannot make a model of (an unknown annotation, ...)
        why = f"pydantic cannot render it ({type(exc).__name__})"
        return None, (Problem("error", "no-json-schema", why),)
    try:
        schema = render_elicitation_schema(cls)
    except Exception as exc:
        # The SDK's TypeError stops at the first field it refuses: look at each field to name them all.
        named = (
            ()
            if not isinstance(exc, TypeError)
            else tuple(p for name, info in _fields(cls) for p in _field_problems(cls, name, info))
        )
        code = getattr(exc, "code", None) or type(exc).__name__
        return None, named or (Problem("error", "no-json-schema", f"pydantic cannot render it ({code})"),)
    found = [p for name, prop in schema.get("properties", {}).items() for p in _round_trip(name, prop)]
    seen = {p.property for p in found}
    found += [p for p in parse_schema(schema).problems if p.property not in seen]
    return schema, tuple(found)


def sendable_schema(model: type[Any]) -> dict[str, Any]:
    """The SDK's schema, or for a model it refuses the fields it can render (for previews; never raises).

    A refused field stays as an untyped object property, so a form built from it shows its error and
    keeps Accept disabled.
    """
    schema, _ = model_problems(model)
    if schema is not None:
        return schema
    try:
        cls = as_model(model)
    except ModelError:
        return {"type": "object", "properties": {}}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, info in _fields(cls):
        key = info.alias or name
        try:
            one = render_elicitation_schema(_one_field(cls, name, info))
        except Exception:  # refused: a placeholder (its problem is the model's)
            properties[key] = {"type": "object", "title": info.title or name}
            continue
        properties[key] = one["properties"][key]
        required += one.get("required", [])
    out: dict[str, Any] = {"type": "object", "title": cls.model_config.get("title") or cls.__name__}
    if cls.__doc__ and "__doc__" in vars(cls):
        out["description"] = inspect.cleandoc(cls.__doc__)
    return {**out, "properties": properties, **({"required": required} if required else {})}


def _fields(cls: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    return list(cls.model_fields.items())


def _one_field(cls: type[BaseModel], name: str, info: FieldInfo) -> type[BaseModel]:
    """A model of one field of `cls`, to find which fields the SDK refuses (it stops at the first)."""
    field: dict[str, Any] = {name: (info.annotation, info)}
    model: type[BaseModel] = create_model(cls.__name__, **field)
    return model


def _round_trip(name: str, prop: Mapping[str, Any]) -> list[Problem]:
    # The SDK lets these through, but a form cannot be held to what pydantic will accept.
    if "multipleOf" in prop:
        message = '"multipleOf" is not an elicitation keyword: forms do not check it, pydantic would'
        return [Problem("error", "constraint-unchecked", message, name)]
    if "const" in prop:
        return [Problem("error", "fixed-value", "a single Literal has nothing to ask: use a default", name)]
    choices = prop.get("enum", [])
    if isinstance(prop.get("items"), Mapping):
        choices = prop["items"].get("enum", choices)
    if any(not isinstance(c, str) for c in choices):
        message = "the spec's choices are strings: use Literal['a', 'b']"
        return [Problem("error", "choice-not-string", message, name)]
    return []


def _field_problems(cls: type[BaseModel], name: str, info: FieldInfo) -> list[Problem]:
    try:
        render_elicitation_schema(_one_field(cls, name, info))
    except Exception:
        rule, message = _classify(info.annotation)
        return [Problem("error", rule, message, info.alias or name)]
    return []


def _is_object(tp: Any) -> bool:
    return isinstance(tp, type) and (
        issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp) or typing.is_typeddict(tp)
    )


def _name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def _classify(tp: Any) -> tuple[str, str]:
    """(rule, message) for a field type the SDK refused to render."""
    args = [a for a in get_args(tp) if a is not type(None)]
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if len(args) == 1:
            return _classify(args[0])
        return "union", "a union of several types has no shape in the spec: use one type (X | None is fine)"
    if _is_object(tp):
        return "nested-model", f"a nested {_name(tp)} has no shape in the spec: flatten its fields"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "enum-class", f"an Enum ({_name(tp)}) renders as a $ref: use Literal[...] of its values"
    if origin in (list, set, frozenset) or (isinstance(origin, type) and issubclass(origin, list)):
        item = args[0] if args else Any
        if _is_object(item) or get_origin(item) in (dict, Mapping):
            return "list-of-objects", "a list of objects has no shape in the spec"
        if isinstance(item, type) and issubclass(item, enum.Enum):
            return "enum-class", f"a list of Enum ({_name(item)}) renders as a $ref: use list[Literal[...]]"
        return "list-not-choices", "a list is only allowed as a multi-select: list[Literal['a', 'b']]"
    if origin in (dict, Mapping) or tp is dict:
        return "mapping", "a dict has no shape in the spec"
    if origin is Literal:
        return "choice-not-string", "the spec's choices are strings: use Literal['a', 'b']"
    return "unsupported-type", f"the spec has no shape for {_name(tp)}: use str, bool, int, float, date, ..."
