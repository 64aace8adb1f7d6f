"""The servers people already configured (`mcp.json` files): `servers()`, and connecting to one by name.

Parsing and substitution are pure (`core.mcp_config`); this module finds the files, looks a name up (an
ambiguous name is an error naming the files; `config=` picks one), asks a config's `inputs` in the calling
cell (`InputsCard`: password fields for `password: true`), and turns a config into what `Server` takes:
a target (a command with its `cwd`, or a URL) and `env` / `headers` / `transport` / `name`.

Input values live in `_INPUTS`, this kernel's memory only, keyed by (file, input id) as VS Code keys them
per workspace: never in a repr, a log, the history or widget state (the card closes its fields once
answered). `forget_inputs()` drops them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import StdioServerParameters

from ... import kernel
from ...core.mcp_config import (
    PLAIN_NAME,
    ConfigError,
    ConfigFile,
    ServerConfig,
    config_locations,
    read_config,
)

if TYPE_CHECKING:
    from ...widgets import InputsCard

__all__ = ["ConfigError", "forget_inputs", "lookup"]

_INPUTS: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()
ASKING: list[InputsCard] = []
"""Input cards waiting for the person (for tests and `mw.pending`-like tools; closed ones leave)."""

_NAMES_SHOWN = 20


def found_files(
    path: str | os.PathLike[str] | None = None, *, only: str | None = None
) -> tuple[list[ConfigFile], int]:
    """The config files to read: `path` alone, else every usual place that exists (nearest first); and
    how many places were looked in. A usual place that cannot be parsed is skipped (`path` raises).
    With `only`, each file's servers are only those of that name (a lookup builds no other)."""
    if path is not None:
        return [read_config(path, only=only)], 1
    places = config_locations()
    files = []
    for place, fmt in places:
        if place.is_file():
            try:
                files.append(read_config(place, fmt, only=only))
            except ConfigError:
                continue  # someone else's broken file must not stop the others (servers(path) says why)
    return files, len(places)


def lookup(target: Any, config: str | os.PathLike[str] | ServerConfig | None = None) -> ServerConfig | None:
    """The configured server `target` names, or None when `target` is not such a name (a command line).

    Without `config=`, only a plain name (letters, digits, `_.@:+-` and spaces) is looked up; with it, any
    string is a name in that file. `config=` may be a `ServerConfig` (a row of `mw.servers()`): then no
    file is read again.

    Raises:
        ConfigError: `config=` is given and names no such server, or the name is in several files.
    """
    if config is not None and not isinstance(target, str):
        raise ConfigError("config= takes a server's name from that file: pass the name as the target")
    if isinstance(config, ServerConfig):
        if target != config.name:
            raise ConfigError(f"config= is the server {config.name!r}, not {target!r}")
        return config
    plain = isinstance(target, str) and PLAIN_NAME.fullmatch(target) and "://" not in target
    if config is None and not plain:
        return None
    files, _ = found_files(config, only=target)
    matches = [s for f in files for s in f.servers if s.name == target]
    if config is not None and not matches:
        every = sorted(set(files[0].names))
        names = ", ".join(repr(n) for n in every[:_NAMES_SHOWN]) or "none"
        if len(every) > _NAMES_SHOWN:
            names += f", … ({len(every) - _NAMES_SHOWN:,} more)"
        raise ConfigError(f"{files[0].path} has no server named {target!r} (it has: {names})")
    if len(matches) > 1 and len({m.source for m in matches}) > 1:
        where = "; ".join(m.where for m in matches)
        raise ConfigError(f"{target!r} is configured in several files ({where}): pick one with config=")
    return matches[0] if matches else None


def missing_inputs(entry: ServerConfig) -> list[Any]:
    with _LOCK:
        return [i for i in entry.inputs if (entry.source, i.id) not in _INPUTS]


def forget_inputs() -> None:
    """Forget every input value given so far (the next connect asks again)."""
    with _LOCK:
        _INPUTS.clear()


def _inputs_card(entry: ServerConfig) -> InputsCard:
    from ...widgets import InputsCard

    card = InputsCard(entry.name, missing_inputs(entry), entry.where)
    ASKING.append(card)
    card.result.add_done_callback(lambda _f: ASKING.remove(card) if card in ASKING else None)
    kernel.display(card)
    return card


def keep_inputs(entry: ServerConfig, values: dict[str, str] | None) -> None:
    if values is None:
        raise ConfigError(f"connecting to {entry.name!r} was cancelled (its inputs were not given)")
    with _LOCK:
        for key, value in values.items():
            _INPUTS[(entry.source, key)] = value


async def ask_inputs(entry: ServerConfig) -> None:
    """Ask the person for the inputs `entry` uses that have no value yet (a card in the calling cell)."""
    if missing_inputs(entry):
        card = _inputs_card(entry)
        keep_inputs(entry, await kernel.wait_async(card.result))


def ask_inputs_sync(entry: ServerConfig) -> None:
    """`ask_inputs` for synchronous code (the card is answered while the cell blocks)."""
    if missing_inputs(entry):
        card = _inputs_card(entry)
        keep_inputs(entry, kernel.wait_sync(card.result))


def server_arguments(
    entry: ServerConfig,
    *,
    name: str | None,
    env: Mapping[str, str] | None,
    headers: Mapping[str, str] | None,
    transport: str,
) -> tuple[Any, dict[str, Any]]:
    """What `Server` takes for a configured server: (target, {name, env, headers, transport, hidden}).

    `hidden` holds the values substituted from the environment or inputs: never shown (`Target.hidden`).

    `env=` / `headers=` given to connect are laid over the config's.

    Raises:
        ConfigError: A variable is unset, or an input has no value yet (connect asks for them first).
    """
    with _LOCK:
        given = {i.id: _INPUTS[(entry.source, i.id)] for i in entry.inputs if (entry.source, i.id) in _INPUTS}
    resolved = entry.resolve(inputs=given)
    options: dict[str, Any] = {"name": name or entry.name, "hidden": resolved.substituted}
    if entry.kind == "stdio":
        if not resolved.command:
            raise ConfigError(f"server {entry.name!r} in {entry.source} has neither a command nor a url")
        cwd = resolved.cwd
        if cwd and not Path(cwd).is_absolute() and entry.workspace:
            cwd = str(Path(entry.workspace) / cwd)
        target: Any = StdioServerParameters(command=resolved.command, args=list(resolved.args), cwd=cwd)
        options.update(env={**resolved.env, **(env or {})} or None, headers=headers, transport=transport)
    else:
        target = resolved.url
        options.update(
            env=env,
            headers={**resolved.headers, **(headers or {})} or None,
            transport=entry.kind if transport == "auto" else transport,
        )
    return target, options
