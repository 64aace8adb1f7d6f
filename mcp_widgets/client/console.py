"""Asking in a terminal (IPython or python on a TTY, no notebook): the same form, one field at a time.

The form is still built (it holds the rules and makes the content); the console only types into it and
presses its buttons, as a person would. First who asks and the message (Enter answers, `n` declines, `q`
cancels), then each field with its title, default and choices. A value the field refuses is asked again, up
to three times (then the request is cancelled); a required field left empty declines. A sign-in shows the
authorization server's host, the scopes and the address; after consent the browser's redirect comes back by
itself, or the person pastes the address it ended on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ..core.card import Card

if TYPE_CHECKING:
    from ..widgets import ElicitationForm, SignInCard, UrlCard

from ..core.text import shown

__all__ = ["ask", "available"]

TRIES = 3
_YES = {"y", "yes", "true", "t", "1", "on"}
_NO = {"n", "no", "false", "f", "0", "off"}


def available() -> bool:
    """True when a person can be asked on this process's terminal."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def ask(
    card: Card, *, read: Callable[[str], str] | None = None, write: Callable[[str], object] | None = None
) -> None:
    """Ask `card`'s question on the terminal and answer it (decline, cancel or accept).

    Args:
        card: An `ElicitationForm` or a `UrlCard`.
        read: Reads one line after showing a prompt (default `input`).
        write: Shows one line (default `print`).
    """
    raw_read = read or input
    raw_write = write or print

    # Server text reaches the terminal as visible escapes: no ANSI/OSC sequence of a server runs there.
    def safe_read(prompt: str) -> str:
        return raw_read(shown(prompt))

    def safe_write(line: str) -> object:
        return raw_write(shown(line))

    try:
        _ask(card, safe_read, safe_write)
    except (EOFError, KeyboardInterrupt):
        safe_write("")
        card.cancel()


def _ask(card: Card, read: Callable[[str], str], write: Callable[[str], object]) -> None:
    header = f"Request from {card.server}"
    if card.declared_name and card.declared_name != card.server:
        header += f" (calls itself “{card.declared_name}”)"
    write(header)
    if card.message:
        write(card.message)
    if card.kind == "url":  # consent first, and only then the address to open
        _ask_url(cast("UrlCard", card), read, write)
        return
    if card.kind == "signin":
        _ask_signin(cast("SignInCard", card), read, write)
        return
    if card.kind != "form":
        write(f"A {card.kind!r} request cannot be answered here; cancelled.")
        card.cancel()
        return
    _ask_form(cast("ElicitationForm", card), read, write)


def _ask_form(card: ElicitationForm, read: Callable[[str], str], write: Callable[[str], object]) -> None:
    first = read("[Enter] answer · n decline · q cancel: ").strip().lower()
    if first in ("n", "no"):
        card.decline()
        return
    if first in ("q", "quit", "cancel"):
        card.cancel()
        return
    for spec in card.spec.fields:
        if not _ask_field(card, spec, read, write):
            return
    if not card.accept():
        for name, message in sorted(card.errors.items()):
            write(f"  {name}: {message}")
        write("The answers are not valid; cancelled.")
        card.cancel()
        return
    write(f"Sent to {card.server}.")


def _ask_url(card: UrlCard, read: Callable[[str], str], write: Callable[[str], object]) -> None:
    check = card.check
    write(f"It asks you to open a page on: {check.host_unicode or check.host}")
    write(f"Full address: {check.display}")
    for warning in check.warnings:
        write(f"Warning: {warning}")
    answer = read("y open the page · n decline · q cancel: ").strip().lower()
    if answer in ("y", "yes"):
        card.accept()
        write(f"Open this address in your browser: {check.display}")
    elif answer in ("q", "quit", "cancel"):
        card.cancel()
    else:
        card.decline()


def _ask_signin(card: SignInCard, read: Callable[[str], str], write: Callable[[str], object]) -> None:
    check = card.check
    write(f"It asks you to sign in on: {check.host_unicode or check.host}")
    write(f"Scopes: {', '.join(card.scopes) or 'none named'}")
    write(f"Full address: {check.display}")
    for warning in check.warnings:
        write(f"Warning: {warning}")
    if read("y sign in · q cancel: ").strip().lower() not in ("y", "yes"):
        card.cancel()
        return
    card.accept()
    write(f"Open this address in your browser and sign in: {check.display}")
    # The redirect reaches this machine's listener by itself; a browser elsewhere ends on a page that fails.
    address = read("Then press Enter, or paste the address the browser ended on: ").strip()
    if address and not card.paste(address):
        write("That address is not this sign-in's redirect; still waiting for the browser.")


def _ask_field(
    card: ElicitationForm, spec: Any, read: Callable[[str], str], write: Callable[[str], object]
) -> bool:
    """Ask one field until it is valid; False when the request ended instead."""
    from ..core.spec import MISSING

    label = spec.title + (" *" if spec.required else "")
    if spec.description:
        write(f"  {spec.description}")
    choices = list(spec.choices)
    if choices:
        for number, choice in enumerate(choices, 1):
            write(f"    {number}) {choice.title}")
    if spec.kind == "multi":
        label += " (numbers, comma-separated)"
    if spec.kind == "boolean":
        label += " (y/n)"
    if spec.default is not MISSING:
        label += f" [{_show_default(spec)}]"
    for _ in range(TRIES):
        text = read(f"{label}: ").strip()
        if not text:
            if spec.default is not MISSING or not spec.required:
                return True  # the form already holds the default (or nothing, for an optional field)
            write("A required field was left empty; declined.")
            card.decline()
            return False
        try:
            value = _parse(spec, text, choices)
            card.fill(**{spec.name: value})
        except (TypeError, ValueError) as exc:
            write(f"  {_reason(exc, spec)}; try again.")
            continue
        error = card.errors.get(spec.name)
        if error is None:
            return True
        write(f"  {error}; try again.")
    write(f"No valid answer for {spec.title!r}; cancelled.")
    card.cancel()
    return False


def _show_default(spec: Any) -> str:
    default = spec.default
    if spec.kind == "boolean":
        return "y" if default else "n"
    titles = {c.value: c.title for c in spec.choices}
    if spec.kind == "multi":
        return ", ".join(titles.get(v, str(v)) for v in default)
    return str(titles.get(default, default))


def _parse(spec: Any, text: str, choices: list[Any]) -> Any:
    if spec.kind == "boolean":
        word = text.lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
        raise ValueError("answer y or n")
    if spec.kind == "choice":
        return _choice(text, choices)
    if spec.kind == "multi":
        return [_choice(part.strip(), choices) for part in text.split(",") if part.strip()]
    return text  # text, numbers and dates: the field parses them as a browser would


def _choice(text: str, choices: list[Any]) -> Any:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1].value
    for choice in choices:
        if text in (choice.value, choice.title):
            return choice.value
    raise ValueError("not one of the choices")


def _reason(exc: Exception, spec: Any) -> str:
    # Our own messages are safe to show; a control's error may quote the input, so keep to the field's kind.
    text = str(exc)
    if text in ("answer y or n", "not one of the choices"):
        return text
    return f"not a valid {spec.kind} value"
