"""Middleware in Python: the chain's order, changing a request, answering early, failing with a
code, a client's chain around its own calls, and the built-in rate limit and cache, between a
real server and client."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpweft import Client, Context, McpError, Server
from mcpweft.middleware import Cache, CallNext, Message, RateLimit, Timing


def _adder() -> Server:
    server = Server("adder")

    @server.tool()
    def add(a: float, b: float) -> float:
        return a + b

    return server


async def test_the_chain_runs_in_order_and_can_change_answer_or_fail_a_request() -> None:
    server = _adder()
    log: list[str] = []

    def recording(name: str) -> Any:
        async def middleware(message: Message, call_next: CallNext) -> Any:
            if message.method == "tools/call":
                log.append(f"{name}>")
            outcome = await call_next(message)
            if message.method == "tools/call":
                log.append(f"<{name}")
            return outcome

        return middleware

    server.add_middleware(recording("outer"))
    server.add_middleware(recording("inner"))

    @server.middleware
    async def doubles_b(message: Message, call_next: CallNext) -> Any:
        if message.target == "add" and message.params is not None:
            message.params["arguments"]["b"] *= 2
        return await call_next(message)

    @server.middleware
    async def gatekeeper(message: Message, call_next: CallNext) -> Any:
        assert message.direction == "received" and message.role == "server"
        if message.target == "secret":
            raise McpError(-32001, "secret is not for you", {"why": "a test"})
        if message.method == "tools/list":
            return {"tools": [{"name": "from-middleware", "inputSchema": {"type": "object"}}]}
        return await call_next(message)

    async with Client.memory(server) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result["structuredContent"]["result"] == 5, result
        assert log == ["outer>", "inner>", "<inner", "<outer"]

        with pytest.raises(McpError) as refused:
            await client.call_tool("secret", {})
        assert (refused.value.code, refused.value.message, refused.value.data) == (
            -32001,
            "secret is not for you",
            {"why": "a test"},
        )

        assert [t["name"] for t in await client.list_tools()] == ["from-middleware"]
        # The session goes on serving after a refusal.
        result = await client.call_tool("add", {"a": 2, "b": 2})
        assert result["structuredContent"]["result"] == 6


async def test_a_client_chain_wraps_its_calls_and_may_answer_them() -> None:
    seen: list[tuple[str, str, str]] = []

    async def watch(message: Message, call_next: CallNext) -> Any:
        seen.append((message.role, message.direction, message.method))
        if message.target == "local":
            return {"content": [{"type": "text", "text": "answered here"}]}
        return await call_next(message)

    async with Client.memory(_adder(), middleware=[Timing(), watch]) as client:
        local = await client.call_tool("local", {})
        assert local["content"][0]["text"] == "answered here"
        result = await client.call_tool("add", {"a": 1, "b": 1})
        assert result["structuredContent"]["result"] == 2
    assert ("client", "sent", "initialize") in seen
    assert ("client", "sent", "notifications/initialized") in seen
    assert seen.count(("client", "sent", "tools/call")) == 2


async def test_the_built_in_rate_limit_and_cache() -> None:
    server = _adder()
    lists = 0

    @server.middleware
    async def count_lists(message: Message, call_next: CallNext) -> Any:
        nonlocal lists
        if message.method == "tools/list":
            lists += 1
        return await call_next(message)

    server.add_middleware(RateLimit(0.5, burst=2))
    async with Client.memory(server, middleware=[Cache(default_ttl=60)]) as client:
        assert [t["name"] for t in await client.list_tools()] == ["add"]
        assert [t["name"] for t in await client.list_tools()] == ["add"]
        assert lists == 1, "the second list came from the client's cache"
        await client.call_tool("add", {"a": 1, "b": 1})
        with pytest.raises(McpError) as limited:
            await client.call_tool("add", {"a": 1, "b": 1})
        assert limited.value.code == -32003
        assert 0 < limited.value.data["retryAfterMs"] <= 2000
        await client.ping()


def test_a_middleware_is_async_or_built_in() -> None:
    server = _adder()

    def plain(message: Message, call_next: CallNext) -> Any:
        return None

    with pytest.raises(TypeError, match="async function"):
        server.add_middleware(plain)
    with pytest.raises(ValueError, match="perSecond"):
        server.add_middleware(RateLimit(0))


async def test_a_tool_that_logs_while_a_python_middleware_runs_does_not_wait_for_itself() -> None:
    server = Server("chatty")
    seen: list[str] = []

    @server.tool()
    async def chatty(ctx: Context) -> str:
        ctx.log("info", "from the loop's own thread")
        return "done"

    @server.middleware
    async def watch(message: Message, call_next: CallNext) -> Any:
        seen.append(message.method)
        return await call_next(message)

    logs: list[Any] = []
    async with Client.memory(server, logging_handler=logs.append) as client:
        result = await asyncio.wait_for(client.call_tool("chatty"), 10)
        assert result["content"][0]["text"] == "done"
    assert "notifications/message" in seen
