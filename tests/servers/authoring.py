"""A server written the way issue #22 tells authors to: `Resolve` / `Elicit` with a model, and `confirm`.

`python authoring.py` serves it over stdio; `build_server()` makes it in-process. `every_kind` asks for a
model with every field kind the spec allows and returns what the tool received: each value's Python type and
its JSON form. `delete` is gated by `mw.authoring.confirm`.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ElicitationResult, Resolve
from pydantic import AnyUrl, BaseModel, EmailStr, Field, WithJsonSchema

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: this checkout's package

from mcp_widgets.authoring import confirm

LEVELS = {
    "type": "string",
    "title": "Level",
    "oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}],
}


class EveryKind(BaseModel):
    """Every field kind the spec has a shape for."""

    name: str = Field(
        title="Name", description="3 to 20 letters", min_length=3, max_length=20, pattern="^[a-z]+$"
    )
    email: EmailStr = Field(title="Email")  # needs email-validator: the test extra has it (through fastmcp)
    homepage: AnyUrl | None = Field(default=None, title="Homepage")
    birthday: dt.date = Field(title="Birthday")
    meeting: dt.datetime = Field(title="Meeting")
    seats: int = Field(default=1, ge=1, le=10, title="Seats")
    budget: float = Field(default=2.5, ge=0, le=100)
    newsletter: bool = False
    size: Literal["s", "m", "l"] = "m"
    # Titled choices: pydantic renders a Literal as a plain enum, so the titled shape is given as it is.
    level: Annotated[Literal["lo", "hi"], WithJsonSchema(LEVELS)] = "lo"
    toppings: list[Literal["nuts", "wafer", "cherries"]] = Field(default_factory=list, max_length=2)
    note: str | None = None


def received(value: BaseModel) -> dict[str, Any]:
    """What the tool got: each field's type name, and the instance as JSON."""
    return {
        "types": {name: type(getattr(value, name)).__name__ for name in type(value).model_fields},
        "values": value.model_dump(mode="json"),
    }


async def ask_every_kind() -> Elicit[EveryKind]:
    return Elicit("Tell us about you", EveryKind)


def build_server(name: str = "authoring") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.tool()
    async def every_kind(
        answer: Annotated[ElicitationResult[EveryKind], Resolve(ask_every_kind)],
    ) -> dict[str, Any]:
        if answer.action != "accept":
            return {"action": answer.action}
        return {"action": "accept", **received(answer.data)}

    @server.tool()
    async def delete(path: str, ok: Annotated[bool, Resolve(confirm("Delete {path}?"))]) -> dict[str, Any]:
        return {"path": path, "deleted": ok}

    return server


if __name__ == "__main__":
    build_server().run("stdio")
