"""The official MCP Python SDK's client against mcpweft's calculator example, over stdio and HTTP.

Written against mcp 2.x (pinned in requirements-dev.txt): its models use snake_case attributes
and its HTTP transport is ``streamable_http_client`` (``streamablehttp_client`` in 1.x).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Optional

import mcp.types as types
import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from .helpers import CALCULATOR, CALL_TIMEOUT, eventually, http_server, texts


class Recorder:
    """Collects the log messages and progress notifications the session receives."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.progress: list[tuple[float, Optional[float], Optional[str]]] = []

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_progress(self, progress: float, total: Optional[float], message: Optional[str]) -> None:
        self.progress.append((progress, total, message))


@contextlib.asynccontextmanager
async def session_over(streams: Any, recorder: Recorder) -> AsyncIterator[ClientSession]:
    read, write = streams[0], streams[1]
    async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT, logging_callback=recorder.on_log) as s:
        yield s


async def exercise_calculator(session: ClientSession, recorder: Recorder) -> None:
    init = await asyncio.wait_for(session.initialize(), CALL_TIMEOUT)
    assert init.protocol_version == "2025-11-25"
    assert init.server_info.name == "calculator"
    assert init.server_info.version == "0.1.0"
    assert init.instructions is not None and "calculator" in init.instructions
    capabilities = init.capabilities
    assert capabilities.tools is not None and capabilities.resources is not None
    assert capabilities.prompts is not None and capabilities.completions is not None

    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert list(tools) == ["add", "divide", "count"]
    assert tools["add"].description == "Adds two numbers."
    assert tools["add"].input_schema["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}
    assert tools["add"].input_schema["required"] == ["a", "b"]
    output = tools["add"].output_schema
    assert output is not None and output["properties"]["sum"]["type"] == "number"
    n = tools["count"].input_schema["properties"]["n"]
    assert n == {"type": "integer", "description": "The number to count to."}

    # The SDK checks structured_content against the tool's outputSchema.
    added = await session.call_tool("add", {"a": 2, "b": 3.5})
    assert not added.is_error
    assert added.structured_content == {"sum": 5.5}
    assert json.loads(texts(added.content)[0]) == {"sum": 5.5}

    divided = await session.call_tool("divide", {"a": 7, "b": 2})
    assert divided.structured_content == {"quotient": 3.5}

    failed = await session.call_tool("divide", {"a": 1, "b": 0})
    assert failed.is_error is True
    assert texts(failed.content) == ["division by zero"]
    assert failed.structured_content is None

    with warnings.catch_warnings():  # mcp 2 deprecates logging (protocol 2026-07-28) but still sends it.
        warnings.simplefilter("ignore")
        await session.set_logging_level("debug")
    counted = await session.call_tool("count", {"n": 3}, progress_callback=recorder.on_progress)
    assert not counted.is_error
    assert texts(counted.content) == ["counted to 3"]
    assert counted.structured_content == {"result": "counted to 3"}
    await eventually(lambda: len(recorder.progress) == 3 and len(recorder.logs) == 3)
    assert recorder.progress == [(1, 3, None), (2, 3, None), (3, 3, None)]
    assert [(m.level, m.logger, m.data) for m in recorder.logs] == [
        ("info", "calculator", f"step {i} of 3") for i in (1, 2, 3)
    ]

    # Above the threshold only: nothing at "error" for info messages.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await session.set_logging_level("error")
    await session.call_tool("count", {"n": 1})
    await asyncio.sleep(0.1)
    assert len(recorder.logs) == 3

    resources = (await session.list_resources()).resources
    assert [(str(r.uri), r.name, r.mime_type, r.description) for r in resources] == [
        ("calc://constants", "constants", "application/json", "Known constants.")
    ]
    constants = (await session.read_resource("calc://constants")).contents
    assert len(constants) == 1 and isinstance(constants[0], types.TextResourceContents)
    assert constants[0].mime_type == "application/json"
    assert json.loads(constants[0].text) == {"pi": math.pi, "e": math.e}

    templates = (await session.list_resource_templates()).resource_templates
    assert [(t.uri_template, t.name) for t in templates] == [("calc://constants/{name}", "constant")]
    e = (await session.read_resource("calc://constants/e")).contents[0]
    assert isinstance(e, types.TextResourceContents)
    assert str(e.uri) == "calc://constants/e"
    assert float(e.text) == math.e
    with pytest.raises(MCPError) as missing:
        await session.read_resource("calc://constants/tau")
    assert missing.value.error.code == -32002

    prompts = (await session.list_prompts()).prompts
    assert [p.name for p in prompts] == ["explain"]
    assert prompts[0].description == "Asks the model to explain a calculation."
    assert [(a.name, a.required, a.description) for a in prompts[0].arguments or []] == [
        ("expression", True, "What to compute.")
    ]
    prompt = await session.get_prompt("explain", {"expression": "2+3"})
    assert len(prompt.messages) == 1 and prompt.messages[0].role == "user"
    assert isinstance(prompt.messages[0].content, types.TextContent)
    assert prompt.messages[0].content.text == "Explain step by step how to compute 2+3."

    ref = types.ResourceTemplateReference(type="ref/resource", uri="calc://constants/{name}")
    completion = await session.complete(ref, {"name": "name", "value": "p"})
    assert completion.completion.values == ["pi"]

    with pytest.raises(MCPError) as unknown:
        await session.call_tool("nope", {})
    assert unknown.value.error.code == -32602

    await session.send_ping()


async def test_official_client_over_stdio(tmp_path: Path) -> None:
    recorder = Recorder()
    params = StdioServerParameters(command=sys.executable, args=[str(CALCULATOR)])
    with open(tmp_path / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams, session_over(streams, recorder) as session:
            await exercise_calculator(session, recorder)


async def test_official_client_over_streamable_http(free_port: int) -> None:
    recorder = Recorder()
    async with http_server(CALCULATOR, free_port) as url:
        async with streamable_http_client(url) as streams, session_over(streams, recorder) as session:
            await exercise_calculator(session, recorder)
