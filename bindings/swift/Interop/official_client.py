"""The official MCP Python SDK's client against the Swift calculator example over stdio.

Usage: ``official_client.py SERVER_COMMAND [ARGS...]``. Checks the calculator contract with
real assertions (the same one ``python/tests/interop`` checks for the Python calculator, where
the Swift example's differs only in what its count tool returns), prints one line per check
and exits 0 when all passed. Written against mcp 2.x, pinned in python/requirements-dev.txt.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from typing import Optional

import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

TIMEOUT = 20.0


def texts(content: list[types.ContentBlock]) -> list[str]:
    return [c.text for c in content if isinstance(c, types.TextContent)]


async def eventually(condition, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def exercise(session: ClientSession, logs: list, progress: list) -> None:
    init = await session.initialize()
    assert init.protocol_version == "2025-11-25", init.protocol_version
    assert (init.server_info.name, init.server_info.version) == ("calculator", "0.1.0")
    assert init.instructions is not None and "calculator" in init.instructions
    capabilities = init.capabilities
    assert None not in (capabilities.tools, capabilities.resources, capabilities.prompts, capabilities.completions)
    print("ok   initialize")

    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert list(tools) == ["add", "divide", "count"], list(tools)
    assert tools["add"].description == "Adds two numbers."
    assert tools["add"].input_schema["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}
    assert tools["add"].input_schema["required"] == ["a", "b"]
    assert tools["add"].output_schema["properties"]["sum"]["type"] == "number"
    assert tools["count"].input_schema["properties"]["n"] == {"type": "integer", "description": "The number to count to."}
    print("ok   tools/list")

    added = await session.call_tool("add", {"a": 2, "b": 3.5})
    assert not added.is_error and added.structured_content == {"sum": 5.5}, added
    assert json.loads(texts(added.content)[0]) == {"sum": 5.5}
    assert (await session.call_tool("divide", {"a": 7, "b": 2})).structured_content == {"quotient": 3.5}
    failed = await session.call_tool("divide", {"a": 1, "b": 0})
    assert failed.is_error is True and texts(failed.content) == ["division by zero"], failed
    print("ok   tools/call add, divide")

    await session.set_logging_level("debug")

    async def on_progress(value: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((value, total, message))

    counted = await session.call_tool("count", {"n": 3}, progress_callback=on_progress)
    assert not counted.is_error and texts(counted.content) == ["counted to 3"], counted
    await eventually(lambda: len(progress) == 3 and len(logs) == 3)
    assert progress == [(1, 3, None), (2, 3, None), (3, 3, None)], progress
    assert [(m.level, m.logger, m.data) for m in logs] == [("info", "calculator", f"step {i} of 3") for i in (1, 2, 3)]
    print("ok   tools/call count with progress and logging")

    resources = (await session.list_resources()).resources
    assert [(str(r.uri), r.name, r.mime_type, r.description) for r in resources] == [
        ("calc://constants", "constants", "application/json", "Known constants.")
    ]
    constants = (await session.read_resource("calc://constants")).contents
    assert len(constants) == 1 and isinstance(constants[0], types.TextResourceContents)
    assert json.loads(constants[0].text) == {"pi": math.pi, "e": math.e}
    templates = (await session.list_resource_templates()).resource_templates
    assert [(t.uri_template, t.name) for t in templates] == [("calc://constants/{name}", "constant")]
    e = (await session.read_resource("calc://constants/e")).contents[0]
    assert isinstance(e, types.TextResourceContents) and float(e.text) == math.e
    try:
        await session.read_resource("calc://constants/tau")
        raise AssertionError("reading a missing constant succeeded")
    except MCPError as missing:
        assert missing.error.code == -32002, missing.error
    print("ok   resources")

    prompts = (await session.list_prompts()).prompts
    assert [p.name for p in prompts] == ["explain"]
    assert [(a.name, a.required, a.description) for a in prompts[0].arguments or []] == [
        ("expression", True, "What to compute.")
    ]
    prompt = await session.get_prompt("explain", {"expression": "2+3"})
    assert prompt.messages[0].content.text == "Explain step by step how to compute 2+3."
    ref = types.ResourceTemplateReference(type="ref/resource", uri="calc://constants/{name}")
    assert (await session.complete(ref, {"name": "name", "value": "p"})).completion.values == ["pi"]
    print("ok   prompts and completions")

    try:
        await session.call_tool("nope", {})
        raise AssertionError("calling an unknown tool succeeded")
    except MCPError as unknown:
        assert unknown.error.code == -32602, unknown.error
    await session.send_ping()
    print("ok   errors and ping")


async def main(command: list[str]) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []
    progress: list = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await asyncio.wait_for(exercise(session, logs, progress), TIMEOUT)
    print("official Python SDK client: all checks passed")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: official_client.py SERVER_COMMAND [ARGS...]", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(sys.argv[1:]))
