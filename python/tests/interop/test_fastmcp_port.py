"""A server written for FastMCP, changed only in its import line, under the official client."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path
from typing import Optional

import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

from .helpers import CALL_TIMEOUT, HERE

PORT = HERE / "fastmcp_port.py"


async def test_a_fastmcp_server_runs_on_mcpweft_unchanged(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(PORT)])
    reported: list[float] = []
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(progress: float, total: Optional[float], message: Optional[str]) -> None:
        reported.append(progress)

    with open(tmp_path / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT, logging_callback=on_log) as s:
                init = await asyncio.wait_for(s.initialize(), CALL_TIMEOUT)
                assert init.server_info.name == "Demo 🚀"
                tools = {t.name: t for t in (await s.list_tools()).tools}
                assert list(tools) == ["add", "scale", "weather", "process", "logo"]
                assert tools["add"].description == "Add two numbers"
                factor = tools["scale"].input_schema["properties"]["factor"]
                assert (factor["minimum"], factor["maximum"], factor["default"]) == (0, 100, 2.0)
                assert tools["weather"].output_schema is not None

                added = await s.call_tool("add", {"a": 2, "b": 3})
                assert added.structured_content == {"result": 5}
                scaled = await s.call_tool("scale", {"values": [1, 2]})
                assert scaled.structured_content == {"result": [2.0, 4.0]}
                too_big = await s.call_tool("scale", {"values": [1], "factor": 101})
                assert too_big.is_error
                weather = await s.call_tool("weather", {"city": "Oslo"})
                assert weather.structured_content == {"city": "Oslo", "temperature": 21.5, "conditions": "sunny"}
                done = await s.call_tool("process", {"items": ["a", "b", "c"]}, progress_callback=on_progress)
                assert isinstance(done.content[0], types.TextContent)
                assert done.content[0].text == "Processed 3 items"
                logo = (await s.call_tool("logo")).content[0]
                assert isinstance(logo, types.ImageContent) and logo.mime_type == "image/png"
                assert base64.b64decode(logo.data).startswith(b"\x89PNG")

                version = await s.read_resource("config://version")
                assert isinstance(version.contents[0], types.TextResourceContents)
                assert version.contents[0].text == "2.0.1"
                greeting = await s.read_resource("greeting://Ada")
                assert isinstance(greeting.contents[0], types.TextResourceContents)
                assert greeting.contents[0].text == "Hello, Ada!"
                prompt = await s.get_prompt("summarize", {"text": "MCP"})
                assert isinstance(prompt.messages[0].content, types.TextContent)
                assert prompt.messages[0].content.text.endswith("MCP")
    assert reported == [1, 2, 3]
    assert [log.data for log in logs] == ["Processing 3 items"]
