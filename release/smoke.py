"""Serves the official MCP Python SDK's client from an installed mcpweft wheel.

Run with the Python that has mcpweft and the official ``mcp`` package installed:

    python release/smoke.py

It starts ``python/examples/calculator.py`` over stdio with the same interpreter, initializes,
lists the tools, calls ``add`` and prints one summary line. Any failure is an exception and a
non-zero exit. The release workflow runs it on every operating system a wheel is built for.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

CALCULATOR = Path(__file__).resolve().parent.parent / "python" / "examples" / "calculator.py"


async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(CALCULATOR)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await asyncio.wait_for(session.initialize(), 30)
        tools = [tool.name for tool in (await session.list_tools()).tools]
        assert tools == ["add", "divide", "count"], tools
        result = await session.call_tool("add", {"a": 2, "b": 3})
        assert result.structured_content == {"sum": 5}, result
        import mcpweft

        print(
            f"smoke (python): mcpweft from {Path(mcpweft.__file__).parent}, "
            f"{init.server_info.name} {init.protocol_version}, tools {json.dumps(tools)}, add(2, 3) = 5"
        )


asyncio.run(main())
