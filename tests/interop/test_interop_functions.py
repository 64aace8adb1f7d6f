"""`srv.fn` (tools as functions, #31) against fastmcp (tests/interop/fastmcp_server.py, stdio) and the
TypeScript SDK's own server (tests/interop/server.mjs, stdio)."""

from __future__ import annotations

import inspect
import sys
from typing import Any, Literal

import pytest

import mcp_widgets as mw
from tests.interop.nodejs import HERE

pytest.importorskip("fastmcp", reason="fastmcp is not installed (pip install -e '.[test]')")
pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


def test_fastmcp_tools_as_functions() -> None:
    srv = mw.connect_sync([sys.executable, str(HERE / "fastmcp_server.py"), "stdio"], timeout=60)
    try:
        forecast = srv.fn.forecast
        sig = inspect.signature(forecast)
        assert str(sig.parameters["city"]) == "city: str"
        assert sig.parameters["days"].default == 3 and sig.parameters["days"].annotation is int
        assert sig.parameters["units"].annotation == Literal["c", "f"]
        assert sig.return_annotation == dict[str, Any]
        assert "Made-up weather" in forecast.__doc__ and "How many days" in forecast.__doc__
        assert forecast.sync("Oslo", days=2) == {"city": "Oslo", "temperatures": [20, 21], "units": "c"}
        with pytest.raises(ValueError, match=r"forecast\(\): argument 'days': must be at most 7"):
            forecast.sync("Oslo", days=8)
        # a name that is not an identifier, and fastmcp's wrapped int result
        assert "add_numbers" in dir(srv.fn)
        assert srv.fn["add-numbers"].sync(2, b=3) == 5
        assert inspect.signature(srv.fn.add_numbers).return_annotation is int
        with pytest.raises(TypeError, match=r"add_numbers\(\): argument 'a': must be a whole number"):
            srv.fn.add_numbers.sync("two")
    finally:
        srv.close()
