"""mcpweft's Python client against a server written with the official MCP Python SDK (FastMCP,
``MCPServer`` in mcp 2.x): ``fastmcp_calculator.py`` over stdio and over Streamable HTTP."""

from __future__ import annotations

import json
import math
import sys
from typing import Optional

import pytest

from mcpweft import Client, McpError
from mcpweft.types import LogMessage

from .helpers import CALL_TIMEOUT, FASTMCP_CALCULATOR, eventually, http_server, texts


async def exercise_fastmcp_calculator(client: Client, logs: list[LogMessage]) -> None:
    info = client.server_info
    assert info["protocolVersion"] == "2025-11-25"
    assert info["serverInfo"]["name"] == "fastmcp-calculator"
    assert info.get("instructions", "").startswith("A calculator")
    assert {"tools", "resources", "prompts"} <= set(info["capabilities"])

    tools = {t["name"]: t for t in await client.list_tools()}
    assert sorted(tools) == ["add", "count", "divide"]
    assert tools["add"]["description"] == "Adds two numbers."
    assert tools["add"]["inputSchema"]["required"] == ["a", "b"]
    properties = tools["add"]["inputSchema"]["properties"]
    assert {k: v["type"] for k, v in properties.items()} == {"a": "number", "b": "number"}
    assert tools["add"]["outputSchema"]["properties"]["sum"]["type"] == "number"

    added = await client.call_tool("add", {"a": 2, "b": 3.5})
    assert not added.get("isError")
    assert added["structuredContent"] == {"sum": 5.5}
    assert json.loads(texts(added["content"])[0]) == {"sum": 5.5}
    assert (await client.call_tool("divide", {"a": 7, "b": 2}))["structuredContent"] == {"quotient": 3.5}

    failed = await client.call_tool("divide", {"a": 1, "b": 0})
    assert failed["isError"] is True
    assert "division by zero" in texts(failed["content"])[0]

    progress: list[tuple[float, Optional[float], Optional[str]]] = []

    def on_progress(p: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((p, total, message))

    counted = await client.call_tool("count", {"n": 3}, progress=on_progress, timeout=CALL_TIMEOUT)
    assert not counted.get("isError")
    assert texts(counted["content"]) == ["counted to 3"]
    await eventually(lambda: len(progress) == 3 and len(logs) == 3)
    assert progress == [(1, 3, None), (2, 3, None), (3, 3, None)]
    assert [(m["level"], m.get("logger"), m["data"]) for m in logs] == [
        ("info", "calculator", f"step {i} of 3") for i in (1, 2, 3)
    ]

    resources = await client.list_resources()
    assert [(r["uri"], r["name"], r.get("mimeType")) for r in resources] == [
        ("calc://constants", "constants", "application/json")
    ]
    constants = (await client.read_resource("calc://constants"))["contents"]
    assert len(constants) == 1 and constants[0]["uri"] == "calc://constants"
    assert json.loads(constants[0]["text"]) == {"pi": math.pi, "e": math.e}

    templates = await client.list_resource_templates()
    assert [(t["uriTemplate"], t["name"]) for t in templates] == [("calc://constants/{name}", "constant")]
    e = (await client.read_resource("calc://constants/e"))["contents"][0]
    assert e["uri"] == "calc://constants/e" and float(e["text"]) == math.e
    with pytest.raises(McpError, match="unknown constant tau"):
        await client.read_resource("calc://constants/tau")

    prompts = await client.list_prompts()
    assert [(p["name"], p.get("description")) for p in prompts] == [
        ("explain", "Asks the model to explain a calculation.")
    ]
    assert [(a["name"], a.get("required")) for a in prompts[0].get("arguments", [])] == [("expression", True)]
    prompt = await client.get_prompt("explain", {"expression": "2+3"})
    assert prompt["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Explain step by step how to compute 2+3."}}
    ]

    with pytest.raises(McpError):
        await client.get_prompt("nope")
    await client.ping()


async def test_mcpweft_client_against_fastmcp_over_stdio() -> None:
    logs: list[LogMessage] = []
    command = [sys.executable, str(FASTMCP_CALCULATOR)]
    async with Client.stdio(command, logging_handler=logs.append, timeout=CALL_TIMEOUT) as client:
        await exercise_fastmcp_calculator(client, logs)


async def test_mcpweft_client_against_fastmcp_over_streamable_http(free_port: int) -> None:
    logs: list[LogMessage] = []
    async with http_server(FASTMCP_CALCULATOR, free_port) as url:
        async with Client.http(url, logging_handler=logs.append, timeout=CALL_TIMEOUT) as client:
            await exercise_fastmcp_calculator(client, logs)
