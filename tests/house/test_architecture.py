"""The rules of the house, checked so they stay true (the import-linter contracts are in pyproject.toml).

Rooms with one-way doors: `core` <- `kernel` <- `widgets` <- `client`; the demo (code for server authors)
builds on the core and the SDK only; the public facade (the top-level modules) may use any room's public
names. Also: one concept per module (a module over 500 lines says why in a docstring paragraph that
begins "One concept:"), no import cycle (not even one dodged with a function-level import or one only
type checkers see),
and no private name (a leading underscore: module, function, class or constant) imported from another room,
nor a private attribute of another module's making used other than through `self` / `cls` (`PRIVATE_USES`
lists the few exceptions, each with its reason).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT

PACKAGE = ROOT / "mcp_widgets"
ROOMS = ("core", "kernel", "widgets", "client", "demo", "authoring")
FACADE = "facade"  # mcp_widgets/__init__.py and the other top-level modules

# Not a limit to bend code around: past it, the module's docstring says why it is still one concept.
MAX_LINES = 500
WHY = "One concept:"


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> path, for every module of the package under `root`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else FACADE


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import statement with (at function level?, only for type checkers?)."""

    def walk(node: ast.AST, in_function: bool, typing_only: bool) -> Iterator[tuple[ast.AST, bool, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function, typing_only
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), in_function, True)
                for stmt in child.orelse:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), in_function, typing_only)
            else:
                func = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                yield from walk(child, in_function or func, typing_only)

    yield from walk(tree, False, False)  # type: ignore[misc]


def targets(
    module: str, path: Path, node: ast.Import | ast.ImportFrom, known: set[str]
) -> list[tuple[str, str]]:
    """(imported module, imported name or "") pairs, inside the package only."""
    if isinstance(node, ast.Import):
        return [(a.name, "") for a in node.names if a.name.split(".")[0] == PACKAGE.name]
    if node.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != PACKAGE.name:
        return []
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append((sub, "") if sub in known else (source, alias.name))
    return out


def graph(root: Path = PACKAGE) -> list[tuple[str, str, str, bool, bool, int]]:
    """(importer, imported module, imported name, function level?, typing only?, line) for each import."""
    found = modules(root)
    edges = []
    for module, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, in_function, typing_only in imports(tree):
            for target, name in targets(module, path, node, set(found)):
                edges.append((module, target, name, in_function, typing_only, node.lineno))
    return edges


def private_crossings(root: Path = PACKAGE) -> list[str]:
    bad = []
    for module, target, name, _, _, line in graph(root):
        if room(module) == room(target):
            continue
        private = [p for p in target.split(".")[1:] if p.startswith("_") and not p.startswith("__")]
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            private.append(name)
        if private:
            bad.append(f"{module}:{line} imports {'.'.join(private)} from {target} (room {room(target)})")
    return bad


def cycles(root: Path = PACKAGE) -> list[list[str]]:
    """Strongly connected groups of modules, over every import: module or function level, and those only
    for type checkers (a circle there is a circle in the design: a narrow `Protocol` cuts it)."""
    edges: dict[str, set[str]] = {}
    for module, target, _, _, _, _ in graph(root):
        if target != module:
            edges.setdefault(module, set()).add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return groups


