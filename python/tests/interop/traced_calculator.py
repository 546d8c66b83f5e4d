"""A server written with the official MCP Python SDK 2.x, which traces every message it receives
with OpenTelemetry, over stdio: its spans go, one JSON object per line, to the file named by its
first argument."""

from __future__ import annotations

import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor


def main(path: str) -> None:
    out = open(path, "w", buffering=1)  # noqa: SIM115 - open until the process exits
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(ConsoleSpanExporter(out=out, formatter=lambda span: span.to_json(indent=None) + "\n"))
    )
    trace.set_tracer_provider(provider)

    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("traced-calculator")

    @mcp.tool()
    def add(a: float, b: float) -> float:
        """Adds two numbers."""
        return a + b

    mcp.run()


if __name__ == "__main__":
    main(sys.argv[1])
