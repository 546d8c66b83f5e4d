"""The ``mcpweft`` command (also ``python -m mcpweft``): serve, list, call and proxy MCP servers.

- ``mcpweft run FILE[:OBJECT]`` serves the ``Server`` defined in a Python file over stdio, or
  over Streamable HTTP with ``--transport http``.
- Every other command is the native ``mcpweft`` command that ships in this package's native
  module (``tools``, ``call``, ``resources``, ``read``, ``prompts``, ``get``, ``inspect``,
  ``proxy``; ``mcpweft --help`` lists them). A Python server file is a target like any command:
  ``mcpweft tools -- mcpweft run server.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

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


def _run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpweft run", description="Serve the Server of a Python file.")
    parser.add_argument("server", metavar="FILE[:OBJECT]")
    parser.add_argument("--transport", choices=["stdio", "http", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--path", default="/mcp", help="the HTTP endpoint's path (default /mcp)")
    return parser


#: Python's levels for the simple values of ``MCPWEFT_LOG``.
_LEVELS = {"trace": 5, "debug": 10, "info": 20, "warn": 30, "warning": 30, "error": 40, "off": 100}


def _native_command(argv: Sequence[str]) -> int:
    """Runs the native ``mcpweft`` command with ``argv`` and returns its exit code.

    The core's records reach Python's ``logging`` here as in any use of the package: warnings and
    errors by default, the level ``MCPWEFT_LOG`` names otherwise. The host's own warning about a
    server it cannot reach stays out, as the command reports that failure itself. Ctrl-C ends
    the process, as it ends the native command.
    """
    import logging

    from . import _logging, _native

    level = _LEVELS.get(os.environ.get("MCPWEFT_LOG", "").strip().lower())
    if level is not None:
        logging.getLogger("mcpweft").setLevel(level)
    else:
        logging.getLogger("mcpweft.host").setLevel(logging.ERROR)
    _logging.refresh()
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    return _native.cli(["mcpweft", *argv])


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``mcpweft`` command with ``argv`` (the process's arguments by default)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "run":
        return _native_command(argv)
    args = _run_parser().parse_args(argv[1:])
    server = load_server(args.server)
    transport = "http" if args.transport == "streamable-http" else args.transport
    if transport == "http":
        server.run("http", host=args.host, port=args.port, path=args.path)
    else:
        server.run("stdio")
    return 0


__all__ = ["load_server", "main"]
