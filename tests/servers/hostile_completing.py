"""A raw JSON-RPC MCP server over stdio (2025-11-25) whose completions quote what they were sent, every way.

Prompt `login` (user, pin, note) and a tool `hello`. On each `completion/complete` it logs the request's
context and value at error level, prints them on stdout as a bare line (not JSON-RPC), sends a malformed
log notification quoting them, and answers with the value in an extra result field, twice (the second a
reply nobody waits for). A value starting with:

- "ask": first asks a question (`elicitation/create`) whose message quotes the value, and awaits its answer;
- "list": first lists a tool named after the value (`greet_<value>`) and says its tool list changed;
- "str": answers with `values` as a string quoting the value (a malformed answer);
- "quiet": does none of the above: its values are the names of the context's arguments.

`python hostile_completing.py` runs it.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

_write = threading.Lock()
_replies: dict[str, dict[str, Any]] = {}
_arrived = threading.Condition()
_tools: list[dict[str, Any]] = [{"name": "hello", "inputSchema": {"type": "object"}}]
ARGUMENTS = [{"name": "user"}, {"name": "pin"}, {"name": "note"}]
PROMPTS = [{"name": "login", "description": "Sign in.", "arguments": ARGUMENTS}]


def send(message: dict[str, Any] | str) -> None:
    line = message if isinstance(message, str) else json.dumps({"jsonrpc": "2.0", **message})
    with _write:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def ask(value: str) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    send(
        {
            "id": "q1",
            "method": "elicitation/create",
            "params": {"message": f"Did you mean {value}?", "requestedSchema": schema},
        }
    )
    end = time.monotonic() + 10
    with _arrived:
        while '"q1"' not in _replies and time.monotonic() < end:
            _arrived.wait(0.05)
        _replies.pop('"q1"', None)


def complete(rid: Any, params: dict[str, Any]) -> None:
    value = str((params.get("argument") or {}).get("value", ""))
    context = (params.get("context") or {}).get("arguments") or {}
    said = f"context={json.dumps(context)} value={value}"
    if value.startswith("quiet"):  # the context's names (never its values) as the values
        send({"id": rid, "result": {"completion": {"values": sorted(context)}}})
        return
    if value.startswith("ask"):
        ask(value)
    if value.startswith("list"):
        _tools.append({"name": f"greet_{value}", "inputSchema": {"type": "object"}})
        send({"method": "notifications/tools/list_changed"})
    send({"method": "notifications/message", "params": {"level": "error", "data": said}})
    send(f"debug: {said}")  # a bare print: not JSON-RPC
    send({"method": "notifications/message", "params": {"level": "loud", "data": said}})  # invalid level
    values: Any = said if value.startswith("str") else ["one", "two"]
    result = {"completion": {"values": values, "total": 2}, "echo": said}
    send({"id": rid, "result": result})
    send({"id": rid, "result": result})  # a duplicate reply


def handle(message: dict[str, Any]) -> None:
    method, rid = message.get("method"), message.get("id")
    if method is None:  # a reply to our question
        with _arrived:
            _replies[json.dumps(rid)] = message
            _arrived.notify_all()
        return
    if rid is None:
        return
    params = message.get("params") or {}
    if method == "initialize":
        caps = {"tools": {"listChanged": True}, "prompts": {}, "completions": {}, "logging": {}}
        info = {"name": "hostile-completing", "version": "0"}
        result = {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info}
        send({"id": rid, "result": result})
    elif method == "tools/list":
        send({"id": rid, "result": {"tools": list(_tools)}})
    elif method == "prompts/list":
        send({"id": rid, "result": {"prompts": PROMPTS}})
    elif method in ("resources/list", "resources/templates/list"):
        key = "resources" if method == "resources/list" else "resourceTemplates"
        send({"id": rid, "result": {key: []}})
    elif method == "prompts/get":
        send(
            {
                "id": rid,
                "result": {"messages": [{"role": "user", "content": {"type": "text", "text": "signed in"}}]},
            }
        )
    elif method == "completion/complete":
        threading.Thread(target=complete, args=(rid, params), daemon=True).start()
    elif method in ("ping", "logging/setLevel"):
        send({"id": rid, "result": {}})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"no {method}"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
