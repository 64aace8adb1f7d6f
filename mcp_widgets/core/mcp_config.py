"""The MCP servers people already configured elsewhere: `mcp.json` files, parsed and substituted (pure).

Imports only the standard library. Four formats, told apart by where the file is and what it holds:

- Claude Desktop, `claude_desktop_config.json`: `{"mcpServers": {name: {command, args, env}}}`;
- Claude Code, `.mcp.json` (project) and `~/.claude.json` (user): `mcpServers`, each with `type` ("stdio",
  "http", "sse"), `command` / `args` / `env` or `url` / `headers`; `${NAME}` and `${NAME:-default}`;
- Cursor, `~/.cursor/mcp.json` and `.cursor/mcp.json`: `mcpServers` as above, plus `${env:NAME}`,
  `${userHome}`, `${workspaceFolder}`;
- VS Code, `.vscode/mcp.json` and the user profile's `mcp.json`: `servers` (and `inputs`), each with `type`,
  `command` / `args` / `env` / `cwd` or `url` / `headers`; `${input:id}` asks the person (`inputs` says how:
  `promptString`, `password: true` masks it; `pickString` offers `options`). A settings.json's `"mcp"`
  object holds the same two keys.

Every field, in every format: `command`, `args`, `env`, `cwd`, `url`, `type` / `transport`, `headers`,
`disabled`. Substitution (`${env:NAME}`, `${NAME}`, `${NAME:-default}`, `${input:id}`, `${userHome}`,
`${workspaceFolder}`) applies to all string values, and happens only when a server is connected
(`ServerConfig.resolve`): a listing shows the config as written, so no secret is read to list it.

A `ServerConfig` holds what the file says; its repr shows the name, kind, command and file, never `args`,
`env` or `headers`. `secrets_in_clear` names the `env` / `headers` keys and the `args` whose value is written
in clear (no `${...}`) and looks like a secret, so that the table can say so.

Every connect by name reads every usual place, and a file there may be anyone's: reading is bounded
(`jsonc`; `MAX_CONFIG_BYTES`, `MAX_SERVERS`, too deep a nesting: each a `ConfigError`).

One concept: a configured server as the files say it, from finding the files to the `ServerConfig` a connect
resolves; the four formats share every step, so they stay together.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import jsonc
from .exceptions import MCPWidgetsError

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_SERVERS",
    "PLAIN_NAME",
    "ConfigError",
    "ConfigFile",
    "ConfigInput",
    "ServerConfig",
    "config_locations",
    "parse_config",
    "read_config",
]

Format = Literal["claude-desktop", "claude-code", "cursor", "vscode", "mcp.json"]
Kind = Literal["stdio", "http", "sse"]

MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""A bigger config file is not read (a ConfigError): ~/.claude.json, which also keeps Claude Code's
per-project state, is the biggest one usually found (a few MB)."""
MAX_SERVERS = 10_000
"""A config file with more servers than this is not read (a ConfigError): no one configures that many."""

PLAIN_NAME = re.compile(r"[A-Za-z0-9_.@:+-][A-Za-z0-9_.@:+ -]*")
"""A server name `connect(name)` looks up without `config=` (any other target is a command line)."""

_LABELS: dict[str, str] = {
    "claude-desktop": "Claude Desktop",
    "claude-code": "Claude Code",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "mcp.json": "mcp.json",
}


class ConfigError(MCPWidgetsError, ValueError):
    """A config file cannot be read, names no such server, or a server's config cannot be used as it is
    (an unset variable, an unknown input). The message names files, servers and variables, never values."""


@dataclass(frozen=True)
class ConfigInput:
    """A VS Code `inputs` entry: a value asked of the person when a server that uses it is connected."""

    id: str
    description: str = ""
    password: bool = False
    default: str = ""
    options: tuple[str, ...] = ()
    """For a `pickString`: the choices."""


