"""Redacting a long typed value: another server's worst delay while a prompt form's Run sends a pasted note
of 50,000 characters (its server logs it and quotes it in its result, so the call's log line, the wire and
the log guard search for it), then three short Runs, against the same with a 10-character value, same run.

Two in-process servers share the client thread (as every server of a notebook does): the other one is
called (its `echo` tool, through the SDK's client) without pause meanwhile, and its slowest call is a
round's figure; the row prints the median of the rounds (long and short alternating). Each value's matcher
is built once (`core.redaction.Matcher`), a long one by its pieces, linear in the value (a per-character
pattern of 10,000 characters took 4-7 s to build, and 20,000 stalled every server 8-10 s, each later Run
too).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import string
import time
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from ._report import Row, not_measured

GROUP = "privacy"
TARGET_MS = 50.0
"""The long value may add at most this to the other server's worst delay."""


def _noting() -> Any:
    server: MCPServer[Any] = MCPServer("noting")

    @server.prompt(name="note", description="Keep a note.")
    async def note(text: str, ctx: Context) -> str:
        await ctx.info(f"noting {text}")
        return f"noted: {text}"

    return server


def _other() -> Any:
    server: MCPServer[Any] = MCPServer("other")

    @server.tool(name="echo", description="Says it back.")
    def echo(text: str) -> str:
        return text

    return server


def _note(size: int, seed: int) -> str:
    """A pasted note: words of random letters (nothing repeats, as in a person's text)."""
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < size:
        words.append("".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(2, 9))))
        length += len(words[-1]) + 1
    return " ".join(words)[:size]


def worst_delay(size: int, seed: int) -> float:
    """The other server's slowest call (ms) while a prompt form runs with a `size`-character note, then
    with three short ones."""
    import ipywidgets as w

    from mcp_widgets.client import connect_sync
    from mcp_widgets.client.runtime import RUNTIME

    worst = 0.0
    stop = False

    async def pinging(client: Any) -> None:
        nonlocal worst
        while not stop:
            start = time.perf_counter()
            await client.call_tool("echo", {"text": "hi"})
            worst = max(worst, time.perf_counter() - start)
            await asyncio.sleep(0.002)

    values = [_note(size, seed), *(f"short-{seed}-{n}" for n in range(3))]

    async def runs(srv: Any) -> None:
        for value in values:
            form = srv.prompt_form("note")
            form.fill(text=value)
            form.run()
            await form.wait()
            form.close()

    output = w.Output()  # the call's log lines go there, not to this terminal
    with (
        connect_sync(_noting(), name=f"noting-{seed}", log_level="info", output=output) as srv,
        connect_sync(_other(), name=f"other-{seed}") as other,
    ):
        client = other._connection.client
        beating = RUNTIME.submit(pinging(client))
        time.sleep(0.1)
        asyncio.run(runs(srv))
        srv.wire._capture.flush()  # what was noted kept now (the wire's work, counted)
        stop = True
        beating.result(timeout=30)
        kept = srv.wire.text()
    if values[0][:40] in kept:  # the figure is of a redaction that happened
        raise RuntimeError("the note was not redacted on the wire")
    return worst * 1e3


def run(quick: bool) -> list[Row]:
    name = "another server's worst delay while a 50,000-character note is redacted (then 3 short Runs)"
    try:
        rounds = 2 if quick else 5
        longs, shorts = [], []
        for i in range(rounds):  # alternating, so the machine's load falls on both alike
            longs.append(worst_delay(50_000, 2 * i))
            shorts.append(worst_delay(10, 2 * i + 1))
        long, short = statistics.median(longs), statistics.median(shorts)
    except Exception as exc:
        return not_measured(GROUP, [name], exc)
    return [
        Row(
            GROUP,
            name,
            long,
            baseline=short,
            baseline_name="a 10-character value",
            target=f"≤ +{TARGET_MS:g} ms",
            ok=long - short <= TARGET_MS,
            note=(
                f"in process, a prompt form's Run; the median of {rounds} rounds' worst delays each (worst "
                f"{max(longs):.0f} and {max(shorts):.0f} ms; was 21-32 s)"
            ),
        )
    ]
