from pathlib import Path
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
    lazy = set(mcp_widgets._LAZY)
    assert (held | lazy) - HOOKS == set(mcp_widgets.__all__)
    assert held >= HOOKS


def test_each_lazy_name_is_the_object_its_import_names() -> None:
    """The lazy names are read from the `if TYPE_CHECKING:` imports of `mcp_widgets/__init__.py` (the one
    place they are written): each resolves to what that import names, so what mypy sees is what runs."""
    import importlib

    assert {"connect", "Server", "authoring", "handlers", "history"} <= set(mcp_widgets._LAZY)
    for name, (module, attribute) in mcp_widgets._LAZY.items():
        expected = importlib.import_module(module)
        if attribute is not None:
            expected = getattr(expected, attribute)
        value = getattr(mcp_widgets, name)
        if name == "playground" and value is importlib.import_module(module):
            continue  # importing the module rebinds the name: the module is callable (playground.py)
        assert value is expected, name


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


def test_the_names_resolve_from_a_zip_archive_too(tmp_path: Path) -> None:
    """The lazy names are read from the package's source through its loader: imported from a zip archive
    (zipimport, no file on disk) they resolve as from a folder."""
    import subprocess
    import sys
    import zipfile

    package = Path(mcp_widgets.__file__).parent
    archive = tmp_path / "mcp_widgets.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, path.relative_to(package.parent).as_posix())
    code = (
        f"import sys; sys.path.insert(0, {str(archive)!r})\n"
        "import mcp_widgets as mw\n"
        "print(mw.__file__.startswith(sys.path[0]), len(mw._LAZY), mw.connect.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", str(len(mcp_widgets._LAZY)), "mcp_widgets.client.connect"]
