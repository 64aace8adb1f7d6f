"""Tab in a code cell finds the name before the dot without running any code of the namespace's (the rest of
the path is read with `inspect.getattr_static`; the kernel tests check that in real kernels)."""

from __future__ import annotations

from typing import Any

from IPython.core.completer import CompletionContext
from IPython.core.interactiveshell import InteractiveShell

from mcp_widgets.kernel.completion import MATCHER_ID, complete_in_code, name_in


class Colliding:
    """A key whose hash is that of the name looked up: a hashed lookup would call its `__eq__`."""

    def __init__(self, name: str, calls: list[str]) -> None:
        self.name = name
        self.calls = calls

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        self.calls.append("__eq__")
        return False


class Named(str):
    """A `str` subclass key: its `__eq__` is the namespace's code too."""

    def __eq__(self, other: object) -> bool:
        raise AssertionError("ran")

    __hash__ = str.__hash__


class Asked:
    """Stands for a server: what Tab asks it for."""


def test_tab_never_compares_a_colliding_key_object() -> None:
    shell = InteractiveShell.instance()
    complete_in_code(Asked, lambda obj, target: ["Alice", "Alan"])
    matcher = next(m for m in shell.Completer.custom_matchers if m.matcher_identifier == MATCHER_ID)
    calls: list[str] = []
    shell.user_ns[Colliding("srv", calls)] = "not it"  # type: ignore[index]
    shell.user_ns["srv"] = Asked()
    calls.clear()  # storing "srv" compared it once
    try:
        code = 'srv.get_prompt("greet", {"name": "Al'
        found = matcher(CompletionContext("Al", code, len(code), 0, 500))["completions"]
        assert [c.text for c in found] == ["Alice", "Alan"]
        assert calls == []
    finally:
        for key in [k for k in shell.user_ns if isinstance(k, Colliding) or k == "srv"]:
            del shell.user_ns[key]


def test_only_exact_str_keys_are_names() -> None:
    server = object()
    namespace: dict[Any, Any] = {Named("srv"): object(), "other": server}
    assert name_in(namespace, "srv") is None
    assert name_in(namespace, "other") is server
    assert name_in(namespace, "nobody") is None
