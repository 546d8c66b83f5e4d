"""The benchmark's echo server written with FastMCP, from the official MCP Python SDK.

``python fastmcp_echo.py`` serves stdio; ``python fastmcp_echo.py --http PORT`` serves Streamable
HTTP at ``http://127.0.0.1:PORT/mcp``. Logging is at ``WARNING``, so nothing is logged per
request. Over HTTP the sessions stay stateful (the benchmark's client expects an
``Mcp-Session-Id``), and replies are plain JSON rather than an SSE stream per request, as
mcpweft's HTTP servers send them: ``--sse`` switches back to FastMCP's default of SSE.
"""

from __future__ import annotations

import argparse

from mcp.server.fastmcp import FastMCP


def build(port: int, json_response: bool) -> FastMCP:
    """Builds the server with its one tool, listening on 127.0.0.1:``port`` when served over HTTP."""
    mcp = FastMCP("fastmcp-echo", host="127.0.0.1", port=port, log_level="WARNING", json_response=json_response)

    @mcp.tool()
    def echo(text: str) -> str:
        """Returns the given text unchanged."""
        return text

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT")
    parser.add_argument("--sse", action="store_true", help="answer HTTP requests with SSE streams")
    args = parser.parse_args()
    if args.http is None:
        build(0, json_response=True).run()
    else:
        build(args.http, json_response=not args.sse).run(transport="streamable-http")


if __name__ == "__main__":
    main()
