"""Lean widgets: the same state as stock ipywidgets, serialized only where a front end could read it."""

from __future__ import annotations

from typing import Any, ClassVar

import comm
import ipywidgets as w
import pytest
import traitlets

from mcp_widgets.widgets._lean import LAZY, Lean, lean

CLASSES = [
    w.Label,
    w.Button,
    w.Text,
    w.Textarea,
    w.Checkbox,
    w.Dropdown,
    w.SelectMultiple,
    w.HBox,
    w.DatePicker,
]


def make(cls: type[w.Widget]) -> dict[str, Any]:
    traits: dict[str, Any] = {"layout": w.Layout()}  # shared by both widgets compared
    style = cls.class_traits().get("style")
    if style is not None:
        traits["style"] = style.klass()
    if issubclass(cls, (w.Dropdown, w.SelectMultiple)):
        traits["options"] = [("One", 1), ("Two", 2)]
    if issubclass(cls, w.HBox):
        traits["children"] = (w.Label("a"),)
    if issubclass(cls, w.Button):
        traits["description"] = "Go"
    return traits


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_lean_state_is_the_stock_state(cls: type[w.Widget]) -> None:
    traits = make(cls)
    ours, stock = lean(cls)(**traits), cls(**traits)
    try:
        assert isinstance(ours, cls) and isinstance(ours, Lean) and type(ours).__name__ == cls.__name__
        assert ours.get_state() == stock.get_state()
        assert ours.get_state("layout") == stock.get_state("layout")
        assert ours.get_state(drop_defaults=True) == stock.get_state(drop_defaults=True)
    finally:
        ours.close()
        stock.close()


def test_lean_class_is_made_once() -> None:
    assert lean(w.Label) is lean(w.Label)
    assert lean(lean(w.Label)) is lean(w.Label)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_front_end_gets_the_full_state_when_it_opens(cls: type[w.Widget], kernel_comms: list[Any]) -> None:
    traits = make(cls)
    ours = lean(cls)(**traits)
    opened = [data for kind, data in kernel_comms if kind == "comm_open"]
    try:
        assert opened[-1]["state"] == ours.get_state()
        assert opened[-1]["state"]["_model_name"] == cls.class_traits()["_model_name"].default_value
    finally:
        ours.close()


