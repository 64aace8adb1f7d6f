"""Stock widget models, built and opened more cheaply: the same models and messages, less work in the kernel.

Opening a stock widget costs most of its construction, and most of that is `get_state` looking up every synced
trait's serializer again (ipywidgets asks traitlets, which walks the class each time). A form opens a dozen
models per request, so `Lean` looks them up once per class. Where no front end can exist (plain Python: the
`comm` package's default `DummyComm`, which drops every message), it serializes neither the state nor any
change of it.

Much of the rest is traitlets announcing each constructor argument as a change that nobody observes yet (the
widget has no comm to send it on before it opens). `Lean` validates such arguments and stores them without the
announcement; any trait that has an observer or a cross-validator at that point goes the stock way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import ipywidgets as w
import traitlets

from ..kernel.comms import closing, comms_go_nowhere, nowhere_comm

__all__ = ["LAZY", "Lean", "class_cache", "lean"]

W = TypeVar("W", bound=w.Widget)
P = ParamSpec("P")
R = TypeVar("R")
_Plan = tuple[tuple[str, "Callable[[Any, Any], Any] | None"], ...]


class _Lazy:
    def __repr__(self) -> str:
        return "LAZY"


LAZY: Any = _Lazy()
"""A constructor argument's value meaning "not now": the trait is left to its `@default`, made when first
read (a handler's form's `children` in plain Python, where no front end reads the state as it opens)."""


def class_cache(fn: Callable[P, R]) -> Callable[P, R]:
    """`functools.cache`, typed as the function it wraps: mypy takes no class for Hashable (mypy#11470)."""
    return functools.cache(fn)  # type: ignore[return-value]  # the same call, see the docstring


@functools.cache
def _plan(cls: type[w.Widget], keys: tuple[str, ...]) -> _Plan | None:
    """Each synced trait with its serializer (None: the default one); None when an instance added traits."""
    traits = cls.class_traits()
    if not all(k in traits for k in keys):
        return None
    return tuple((k, traits[k].metadata.get("to_json")) for k in keys)


class _QuietArguments(traitlets.HasTraits):
    """Sets the constructor arguments nobody observes without a change notification.

    In a widget's MRO it comes right before `HasTraits`: every stock `__init__` has run (and registered its
    own observers and validators, and handled the arguments it names) when it sees what is left.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for name in [n for n, v in kwargs.items() if v is LAZY]:
            del kwargs[name]
        if "tooltip" in kwargs and getattr(type(self), "tooltip", None) is _TOOLTIP:
            kwargs["description_tooltip"] = kwargs.pop("tooltip")
        notifiers, validators = self._trait_notifiers, self._trait_validators
        if kwargs and traitlets.All not in notifiers and traitlets.All not in validators:
            traits = _class_traits(type(self))
            values = self._trait_values
            for name in [n for n in kwargs if n in traits and n not in notifiers and n not in validators]:
                values[name] = traits[name]._validate(self, kwargs.pop(name))
        super().__init__(*args, **kwargs)


@functools.cache
def _class_traits(cls: type[traitlets.HasTraits]) -> dict[str, traitlets.TraitType[Any, Any]]:
    # Not those with an old-style `_<name>_changed` observer (traitlets finds it by name, not in a registry).
    return {n: t for n, t in cls.class_traits().items() if not hasattr(cls, f"_{n}_changed")}


class Lean(w.Widget, _QuietArguments):
    """Mixin for a stock widget class: constructor arguments nobody observes are set without a notification,
    `get_state` finds each trait's serializer once per class, and a widget whose comm can reach no front end
    opens without serializing its state or any change of it."""

    comm: Any  # the Widget trait, assigned in `open`

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        plan = None if key is not None or drop_defaults else _plan(type(self), tuple(self.keys))
        if plan is None:
            state: dict[str, Any] = super().get_state(key, drop_defaults)
            return state
        default = self._trait_to_json
        return {k: (to_json or default)(getattr(self, k), self) for k, to_json in plan}

    def open(self) -> None:
        if self.comm is None and comms_go_nowhere():
            # Nobody can read this state (a DummyComm drops every message), nor any change of it.
            self.comm = nowhere_comm(self._model_id)
            return
        super().open()

    def close(self) -> None:
        comm = self.comm
        if comm is not None and getattr(comm, "kernel", None) is not None:  # a front end may still message it
            closing(comm.comm_id)
        super().close()


def _get_tooltip(widget: Any) -> Any:
    return widget.description_tooltip


def _set_tooltip(widget: Any, text: Any) -> None:
    widget.description_tooltip = text


_TOOLTIP = property(
    _get_tooltip, _set_tooltip, doc="ipywidgets 7's `description_tooltip`, by ipywidgets 8's name."
)
"""ipywidgets 7 (Google Colab's) names a described control's tooltip `description_tooltip`; 8 calls it
`tooltip` (7 takes a `tooltip` it does not know silently, and shows nothing)."""


@class_cache
def lean(cls: type[W]) -> type[W]:
    """The `Lean` version of a stock widget class (same name, model and view; a subclass of `cls`)."""
    if issubclass(cls, Lean):
        return cls
    namespace: dict[str, Any] = {"__module__": __name__, "__doc__": cls.__doc__}
    traits = cls.class_traits()
    if "tooltip" not in traits and "description_tooltip" in traits:
        namespace["tooltip"] = _TOOLTIP
    return type(cls.__name__, (Lean, cls), namespace)
