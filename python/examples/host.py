"""A host: one client for many servers of different kinds.

``python host.py servers.json`` connects to the servers of a Claude Desktop-style configuration
file (``{"mcpServers": {...}}``). Without a file it makes its own: the Rust calculator example
over stdio (``cargo build -p mcpweft --examples``), this folder's Python calculator over
Streamable HTTP on 127.0.0.1 (started here), the official reference server
``@modelcontextprotocol/server-everything`` over stdio (installed in ``tests/host`` by
``npm ci``, or else run through ``npx``), and a command that fails to start. It prints each
server's state, the one list of tools, and calls a tool of each ready server.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

from mcpweft import Host
from mcpweft.types import CallToolResult, LogMessage

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def reference_server() -> dict[str, Any]:
    """The reference server's entry: the copy in ``tests/host`` when installed, else ``npx``."""
    installed = ROOT / "tests/host/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    node = shutil.which("node")
    if installed.exists() and node is not None:
        return {"command": node, "args": [str(installed), "stdio"]}
    return {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything", "stdio"]}


async def serve_python_calculator() -> tuple[asyncio.subprocess.Process, str]:
    """Starts the Python calculator over Streamable HTTP and returns it with its URL once it
    accepts connections."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "calculator.py"), "--http", str(port), stdout=asyncio.subprocess.DEVNULL
    )
    for _ in range(300):
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            await asyncio.sleep(0.1)
    process.kill()
    raise SystemExit("the Python calculator did not start serving HTTP")


def shown(result: CallToolResult) -> str:
    """A sum as a number, anything else as the text of its first content block."""
    structured = result.get("structuredContent") or {}
    if "sum" in structured:
        return f"{structured['sum']:g}"
    return str(result["content"][0].get("text"))


def print_log(server: str, message: LogMessage) -> None:
    print(f"  [{server}] {message['data']}", file=sys.stderr)


async def main() -> None:
    http_server = None
    if len(sys.argv) > 1:
        config: Any = sys.argv[1]
    else:
        target = Path(os.environ.get("CARGO_TARGET_DIR", "target"))
        target = target if target.is_absolute() else ROOT / target
        http_server, url = await serve_python_calculator()
        config = {
            "mcpServers": {
                "calc": {"command": str(target / "debug" / "examples" / "calculator_server")},
                "pycalc": {"type": "http", "url": url},
                "everything": reference_server(),
                "broken": {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no API key given')"]},
            }
        }
    try:
        async with Host.connect(config, on_log=print_log) as host:
            for name, state in host.servers().items():
                reason = (
                    f" ({state.get('stderr', state.get('reason', '')).strip()})" if state["state"] == "failed" else ""
                )
                print(f"{name}: {state['state']}{reason}")
            print("tools:", ", ".join(tool["name"] for tool in host.tools()))
            for name, arguments in [
                ("calc__add", {"a": 2, "b": 40}),
                ("pycalc__add", {"a": 2, "b": 40}),
                ("everything__get-sum", {"a": 2, "b": 40}),
            ]:
                if any(tool["name"] == name for tool in host.tools()):
                    print(f"{name}(2, 40) = {shown(await host.call_tool(name, arguments))}")
    finally:
        if http_server is not None:
            http_server.kill()
            await http_server.wait()


if __name__ == "__main__":
    asyncio.run(main())