def test_without_a_kernel_nothing_is_serialized(monkeypatch: pytest.MonkeyPatch) -> None:
    assert comm.create_comm is comm._create_comm  # plain Python: a DummyComm drops every message
    calls: list[Any] = []  # the keys asked for (None: all of them)

    def get_state(self: w.Widget, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        if key is None or len(key):  # hold_sync asks for no key at all when nothing is to be sent
            calls.append(key)
        return {}

    monkeypatch.setattr(lean(w.Label), "get_state", get_state)
    label = lean(w.Label)(value="x")
    seen: list[str] = []
    label.observe(lambda change: seen.append(change["new"]), names="value")
    try:
        assert calls == [] and label.comm is not None and label.model_id
        label.value = "y"  # updates still work, observers see them, and nothing is serialized for them
        label.set_state({"value": "z"})  # nor for a front end's update (no echo to prepare)
        with label.hold_sync():
            label.value = "w"
        assert calls == [] and seen == ["y", "z", "w"] and label.value == "w"
    finally:
        label.close()
    assert label.comm is None


def test_a_widget_whose_instances_add_traits_serializes_them_too() -> None:
    label = lean(w.Label)(value="x")
    try:
        label.add_traits(extra=traitlets.Unicode("added").tag(sync=True))
        label.keys = [*label.keys, "extra"]
        assert label.get_state()["extra"] == "added"
        assert label.get_state() == w.Widget.get_state(label)
    finally:
        label.close()


# Every constructor argument the package's Kit passes, per class (and a few it might).
ARGUMENTS: dict[type[w.Widget], dict[str, Any]] = {
    w.Label: {"value": "Hi", "tooltip": "tip", "_dom_classes": ("a", "b")},
    w.Button: {
        "description": "Go",
        "button_style": "primary",
        "icon": "check",
        "tooltip": "t",
        "disabled": True,
    },
    w.Text: {
        "description": "Name *",
        "tooltip": "t",
        "placeholder": "p",
        "value": "v",
        "continuous_update": False,
    },
    w.Textarea: {"description": "Notes", "value": "a\nb", "rows": 3},
    w.Checkbox: {"description": "Yes", "value": True, "indent": False},
    w.Dropdown: {"options": [("One", 1), ("Two", 2)], "value": 2, "description": "Pick"},
    w.SelectMultiple: {"options": [("One", 1), ("Two", 2)], "value": (1, 2), "rows": 2},
    w.HBox: {"children": (), "_dom_classes": ("row",)},
    w.DatePicker: {"description": "Day", "disabled": True},
}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_constructor_arguments_set_what_they_set_in_a_stock_widget(cls: type[w.Widget]) -> None:
    traits = {**make(cls), **ARGUMENTS[cls]}
    ours, stock = lean(cls)(**traits), cls(**traits)
    try:
        for name in traits:
            assert getattr(ours, name) == getattr(stock, name), name
        assert ours.get_state() == stock.get_state()
    finally:
        ours.close()
        stock.close()


def test_a_bad_constructor_argument_is_refused_as_in_a_stock_widget() -> None:
    for cls in (w.Button, lean(w.Button)):
        with pytest.raises(traitlets.TraitError):
            cls(disabled="not a bool")
        with pytest.raises(traitlets.TraitError):
            cls(button_style="not a style")


class Watched(w.Label):
    """A widget class that observes and cross-validates some of its traits."""

    seen: ClassVar[list[str]] = []

    @traitlets.observe("value")
    def _value_changed(self, change: Any) -> None:
        Watched.seen.append(change["new"])

    @traitlets.validate("tooltip")
    def _tooltip_upper(self, proposal: Any) -> str:
        return str(proposal["value"]).upper()


def test_observed_and_cross_validated_arguments_still_go_the_stock_way() -> None:
    Watched.seen = []
    label = lean(Watched)(value="hello", tooltip="quiet", description="d")
    try:
        assert Watched.seen == ["hello"]  # the observer heard the constructor's value
        assert label.tooltip == "QUIET"  # the cross-validator ran
        assert label.description == "d"
    finally:
        label.close()


def test_an_observer_of_every_trait_hears_every_argument() -> None:
    heard: list[str] = []

    class Nosy(w.Label):
        def __init__(self, **kwargs: Any) -> None:
            self.observe(lambda change: heard.append(change["name"]))  # before traitlets sets the arguments
            super().__init__(**kwargs)

    label = lean(Nosy)(value="x", tooltip="t")
    try:
        assert {"value", "tooltip"} <= set(heard)
    finally:
        label.close()


class Deferred(w.VBox):
    """A box whose children are made when first read."""

    made: ClassVar[int] = 0

    @traitlets.default("children")
    def _children(self) -> tuple[w.Widget, ...]:
        Deferred.made += 1
        return (w.Label("made when read"),)


def test_a_lazy_argument_is_left_to_the_traits_default_until_read() -> None:
    Deferred.made = 0
    box = lean(Deferred)(children=LAZY)
    try:
        assert Deferred.made == 0 and not box.trait_has_value("children")
        assert [c.value for c in box.children] == ["made when read"]
        assert Deferred.made == 1
        box.children[0].close()
    finally:
        box.close()
    given = lean(Deferred)(children=(w.Label("given"),))  # not lazy: the argument, and no default made
    try:
        assert [c.value for c in given.children] == ["given"] and Deferred.made == 1
        given.children[0].close()
    finally:
        given.close()


class OldStyle(w.Label):
    """A widget class with an old-style (by name) change observer."""

    heard: ClassVar[list[str]] = []

    def _value_changed(self, name: str, old: Any, new: Any) -> None:
        OldStyle.heard.append(new)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # traitlets deprecates them; they still work
def test_an_old_style_observer_still_hears_its_argument() -> None:
    OldStyle.heard = []
    label = lean(OldStyle)(value="hello")
    try:
        assert OldStyle.heard == ["hello"]
    finally:
        label.close()
