"""A raw JSON-RPC 2025-11-25 server over stdio whose task-required tool reports any `pollInterval` at all.

Tool `slow` (`execution.taskSupport: "required"`) takes `{"poll": "<JSON text>", "polls": n}`: the task is
created and every `tasks/get` answered with `status: "working"` and `pollInterval` set to that JSON text as
sent (`"NaN"`, `"-1000"`, `"\\"500\\""`, `"1e400"`; absent when `poll` is not given). After `polls`
`tasks/get` (never, when not given) the task completes, and `tasks/result` answers a text holding the
seconds between the `tasks/get` it saw, as JSON. Tool `seen` (plain) answers how many `tasks/get` arrived.
`tasks/cancel` cancels a task. Nothing here is the SDK's: the answers are what a hostile server may send.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from typing import Any

_write = threading.Lock()
_tasks: dict[str, dict[str, Any]] = {}
_gets = 0

TOOLS = [
    {
        "name": "slow",
        "description": "A task that keeps working.",
        "inputSchema": {
            "type": "object",
            "properties": {"poll": {"type": "string"}, "polls": {"type": "integer"}},
        },
        "execution": {"taskSupport": "required"},
    },
    {"name": "seen", "description": "How many tasks/get arrived.", "inputSchema": {"type": "object"}},
]
STAMP = "2026-01-01T00:00:00Z"


def send(message: dict[str, Any]) -> None:
    line = json.dumps({"jsonrpc": "2.0", **message})  # NaN and Infinity written as such (allow_nan)
    with _write:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def task_of(task_id: str) -> dict[str, Any]:
    task = _tasks[task_id]
    done = task["polls"] is not None and len(task["times"]) >= task["polls"]
    status = "cancelled" if task["cancelled"] else "completed" if done else "working"
    body: dict[str, Any] = {
        "taskId": task_id,
        "status": status,
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttl": 60_000,
    }
    if task["poll"] is not None:
        body["pollInterval"] = json.loads(task["poll"])
    return body


def handle(message: dict[str, Any]) -> None:
    global _gets
    method, rid = message.get("method"), message.get("id")
    if method is None or rid is None:
        return
    params = message.get("params") or {}
    if method == "initialize":
        caps = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}, "cancel": {}}}
        info = {"name": "rawtasks", "version": "0"}
        result = {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info}
        send({"id": rid, "result": result})
    elif method == "tools/list":
        send({"id": rid, "result": {"tools": TOOLS}})
    elif method == "ping":
        send({"id": rid, "result": {}})
    elif method == "tools/call" and params.get("name") == "seen":
        send({"id": rid, "result": {"content": [{"type": "text", "text": str(_gets)}]}})
    elif method == "tools/call":
        args = params.get("arguments") or {}
        task_id = f"t{len(_tasks) + 1}"
        _tasks[task_id] = {
            "poll": args.get("poll"),
            "polls": args.get("polls"),
            "times": [],
            "cancelled": False,
        }
        send({"id": rid, "result": {"task": task_of(task_id)}})
    elif method == "tasks/get":
        _gets += 1
        task = _tasks[params["taskId"]]
        task["times"].append(time.monotonic())
        send({"id": rid, "result": task_of(params["taskId"])})
    elif method == "tasks/result":
        times = _tasks[params["taskId"]]["times"]
        gaps = [round(b - a, 4) for a, b in itertools.pairwise(times)]
        send({"id": rid, "result": {"content": [{"type": "text", "text": json.dumps(gaps)}]}})
    elif method == "tasks/cancel":
        _tasks[params["taskId"]]["cancelled"] = True
        send({"id": rid, "result": task_of(params["taskId"])})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"no {method}"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
