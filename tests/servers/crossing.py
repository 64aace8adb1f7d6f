"""A raw JSON-RPC server over stdio (2025-11-25) whose long completion answers cross the client's cancel.

Prompt `trip` (argument `city`) completes: a value starting with "huge" is answered only once the client has
given the request up (its `notifications/cancelled` arrived), with `HUGE` values, as an answer already on its
way when the cancel is sent (the SDK's servers answer no cancelled request); a value starting with "long" is
answered at once with `HUGE` values; any other value at once with three. Its lines are written in the Python
SDK's member order (`jsonrpc`, `id`, `result`), or with `--ts` in the TypeScript SDK's (`result`, `jsonrpc`,
`id`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

HUGE = int(os.environ.get("CROSSING_HUGE", "200000"))
TS = "--ts" in sys.argv
LISTS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
_waiting: dict[Any, str] = {}
"""Requests answered once cancelled: id -> the value typed."""


def send(rid: Any, result: dict[str, Any]) -> None:
    if TS:
        body = {"result": result, "jsonrpc": "2.0", "id": rid}
    else:
        body = {"jsonrpc": "2.0", "id": rid, "result": result}
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def values(value: str, n: int) -> dict[str, Any]:
    return {"completion": {"values": [f"{value} {i:06d}" for i in range(n)], "total": n, "hasMore": False}}


def handle(message: dict[str, Any]) -> None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "notifications/cancelled" and params.get("requestId") in _waiting:
        request = params["requestId"]
        send(request, values(_waiting.pop(request), HUGE))
        return
    if rid is None:
        return
    if method == "initialize":
        caps = {"prompts": {}, "completions": {}}
        info = {"name": "crossing", "version": "0"}
        send(rid, {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info})
    elif method == "prompts/list":
        send(rid, {"prompts": [{"name": "trip", "arguments": [{"name": "city", "required": True}]}]})
    elif method in LISTS:
        send(rid, {LISTS[method]: []})
    elif method == "completion/complete":
        value = str((params.get("argument") or {}).get("value", ""))
        if value.startswith("huge"):
            _waiting[rid] = value
        else:
            send(rid, values(value, HUGE if value.startswith("long") else 3))
    else:
        send(rid, {})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
