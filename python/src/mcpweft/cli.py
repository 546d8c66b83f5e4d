"""The ``mcpweft`` command (also ``python -m mcpweft``): serve, inspect and call MCP servers.

- ``mcpweft run FILE[:OBJECT]`` serves the ``Server`` defined in a Python file over stdio, or
  over Streamable HTTP with ``--transport http``.
- ``mcpweft inspect FILE[:OBJECT]`` prints the server's tools, resources, resource templates and
  prompts, with their schemas, as JSON.
- ``mcpweft call TARGET TOOL [ARGUMENTS]`` calls one tool and prints its result as JSON. The
  target is a server file (``FILE[:OBJECT]``), a URL of a Streamable HTTP endpoint, or a command
  that starts a server over stdio.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from .client import Client
from .server import Server

#: The names a server object is looked for under when ``FILE`` names none, in this order.
_USUAL_NAMES = ("server", "mcp", "app")


def load_server(spec: str) -> Server:
    """Loads the ``Server`` of ``FILE[:OBJECT]``: the object named, or the one server the file
    defines (preferring the names ``server``, ``mcp`` and ``app``)."""
    path_text, colon, name = spec.rpartition(":")
    if not colon or not name.isidentifier():
        path_text, name = spec, ""
    path = Path(path_text)
    if not path.is_file():
        raise SystemExit(f"mcpweft: no such file: {path}")
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    if module_spec is None or module_spec.loader is None:
        raise SystemExit(f"mcpweft: {path} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[module_spec.name] = module
    module_spec.loader.exec_module(module)
    if name:
        found = getattr(module, name, None)
        if not isinstance(found, Server):
            raise SystemExit(f"mcpweft: {path} has no Server named {name!r}")
        return found
    servers = {key: value for key, value in vars(module).items() if isinstance(value, Server)}
    for usual in _USUAL_NAMES:
        if usual in servers:
            return servers[usual]
    if len(servers) == 1:
        return next(iter(servers.values()))
    if not servers:
        raise SystemExit(f"mcpweft: {path} defines no Server; name one as FILE:OBJECT")
    raise SystemExit(f"mcpweft: {path} defines several servers ({', '.join(servers)}); name one as FILE:OBJECT")


def _client_for(target: str) -> Client:
    """A client of ``target``: a URL, a server file, or a command line."""
    if target.startswith(("http://", "https://")):
        return Client.http(target)
    head, colon, name = target.rpartition(":")
    if not colon or not name.isidentifier():
        head = target
    if head.endswith(".py") and Path(head).is_file():
        return Client.memory(load_server(target))
    command = shlex.split(target)
    if not command:
        raise SystemExit("mcpweft: the target is empty")
    return Client.stdio(command)


async def _inspect(server: Server) -> dict[str, Any]:
    async with Client.memory(server) as client:
        info = client.server_info
        capabilities = info.get("capabilities", {})
        listing: dict[str, Any] = {"serverInfo": info.get("serverInfo"), "capabilities": capabilities}
        if "tools" in capabilities:
            listing["tools"] = await client.list_tools()
        if "resources" in capabilities:
            listing["resources"] = await client.list_resources()
            listing["resourceTemplates"] = await client.list_resource_templates()
        if "prompts" in capabilities:
            listing["prompts"] = await client.list_prompts()
        return listing


async def _call(target: str, tool: str, arguments: dict[str, Any]) -> Any:
    async with _client_for(target) as client:
        return await client.call_tool(tool, arguments)


def _arguments(text: Optional[str]) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise SystemExit(f"mcpweft: the arguments are not JSON: {e}") from None
    if not isinstance(value, dict):
        raise SystemExit("mcpweft: the arguments must be a JSON object")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpweft", description="Serve, inspect and call MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="serve the Server of a Python file")
    run.add_argument("server", metavar="FILE[:OBJECT]")
    run.add_argument("--transport", choices=["stdio", "http", "streamable-http"], default="stdio")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--path", default="/mcp", help="the HTTP endpoint's path (default /mcp)")
    inspect = commands.add_parser("inspect", help="print a server's tools, resources and prompts as JSON")
    inspect.add_argument("server", metavar="FILE[:OBJECT]")
    call = commands.add_parser("call", help="call one tool and print its result as JSON")
    call.add_argument("target", metavar="TARGET", help="FILE[:OBJECT], an http(s) URL, or a command line")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", metavar="ARGUMENTS", help="the arguments, a JSON object")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``mcpweft`` command with ``argv`` (the process's arguments by default)."""
    args = _parser().parse_args(argv)
    if args.command == "run":
        server = load_server(args.server)
        transport = "http" if args.transport == "streamable-http" else args.transport
        if transport == "http":
            server.run("http", host=args.host, port=args.port, path=args.path)
        else:
            server.run("stdio")
        return 0
    if args.command == "inspect":
        listing = asyncio.run(_inspect(load_server(args.server)))
        print(json.dumps(listing, indent=2))
        return 0
    result = asyncio.run(_call(args.target, args.tool, _arguments(args.arguments)))
    print(json.dumps(result, indent=2))
    return 1 if isinstance(result, dict) and result.get("isError") else 0


__all__ = ["load_server", "main"]
