"""A client that spawns an MCP server over stdio and uses its tools, resources and prompts, as far
as the server declared them.

Mirrors ``core/examples/calculator_client.rs``. Usage: ``python client.py [SERVER_COMMAND ARGS...]``;
with no arguments it spawns ``calculator.py`` next to this file.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Optional

from mcpweft import Client
from mcpweft.types import LogMessage


def say(line: str) -> None:
    """Writes one line in one call: the log and progress handlers may run on other threads, and
    ``print`` writes a line and its newline in two calls that another line could come between."""
    sys.stdout.write(line + "\n")


def print_log(message: LogMessage) -> None:
    data = message.get("data")
    text = data if isinstance(data, str) else repr(data)
    say(f"log {message.get('level')}: {text}")


def print_progress(progress: float, total: Optional[float], message: Optional[str]) -> None:
    say(f"progress {progress:g}/{total or 0:g}")


async def main() -> None:
    command = sys.argv[1:] or [sys.executable, str(Path(__file__).with_name("calculator.py"))]
    async with Client.stdio(command, logging_handler=print_log) as client:
        info = client.server_info
        say(
            f"connected to {info['serverInfo']['name']} {info['serverInfo']['version']} "
            f"(protocol {info['protocolVersion']})"
        )

        # A server offers only what it declared: each step checks the capability (and the tool,
        # resource or prompt) first and skips what this server does not have.
        capabilities = info.get("capabilities", {})
        if "tools" in capabilities:
            tools = [t["name"] for t in await client.list_tools()]
            say("tools: " + ", ".join(tools))
            if "add" in tools:
                result = await client.call_tool("add", {"a": 2, "b": 3})
                say(f"add(2, 3) = {result['structuredContent']['sum']:g}")
            if "count" in tools:
                if "logging" in capabilities:
                    await client.set_logging_level("debug")
                counted = await client.call_tool("count", {"n": 3}, progress=print_progress)
                say(f"count: {counted['content'][0]['text']}")

        if "resources" in capabilities:
            resources = [r["uri"] for r in await client.list_resources()]
            say("resources: " + ", ".join(resources))
            if "calc://constants" in resources:
                constants = await client.read_resource("calc://constants")
                say(f"resource calc://constants: {constants['contents'][0].get('text')}")

        if "prompts" in capabilities:
            prompts = [p["name"] for p in await client.list_prompts()]
            say("prompts: " + ", ".join(prompts))
            if "explain" in prompts:
                prompt = await client.get_prompt("explain", {"expression": "2+3"})
                say(f"prompt explain: {prompt['messages'][0]['content']['text']}")


if __name__ == "__main__":
    asyncio.run(main())
