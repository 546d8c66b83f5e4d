"""The official MCP Python SDK's client against mcpweft's Python conformance fixture
(``python/conformance/server.py``), served in process over Streamable HTTP.

Covers what the calculator does not: an explicit JSON Schema 2020-12 input schema, sampling and
elicitation requests to the official client, and a tool that closes its SSE stream
(``Context.close_sse_stream``) so that the client must resume it to get the result.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import mcp.types as types
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client

from .helpers import CALL_TIMEOUT, texts

SERVER = Path(__file__).resolve().parents[2] / "conformance" / "server.py"


def load_fixture() -> ModuleType:
    # The fixture imports its sibling modules the way it does when run as a script.
    if str(SERVER.parent) not in sys.path:
        sys.path.insert(0, str(SERVER.parent))
    spec = importlib.util.spec_from_file_location("mcpweft_conformance_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fixture = load_fixture()


async def sample(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    assert params.max_tokens == 100
    [message] = params.messages
    assert isinstance(message.content, types.TextContent)
    reply = types.TextContent(type="text", text=f"echo {message.content.text}")
    return types.CreateMessageResult(role="assistant", content=reply, model="test-model")


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert isinstance(params, types.ElicitRequestFormParams)
    properties = params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={k: v["default"] for k, v in properties.items()})


@contextlib.asynccontextmanager
async def connect() -> AsyncIterator[ClientSession]:
    """Serves the fixture on a free port and connects the official client to it.

    (Not a pytest fixture: anyio's cancel scopes must be entered and left in one task.)
    """
    http = await fixture.fixture().serve_http(port=0)
    try:
        async with (
            streamable_http_client(http.url) as (read, write),
            ClientSession(
                read, write, read_timeout_seconds=CALL_TIMEOUT, sampling_callback=sample, elicitation_callback=elicit
            ) as session,
        ):
            await session.initialize()
            yield session
    finally:
        await http.close()


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> list[str]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, result
    return texts(result.content)


async def test_input_schema_is_kept_as_given() -> None:
    async with connect() as session:
        await input_schema_is_kept_as_given(session)


async def input_schema_is_kept_as_given(session: ClientSession) -> None:
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert tools["json_schema_2020_12_tool"].input_schema == fixture.JSON_SCHEMA_2020_12
    assert all(t.description for t in tools.values())
    arguments = {"name": "n", "address": {"city": "c"}}
    assert await call(session, "json_schema_2020_12_tool", arguments) == [
        f"JSON Schema 2020-12 tool called with: {json.dumps(arguments, separators=(',', ':'))}"
    ]


async def test_sampling_and_elicitation_reach_the_official_client() -> None:
    async with connect() as session:
        assert await call(session, "test_sampling", {"prompt": "hi"}) == ["LLM response: echo hi"]
        [answer] = await call(session, "test_elicitation_sep1034_defaults", {})
    prefix = "Elicitation completed: action=accept, content="
    assert answer.startswith(prefix)
    defaults = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}
    assert json.loads(answer[len(prefix) :]) == defaults


async def test_closed_sse_stream_is_resumed() -> None:
    async with connect() as session:
        assert await call(session, "test_reconnection", {}) == [fixture.RECONNECTION_TEXT]
        # The session goes on after the resumed stream.
        assert await call(session, "test_simple_text", {}) == ["This is a simple text response for testing."]
