"""Client features: subscriptions, notifications, logging level, time-outs and closing."""

from __future__ import annotations

import asyncio

import pytest

from mcpweft import Client, Server
from mcpweft.errors import McpError, TransportClosed


async def test_subscriptions_and_updates() -> None:
    server = Server("subs")
    value = {"n": 0}

    @server.resource("test://counter")
    def counter() -> str:
        return str(value["n"])

    updated: list[str] = []

    async def on_updated(uri: str) -> None:
        updated.append(uri)

    async with Client.memory(server, on_resource_updated=on_updated) as client:
        await client.subscribe("test://counter")
        value["n"] = 1
        server.notify_resource_updated("test://counter")
        for _ in range(500):
            if updated:
                break
            await asyncio.sleep(0.01)
        assert updated == ["test://counter"]
        assert (await client.read_resource("test://counter"))["contents"][0]["text"] == "1"
        await client.unsubscribe("test://counter")
        server.notify_resource_updated("test://counter")
        await client.ping()
        await asyncio.sleep(0.05)
        assert updated == ["test://counter"]


async def test_server_wide_log_and_level() -> None:
    server = Server("logs")

    @server.tool()
    def noop() -> str:
        return ""

    messages: list[object] = []
    async with Client.memory(server, logging_handler=lambda m: messages.append(m["data"])) as client:
        await client.set_logging_level("error")
        server.log("info", "hidden")
        server.log("error", {"shown": True})
        await client.ping()
        for _ in range(500):
            if messages:
                break
            await asyncio.sleep(0.01)
        assert messages == [{"shown": True}]
        with pytest.raises(ValueError, match="unknown logging level"):
            await client.set_logging_level("loud")  # type: ignore[arg-type]


async def test_using_a_closed_client_fails() -> None:
    server = Server("closing")
    client = Client.memory(server)
    with pytest.raises(TransportClosed, match="not connected"):
        await client.ping()
    await client.connect()
    await client.ping()
    await client.close()
    with pytest.raises(TransportClosed, match="not connected"):
        await client.ping()
    await client.close()  # Closing twice is harmless.


async def test_sampling_handler_errors_reach_the_server() -> None:
    from mcpweft import Context

    server = Server("asks")

    @server.tool()
    async def ask(ctx: Context) -> str:
        try:
            await ctx.sample("hi")
        except McpError as e:
            return f"{e.code}: {e.message}"
        return "unreachable"

    def refuse(params: object) -> str:
        raise McpError(-1, "user rejected sampling")

    async with Client.memory(server, sampling_handler=refuse) as client:
        result = await client.call_tool("ask")
        assert result["content"][0]["text"] == "-1: user rejected sampling"
