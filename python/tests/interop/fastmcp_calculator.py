"""The calculator of ``examples/calculator.py``, written with the official MCP Python SDK.

Written against mcp 2.x (pinned in requirements-dev.txt), where FastMCP was renamed
``mcp.server.mcpserver.MCPServer`` (``mcp.server.fastmcp`` only raises there) and host and port
are arguments of ``run``. The interop tests run it under mcpweft's Python client.

Usage: ``fastmcp_calculator.py`` serves stdio; ``fastmcp_calculator.py --http PORT`` serves
Streamable HTTP at ``http://127.0.0.1:PORT/mcp``.
"""

from __future__ import annotations

import json
import math
import sys
from typing import TypedDict

from mcp.server.mcpserver import Context
from mcp.server.mcpserver import MCPServer as FastMCP
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

CONSTANTS = {"pi": math.pi, "e": math.e}
INSTRUCTIONS = "A calculator: use add and divide for arithmetic, count to see progress."

mcp: FastMCP = FastMCP("fastmcp-calculator", instructions=INSTRUCTIONS)


class Sum(TypedDict):
    sum: float


class Quotient(TypedDict):
    quotient: float


@mcp.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


@mcp.tool()
def divide(a: float, b: float) -> Quotient:
    """Divides a by b."""
    if b == 0:
        raise ToolError("division by zero")
    return {"quotient": a / b}


@mcp.tool()
async def count(n: int, ctx: Context) -> str:
    """Counts to n, reporting progress and logging each step."""
    for i in range(1, n + 1):
        await ctx.info(f"step {i} of {n}", logger_name="calculator")
        await ctx.report_progress(i, n)
    return f"counted to {n}"


@mcp.resource("calc://constants", name="constants", description="Known constants.", mime_type="application/json")
def constants() -> str:
    return json.dumps(CONSTANTS)


@mcp.resource("calc://constants/{name}", name="constant", mime_type="text/plain")
def constant(name: str) -> str:
    if name not in CONSTANTS:
        raise ResourceError(f"unknown constant {name}")
    return str(CONSTANTS[name])


@mcp.prompt()
def explain(expression: str) -> str:
    """Asks the model to explain a calculation."""
    return f"Explain step by step how to compute {expression}."


def main(argv: list[str]) -> None:
    if argv[:1] == ["--http"] and len(argv) == 2:
        port = int(argv[1])
        mcp.run("streamable-http", host="127.0.0.1", port=port, streamable_http_path="/mcp")
    elif not argv:
        mcp.run()
    else:
        sys.exit("usage: fastmcp_calculator.py [--http PORT]")


if __name__ == "__main__":
    main(sys.argv[1:])
