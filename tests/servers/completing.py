"""A server that completes (`completion/complete`): `python completing.py` runs it over stdio.

Prompt `trip` (city, month, note) and template `weather://{city}/{day}`: `city` completes from 130 city names
(more than the 100 a completion carries: total and hasMore say so), `month` from the twelve months and `day`
from the days that fit the city given as context. A value starting with "slow" is answered after 2 s; one
starting with "boom" fails (an error quoting the value: it must not reach a message).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TEMPLATE = "weather://{city}/{day}"
CITIES = (
    [f"Oslo {n:03d}" for n in range(120)]
    + ["Osaka", "Ottawa", "Paris", "Perth", "Porto"]
    + ["Lima", "Lisbon", "London", "Lyon", "Madrid"]
)
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DAYS = {"Paris": ["monday", "tuesday"], "Lima": ["friday"]}


def _matching(options: list[str], value: str) -> mcp_types.Completion:
    found = [o for o in options if o.lower().startswith(value.lower())]
    return mcp_types.Completion(values=found[:100], total=len(found), has_more=len(found) > 100)


def build_server(name: str = "completing") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.prompt(name="trip", description="Plan a trip.")
    def trip(city: str, month: str = "May", note: str = "") -> str:
        return f"A trip to {city} in {month}. {note}".strip()

    @server.resource(TEMPLATE, name="Weather", description="The weather of a day.")
    def weather(city: str, day: str) -> str:
        return f"weather in {city} on {day}: sunny"

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> mcp_types.Completion | None:
        value = argument.value
        if value.startswith("slow"):
            await asyncio.sleep(2)
        if value.startswith("boom"):
            raise MCPError(code=-32602, message=f"cannot complete {value}")
        given = dict(getattr(context, "arguments", None) or {})
        if argument.name == "city":
            return _matching(CITIES, value)
        if argument.name == "month":
            return _matching(MONTHS, value)
        if argument.name == "day":
            return _matching(DAYS.get(given.get("city", ""), []), value)
        return None

    return server


if __name__ == "__main__":
    build_server().run("stdio")
