"""A small calculator MCP server: tools, a resource, a template, a prompt and completions.

Mirrors ``core/examples/calculator_server.rs``. Run it over stdio under any MCP client, or
serve Streamable HTTP with ``python calculator.py --http 8080``.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from typing import TypedDict

from mcpweft import Context, ResourceNotFound, Server

CONSTANTS = {"pi": math.pi, "e": math.e}

server = Server(
    "calculator",
    version="0.1.0",
    instructions="A calculator: use add and divide for arithmetic, count to see progress.",
)


class Sum(TypedDict):
    sum: float


class Quotient(TypedDict):
    quotient: float


@server.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


@server.tool()
def divide(a: float, b: float) -> Quotient:
    """Divides a by b."""
    if b == 0:
        raise ValueError("division by zero")
    return {"quotient": a / b}


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Counts to n, reporting progress and logging each step.

    Args:
        n: The number to count to.
    """
    for i in range(1, n + 1):
        await asyncio.sleep(0.01)
        ctx.info(f"step {i} of {n}", logger="calculator")
        ctx.report_progress(i, n)
    return f"counted to {n}"


@server.resource("calc://constants", name="constants", description="Known constants.", mime_type="application/json")
def constants() -> str:
    return json.dumps(CONSTANTS)


@server.resource("calc://constants/{name}", name="constant")
def constant(name: str) -> str:
    if name not in CONSTANTS:
        raise ResourceNotFound(f"Resource not found: calc://constants/{name}")
    return str(CONSTANTS[name])


@server.prompt()
def explain(expression: str) -> str:
    """Asks the model to explain a calculation.

    Args:
        expression: What to compute.
    """
    return f"Explain step by step how to compute {expression}."


@server.completion()
def complete(ref: dict[str, str], argument: str, value: str) -> list[str]:
    return [name for name in CONSTANTS if name.startswith(value)]


if __name__ == "__main__":
    if "--http" in sys.argv:
        index = sys.argv.index("--http")
        port = int(sys.argv[index + 1]) if len(sys.argv) > index + 1 else 8080
        server.run(transport="http", port=port)
    else:
        server.run()
