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
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import StdioServerParameters

from .. import kernel
from ..core.mcp_config import (
    ConfigError,
    ConfigFile,
    ServerConfig,
    config_locations,
    read_config,
)

if TYPE_CHECKING:
    from ..widgets import InputsCard

__all__ = ["ConfigError", "forget_inputs", "lookup"]

_INPUTS: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()
ASKING: list[InputsCard] = []
"""Input cards waiting for the person (for tests and `mw.pending`-like tools; closed ones leave)."""

_NAME = re.compile(r"[A-Za-z0-9_.@:+-][A-Za-z0-9_.@:+ -]*")


def found_files(path: str | os.PathLike[str] | None = None) -> tuple[list[ConfigFile], int]:
    """The config files to read: `path` alone, else every usual place that exists (nearest first); and
    how many places were looked in. A usual place that cannot be parsed is skipped (`path` raises)."""
    if path is not None:
        return [read_config(path)], 1
    places = config_locations()
    files = []
    for place, fmt in places:
        if place.is_file():
            try:
                files.append(read_config(place, fmt))
            except ConfigError:
                continue  # someone else's broken file must not stop the others (servers(path) says why)
    return files, len(places)


def lookup(target: Any, config: str | os.PathLike[str] | None = None) -> ServerConfig | None:
    """The configured server `target` names, or None when `target` is not such a name (a command line).

    Raises:
        ConfigError: `config=` is given and names no such server, or the name is in several files.
    """
    if not isinstance(target, str) or not _NAME.fullmatch(target) or "://" in target:
        if config is not None:
            raise ConfigError("config= takes a server's name from that file: pass the name as the target")
        return None
    files, _ = found_files(config)
    matches = [s for f in files for s in f.servers if s.name == target]
    if config is not None and not matches:
        names = ", ".join(sorted({s.name for f in files for s in f.servers})) or "none"
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
    from ..widgets import InputsCard

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
    """What `Server` takes for a configured server: (target, {name, env, headers, transport}).

    `env=` / `headers=` given to connect are laid over the config's.

    Raises:
        ConfigError: A variable is unset, or an input has no value yet (connect asks for them first).
    """
    with _LOCK:
        given = {i.id: _INPUTS[(entry.source, i.id)] for i in entry.inputs if (entry.source, i.id) in _INPUTS}
    resolved = entry.resolve(inputs=given)
    options: dict[str, Any] = {"name": name or entry.name}
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