def sizes(root: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if lines > MAX_LINES and not any(p.startswith(WHY) for p in docstring.split("\n\n")):
            bad.append(f"{rel}: {lines} lines (over {MAX_LINES}, and no docstring paragraph saying {WHY!r})")
    return bad


# --------------------------------------------------------------------------- the tests


def test_the_rooms_keep_their_doors() -> None:
    """import-linter contracts (pyproject.toml, [tool.importlinter]): layers, a pure core, the demo apart."""
    # In a subprocess: import-linter configures logging with `dictConfig`, which would disable the
    # loggers of this process (and so the log checks of later tests).
    config = str(PACKAGE.parent / "pyproject.toml")
    code = (
        "import sys; from importlinter import cli; "
        f"sys.exit(cli.lint_imports(config_filename={config!r}, no_cache=True))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]


def test_no_module_is_over_the_limit() -> None:
    assert sizes() == []


def test_no_private_name_crosses_a_room() -> None:
    assert private_crossings() == []


def private_names_between_modules(root: Path = PACKAGE) -> list[str]:
    """Underscore names one module imports from another of its room (a name another module needs is that
    module's public name; only the module itself may be private, as `widgets/_form.py` is)."""
    return [
        f"{module}:{line} imports {name} from {target}"
        for module, target, name, _, _, line in graph(root)
        if module != target
        and room(module) == room(target)
        and name.startswith("_")
        and not (name.startswith("__") and name.endswith("__"))
    ]


def test_no_private_name_crosses_a_module() -> None:
    assert private_names_between_modules() == []


PRIVATE_USES = {
    ("mcp_widgets.client.connect", "_start"): "connect() starts the Server it built (not the person's to do)",
    ("mcp_widgets.client.connect", "_signal_close"): "and closes it when the handshake failed",
    ("mcp_widgets.client.configs.table", "_start"): "the servers table connects the Servers it built",
    ("mcp_widgets.client.configs.table", "_signal_close"): "and closes one whose start failed",
}
"""(module, attribute) -> why: the only private attributes of another module's making the package uses."""


def _sunder(name: str) -> bool:
    """Not private: dunders, `_`, and IPython's display protocol (`_repr_html_`, `_ipython_display_`)."""
    return name == "_" or name.endswith("_") or not name.startswith("_")


def _made_here(tree: ast.Module) -> set[str]:
    """The underscore names a module makes: its functions, classes and variables, and attributes it sets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return {name for name in names if not _sunder(name)}


def private_attributes(
    root: Path = PACKAGE, foreign: frozenset[str] = frozenset()
) -> dict[tuple[str, str], str]:
    """(module, attribute) -> where, for each `x._name` whose `_name` another module of the package makes and
    this one does not, with `x` neither `self` nor `cls`. `foreign`: names the libraries we subclass make
    too (ipywidgets' `_dom_classes`): theirs, not ours."""
    trees = {module: ast.parse(path.read_text(encoding="utf-8")) for module, path in modules(root).items()}
    made = {module: _made_here(tree) for module, tree in trees.items()}
    ours = set().union(*made.values()) - foreign
    found: dict[tuple[str, str], str] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or _sunder(node.attr) or node.attr not in ours:
                continue
            through_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if node.attr in made[module] or through_self:
                continue
            found.setdefault((module, node.attr), f"{module}:{node.lineno} uses .{node.attr}")
    return found


def _foreign_names() -> frozenset[str]:
    import ipywidgets
    import traitlets

    return frozenset(dir(ipywidgets.DOMWidget)) | frozenset(dir(traitlets.HasTraits))


def test_no_private_attribute_crosses_a_module() -> None:
    """A module uses another's `_name` only through `self` / `cls`: what another module needs is public.
    Every exception is listed with its reason, and a listed one no longer used leaves the list."""
    found = private_attributes(foreign=_foreign_names())
    assert [where for key, where in found.items() if key not in PRIVATE_USES] == []
    assert sorted(set(PRIVATE_USES) - set(found)) == []


def test_the_private_attribute_check_sees_a_planted_use(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE.name
    (root / "core").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "core" / "__init__.py").write_text("")
    (root / "core" / "a.py").write_text(
        "class A:\n    def __init__(self):\n        self._secret = 1\n"
        "    def _repr_html_(self):\n        return ''\n"
    )
    (root / "core" / "b.py").write_text(
        "from .a import A\n\ndef peek(a: A):\n    a._repr_html_()\n    return a._secret\n"
    )
    name = PACKAGE.name
    assert private_attributes(root) == {(f"{name}.core.b", "_secret"): f"{name}.core.b:5 uses ._secret"}
    assert private_attributes(root, foreign=frozenset({"_secret"})) == {}


def test_no_import_cycle() -> None:
    assert cycles() == []


def test_function_level_imports_of_the_package_only_go_down() -> None:
    """A function-level import may defer loading a lower room, never dodge a cycle or climb a room."""
    order = {"core": 0, "kernel": 1, "widgets": 2, "client": 3, "demo": 1, "authoring": 1, FACADE: 4}
    bad = [
        f"{module}:{line} imports {target} inside a function"
        for module, target, _, in_function, _, line in graph()
        if in_function and room(module) != FACADE and order[room(target)] > order[room(module)]
    ]
    assert bad == []


@pytest.mark.parametrize("check", [private_crossings, private_names_between_modules, cycles])
def test_the_checks_see_what_they_look_for(check, tmp_path: Path) -> None:
    """Guards the checks above against passing vacuously: a small package that breaks each rule."""
    root = tmp_path / PACKAGE.name
    for sub in ("core", "client"):
        (root / sub).mkdir(parents=True)
        (root / sub / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "core" / "a.py").write_text("def f():\n    from .b import g\n")
    (root / "core" / "b.py").write_text("from .a import f, _g\n")

    (root / "client" / "c.py").write_text("from ..core.a import _hidden\nfrom ..core import _mod\n")
    (root / "core" / "_mod.py").write_text("")
    assert check(root)


def test_a_circle_only_type_checkers_see_is_a_circle(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE.name
    root.mkdir()
    (root / "__init__.py").write_text("")
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .t2 import T\n"
    (root / "t1.py").write_text(typing_only)
    (root / "t2.py").write_text("from .t1 import U\n")
    assert cycles(root) == [[f"{PACKAGE.name}.t1", f"{PACKAGE.name}.t2"]]


def test_the_size_check_sees_a_long_module(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE.name
    root.mkdir()
    (root / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    why = f"over {MAX_LINES}, and no docstring paragraph saying {WHY!r}"
    assert sizes(root) == [f"long.py: {MAX_LINES + 1} lines ({why})"]
    (root / "long.py").write_text(f'"""Long.\n\n{WHY} one table."""\n' + "x = 1\n" * MAX_LINES)
    assert sizes(root) == []
