from types import ModuleType

import mcp_widgets

HOOKS = {"load_ipython_extension"}
"""Public by IPython's convention (`%load_ext mcp_widgets`), not API."""


def test_all_is_sorted_and_complete() -> None:
    exported = mcp_widgets.__all__
    assert exported == sorted(exported)
    for name in exported:
        assert getattr(mcp_widgets, name) is not None, name


def test_public_names_are_exported() -> None:
    """Every public name the module holds or resolves lazily is in __all__, and nothing else is (httpx's
    check: read `vars()`, since the module's `__dir__` returns `__all__`). Submodules (the rooms) are not
    names of the surface."""
    held = {
        name
        for name, value in vars(mcp_widgets).items()
        if (not name.startswith("_") or name == "__version__") and not isinstance(value, ModuleType)
    }
    lazy = set(mcp_widgets._LAZY) | set(mcp_widgets._LAZY_MODULES)
    assert (held | lazy) - HOOKS == set(mcp_widgets.__all__)
    assert held >= HOOKS


def test_unknown_name_raises_attribute_error() -> None:
    try:
        mcp_widgets.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_one_way_each_the_other_warns() -> None:
    """mw.history() and mw.preview() make the panels; mw.HistoryPanel and mw.Preview still give the types
    (mcp_widgets.widgets has them) with a DeprecationWarning naming the function, and are not in __all__."""
    import pytest

    from mcp_widgets import widgets

    for name, use in (("HistoryPanel", "mw.history"), ("Preview", "mw.preview")):
        with pytest.warns(DeprecationWarning, match=rf"mw\.{name} is deprecated: use {use}\("):
            assert getattr(mcp_widgets, name) is getattr(widgets, name)
        assert name not in mcp_widgets.__all__