@dataclass(frozen=True)
class ServerConfig:
    """One server of a config file, as written (nothing substituted yet; see `resolve`)."""

    name: str
    kind: Kind
    """How it is reached: "stdio" (a command), "http" (streamable HTTP) or "sse" (the older HTTP+SSE)."""
    source: str
    """The file it was found in."""
    format: Format
    command: str = ""
    args: tuple[str, ...] = field(default=(), repr=False)  # an option's value may be a secret
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str = field(default="", repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    disabled: bool = False
    inputs: tuple[ConfigInput, ...] = field(default=(), repr=False)
    """The `inputs` this server's values use (`${input:id}`), in order of first use."""
    secrets_in_clear: tuple[str, ...] = ()
    """`env` / `headers` keys ("env API_KEY", "header Authorization") and `args` ("args --api-key", "args #3")
    whose value is written in the file in clear and looks like a secret."""
    workspace: str | None = field(default=None, repr=False)
    """`${workspaceFolder}`: the folder a project config belongs to (None for a user config)."""

    @property
    def where(self) -> str:
        """Who reads this file and where it is: "VS Code: /home/ada/proj/.vscode/mcp.json"."""
        return f"{_LABELS[self.format]}: {self.source}"

    def resolve(
        self,
        *,
        environ: Mapping[str, str] | None = None,
        inputs: Mapping[str, str] | None = None,
        home: str | None = None,
    ) -> ResolvedServer:
        """The config with every `${...}` substituted.

        Raises:
            ConfigError: A variable is unset (and has no `:-default`), an input has no value, or a
                `${...}` is unknown. The message names it and the server, never a value.
        """
        env_vars = os.environ if environ is None else environ
        home = home if home is not None else str(Path.home())
        sub = _Substitution(self, env_vars, inputs or {}, home)
        return ResolvedServer(
            config=self,
            command=sub(self.command, "command"),
            args=tuple(sub(a, "args") for a in self.args),
            env={k: sub(v, f"env {k}") for k, v in self.env.items()},
            cwd=sub(self.cwd, "cwd") if self.cwd else None,
            url=sub(self.url, "url"),
            headers={k: sub(v, f"headers {k}") for k, v in self.headers.items()},
            substituted=tuple(sub.secret),
        )


@dataclass(frozen=True)
class ResolvedServer:
    """A `ServerConfig` with its values substituted: what connecting uses. Secrets only in `env`,
    `headers` and (rarely) `url` or `args`, none of which is in the repr."""

    config: ServerConfig
    command: str = field(repr=False)
    args: tuple[str, ...] = field(repr=False)
    env: dict[str, str] = field(repr=False)
    cwd: str | None = field(repr=False)
    url: str = field(repr=False)
    headers: dict[str, str] = field(repr=False)
    substituted: tuple[str, ...] = field(default=(), repr=False)
    """The values `${env:NAME}`, `${NAME}` and `${input:id}` gave: never to be shown (an error quoting a
    `cwd` or `command` redacts them). `${userHome}` and `${workspaceFolder}` are no secret and not here."""


@dataclass(frozen=True)
class ConfigFile:
    """A config file read: its servers (in the file's order) and its `inputs`."""

    path: str
    format: Format
    servers: tuple[ServerConfig, ...]
    inputs: tuple[ConfigInput, ...] = ()
    names: tuple[str, ...] = ()
    """Every server name in the file (also when only one server was parsed: `read_config(only=)`)."""


# --------------------------------------------------------------------------------------------------
# Where configs live


def config_locations(
    *,
    home: str | Path | None = None,
    cwd: str | Path | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[tuple[Path, Format]]:
    """The usual places, nearest first: project configs in `cwd` and its parents, then the user's.

    Returns every candidate (existing or not) with the format it is read as.
    """
    home_path = Path(home) if home is not None else Path.home()
    here = Path(cwd) if cwd is not None else Path.cwd()
    plat = platform or sys.platform
    env = os.environ if environ is None else environ
    found: list[tuple[Path, Format]] = []
    for folder in (here, *here.parents):
        found += [
            (folder / ".mcp.json", "claude-code"),
            (folder / ".vscode" / "mcp.json", "vscode"),
            (folder / ".cursor" / "mcp.json", "cursor"),
        ]
        if folder == home_path:
            break
    if plat == "darwin":
        support = home_path / "Library" / "Application Support"
    elif plat.startswith("win"):
        support = Path(env.get("APPDATA") or home_path / "AppData" / "Roaming")
    else:
        support = Path(env.get("XDG_CONFIG_HOME") or home_path / ".config")
    found += [
        (support / "Claude" / "claude_desktop_config.json", "claude-desktop"),
        (home_path / ".claude.json", "claude-code"),
        (home_path / ".cursor" / "mcp.json", "cursor"),
        (support / "Code" / "User" / "mcp.json", "vscode"),
    ]
    unique: dict[Path, Format] = {}
    for path, fmt in found:
        unique.setdefault(path, fmt)
    return list(unique.items())


def guess_format(path: Path, data: Any = None) -> Format:
    """The format of a file from its name and folder (and, for any other file, its keys)."""
    name, parent = path.name, path.parent.name
    if name == "claude_desktop_config.json":
        return "claude-desktop"
    if name in (".mcp.json", ".claude.json"):
        return "claude-code"
    if parent == ".cursor":
        return "cursor"
    if parent in (".vscode", "User") or (isinstance(data, Mapping) and "servers" in data):
        return "vscode"
    return "mcp.json"


def read_config(
    path: str | os.PathLike[str], fmt: Format | None = None, *, only: str | None = None
) -> ConfigFile:
    """Read and parse one config file (with `only`, parse only the servers of that name).

    Raises:
        ConfigError: The file cannot be read, is not a regular file, is too big, or is not a config (the
            message names the file, never a line of it).
    """
    p = Path(path).expanduser()
    try:
        text = jsonc.read_text(p, MAX_CONFIG_BYTES)
    except jsonc.Unreadable as exc:
        raise ConfigError(f"{p} {exc}") from None
    try:
        data = jsonc.loads(text) if text.strip() else {}
        return parse_config(data, str(p), fmt or guess_format(p, data), only=only)
    except RecursionError:
        raise ConfigError(f"{p} is nested too deeply to be a config") from None
    except ValueError as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"{p} is not valid JSON: {jsonc.position(exc)}") from None


# --------------------------------------------------------------------------------------------------
# Parsing


def parse_config(data: Any, source: str, fmt: Format, *, only: str | None = None) -> ConfigFile:
    """A config's servers from its JSON (with `only`, only the servers of that name; `names` has all).

    Raises:
        ConfigError: `data` is not an object, its servers map is not one, or it has over `MAX_SERVERS`.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: a config is a JSON object")
    if isinstance(data.get("mcp"), Mapping) and "servers" not in data:  # VS Code settings.json
        data = data["mcp"]
    raw = data.get("servers") if "servers" in data else data.get("mcpServers", {})
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: {'servers' if 'servers' in data else 'mcpServers'} is not an object")
    if len(raw) > MAX_SERVERS:
        raise ConfigError(
            f"{source} configures {len(raw):,} servers: a file with over {MAX_SERVERS:,} is not read"
        )
    inputs = tuple(_inputs(data.get("inputs")))
    by_id = {i.id: i for i in inputs}
    workspace = _workspace(Path(source), fmt)
    servers = []
    names = tuple(str(name) for name, entry in raw.items() if isinstance(entry, Mapping))
    for name, entry in raw.items():
        if isinstance(entry, Mapping) and (only is None or str(name) == only):
            servers.append(_server(str(name), entry, source, fmt, by_id, workspace))
    return ConfigFile(path=source, format=fmt, servers=tuple(servers), inputs=inputs, names=names)


def _workspace(path: Path, fmt: Format) -> str | None:
    if path.parent.name in (".vscode", ".cursor"):
        return str(path.parent.parent)
    if path.name == ".mcp.json":
        return str(path.parent)
    return None


def _inputs(raw: Any) -> Iterable[ConfigInput]:
    if not isinstance(raw, list):
        return
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
            continue
        options = item.get("options")
        yield ConfigInput(
            id=item["id"],
            description=str(item.get("description") or ""),
            password=item.get("password") is True,
            default=str(item.get("default") or ""),
            options=tuple(str(o) for o in options) if isinstance(options, list) else (),
        )


_KINDS: dict[str, Kind] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value if v is not None)
    return ()


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {
        str(k): ("" if v is None else str(v) if not isinstance(v, bool) else str(v).lower())
        for k, v in value.items()
    }


def _server(
    name: str,
    entry: Mapping[str, Any],
    source: str,
    fmt: Format,
    inputs: Mapping[str, ConfigInput],
    workspace: str | None,
) -> ServerConfig:
    declared = str(entry.get("type") or entry.get("transport") or "").strip().lower()
    url = str(entry.get("url") or entry.get("serverUrl") or "")
    kind: Kind = _KINDS.get(declared.replace(" ", ""), "http" if url else "stdio")
    if kind != "stdio" and not url:
        kind = "stdio"
    if declared == "" and url and url.rstrip("/").endswith("/sse"):
        kind = "sse"  # an untyped URL ending in /sse (Cursor's convention) is the older transport
    env = _string_map(entry.get("env"))
    headers = _string_map(entry.get("headers"))
    cwd = entry.get("cwd")
    values = [entry.get("command"), *_strings(entry.get("args")), *env.values(), cwd, url, *headers.values()]
    used: list[ConfigInput] = []
    for value in values:
        for match in _VARIABLE.finditer(value if isinstance(value, str) else ""):
            key = match.group(1)
            if key.startswith("input:"):
                wanted = inputs.get(key[6:]) or ConfigInput(id=key[6:])
                if wanted not in used:
                    used.append(wanted)
    clear = [f"env {k}" for k, v in env.items() if _looks_secret(k, v)]
    clear += [f"header {k}" for k, v in headers.items() if _looks_secret(k, v)]
    clear += _secret_args(_strings(entry.get("args")))
    return ServerConfig(
        name=name,
        kind=kind,
        source=source,
        format=fmt,
        command=str(entry.get("command") or ""),
        args=_strings(entry.get("args")),
        env=env,
        cwd=str(cwd) if isinstance(cwd, str) and cwd else None,
        url=url,
        headers=headers,
        disabled=entry.get("disabled") is True or entry.get("enabled") is False,
        inputs=tuple(used),
        secrets_in_clear=tuple(clear),
        workspace=workspace,
    )


_SECRET_WORDS = {
    "authorization",
    "auth",
    "bearer",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pass",
    "pwd",
    "key",
    "apikey",
    "credential",
    "credentials",
    "cookie",
    "pat",
    "private",
    "session",
}


def _words(key: str) -> set[str]:
    """`OPENAI_API_KEY`, `x-api-key`, `apiKey` -> their lower-case words."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def _looks_secret(key: str, value: str) -> bool:
    """A value in clear (no `${...}` in it) under a secret-looking key, or one that looks like a token."""
    if not value or _VARIABLE.search(value):
        return False
    if _words(key) & _SECRET_WORDS:
        return True
    return bool(_TOKEN.fullmatch(value))


def _secret_args(args: tuple[str, ...]) -> list[str]:
    """The args written in clear that look like secrets: "args --api-key" for the value of a secret-looking
    option (`--api-key sk-…`, `--token=…`, docker's `-e API_KEY=…`), "args #3" for a token-like word."""
    found: list[str] = []
    value_of: int | None = None  # the index of the secret option's value just reported
    for i, arg in enumerate(args):
        option, _, value = arg.partition("=")
        if i == value_of:
            continue
        if value and _looks_secret(option.lstrip("-"), value):
            found.append(f"args {option}")
        elif arg.startswith("-") and not value and i + 1 < len(args) and _words(arg) & _SECRET_WORDS:
            if not args[i + 1].startswith("-") and _looks_secret(arg, args[i + 1]):
                found.append(f"args {arg}")
                value_of = i + 1
        elif not arg.startswith("-") and _looks_like_token(arg):
            found.append(f"args #{i + 1}")
    return list(dict.fromkeys(found))


def _looks_like_token(word: str) -> bool:
    """A long word of a token's alphabet with digits in it (not a long package or file name)."""
    if _VARIABLE.search(word) or not _TOKEN.fullmatch(word):
        return False
    return sum(c.isdigit() for c in word) >= 4 or word.startswith(("sk-", "ghp_", "github_pat_", "xox"))


_TOKEN = re.compile(r"(Bearer\s+)?[A-Za-z0-9_\-.=+]{32,}")


# --------------------------------------------------------------------------------------------------
# Substitution

_VARIABLE = re.compile(r"\$\{([^}]*)\}")


class _Substitution:
    """`${...}` in one server's values -> their values (raises ConfigError naming what is missing)."""

    def __init__(
        self, config: ServerConfig, environ: Mapping[str, str], inputs: Mapping[str, str], home: str
    ) -> None:
        self.config, self.environ, self.inputs, self.home = config, environ, inputs, home
        self.secret: list[str] = []
        """The values of `${env:...}`, `${NAME}` and `${input:...}` given so far."""

    def __call__(self, text: str, where: str) -> str:
        return _VARIABLE.sub(lambda m: self.kept(m.group(1), where), text)

    def kept(self, key: str, where: str) -> str:
        value = self.value(key, where)
        if value and key not in ("userHome", "workspaceFolder", "workspaceRoot", "pathSeparator", "/"):
            self.secret.append(value)
        return value

    def value(self, key: str, where: str) -> str:
        config = self.config
        about = f"server {config.name!r} in {config.source} ({where})"
        if key.startswith("input:"):
            wanted = key[6:]
            if wanted not in self.inputs:
                raise ConfigError(f"{about} needs the input {wanted!r}, which has no value")
            return self.inputs[wanted]
        if key == "userHome":
            return self.home
        if key in ("workspaceFolder", "workspaceRoot"):
            return config.workspace or str(Path(config.source).parent)
        if key == "pathSeparator" or key == "/":
            return os.sep
        name, default = key, None
        if name.startswith("env:"):
            name = name[4:]
        elif ":-" in name:
            name, default = name.split(":-", 1)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ConfigError(f"{about} uses ${{{key}}}, which mcp-widgets cannot substitute")
        found = self.environ.get(name)
        if found is None or (found == "" and default is not None):
            if default is not None:
                return default
            raise ConfigError(f"{about} uses the environment variable {name}, which is not set")
        return found
