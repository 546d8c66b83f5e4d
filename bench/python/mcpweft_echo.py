"""The benchmark's echo server written with mcpweft's Python package.

``python mcpweft_echo.py`` serves stdio; ``python mcpweft_echo.py --http PORT`` serves Streamable
HTTP at ``http://127.0.0.1:PORT/mcp`` with mcpweft's defaults (stateful sessions, plain JSON
replies when a handler sends nothing before its result). mcpweft logs nothing unless
``MCPWEFT_LOG`` is set.
"""

from __future__ import annotations

import argparse

from mcpweft import Server

server = Server("mcpweft-py-echo", version="1.0.0")


@server.tool()
def echo(text: str) -> str:
    """Returns the given text unchanged."""
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args()
    if args.http is None:
        server.run()
    else:
        server.run(transport="http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
