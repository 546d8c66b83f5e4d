"""Server descriptions and settings: icons and titles everywhere, instructions, paging, log
level, subscriptions, request time-out, completion context and the roots-changed hook."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpweft import Client, Context, InvalidParams, McpError, RequestTimeout, Server
from mcpweft.types import Icon, LogMessage

ICON: Icon = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}


async def eventually(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def described_server() -> Server:
    server = Server(
        "described",
        version="2.0.0",
        instructions="Use the tools.",
        title="Described Server",
        description="A server with every description.",
        icons=[ICON],
        website_url="https://example.com",
        page_size=2,
    )

    @server.tool(title="First Tool", icons=[ICON], meta={"origin": "test"})
    def first() -> str:
        return "1"

    @server.tool()
    def second() -> str:
        return "2"

    @server.tool()
    def third() -> str:
        return "3"

    @server.resource("test://doc", title="A Document", icons=[ICON], size=4)
    def doc() -> str:
        return "text"

    @server.resource("test://items/{id}", title="An Item", icons=[ICON])
    def item(id: str) -> str:
        return id

    @server.prompt(title="A Prompt", icons=[ICON])
    def greet() -> str:
        return "hi"

    return server


async def test_icons_titles_and_descriptions() -> None:
    async with Client.memory(described_server()) as client:
        info = client.server_info
        assert info["serverInfo"] == {
            "name": "described",
            "version": "2.0.0",
            "title": "Described Server",
            "description": "A server with every description.",
            "icons": [ICON],
            "websiteUrl": "https://example.com",
        }
        assert info["instructions"] == "Use the tools."
        tools = {t["name"]: t for t in await client.list_tools()}
        assert (tools["first"]["title"], tools["first"]["icons"]) == ("First Tool", [ICON])
        assert tools["first"]["_meta"] == {"origin": "test"}
        resource = (await client.list_resources())[0]
        assert (resource["title"], resource["icons"], resource["size"]) == ("A Document", [ICON], 4)
        template = (await client.list_resource_templates())[0]
        assert (template["title"], template["icons"]) == ("An Item", [ICON])
        prompt = (await client.list_prompts())[0]
        assert (prompt["title"], prompt["icons"]) == ("A Prompt", [ICON])


async def test_page_size_and_cursors() -> None:
    async with Client.memory(described_server()) as client:
        first = await client.list_page("tools")
        assert [t["name"] for t in first["tools"]] == ["first", "second"]
        second = await client.list_page("tools", first["nextCursor"])
        assert [t["name"] for t in second["tools"]] == ["third"]
        assert "nextCursor" not in second
        assert len(await client.list_tools()) == 3


async def test_log_level_and_subscriptions_settings() -> None:
    server = Server("settings", log_level="debug", resource_subscriptions=False)

    @server.tool()
    def chatty(ctx: Context) -> str:
        ctx.debug("fine detail")
        return "ok"

    @server.resource("test://r")
    def r() -> str:
        return "r"

    logs: list[LogMessage] = []
    async with Client.memory(server, logging_handler=logs.append) as client:
        assert client.server_info["capabilities"]["resources"]["subscribe"] is False
        await client.call_tool("chatty")
        await eventually(lambda: [m["data"] for m in logs] == ["fine detail"])


async def test_request_timeout_of_requests_to_the_client() -> None:
    server = Server("impatient", request_timeout=0.2)

    @server.tool()
    async def ask(ctx: Context) -> str:
        try:
            await ctx.sample("hello?")
        except RequestTimeout:
            return "timed out"
        return "answered"

    async def slow_model(params: Any) -> str:
        await asyncio.sleep(5)
        return "late"

    async with Client.memory(server, sampling_handler=slow_model) as client:
        assert (await client.call_tool("ask"))["content"][0]["text"] == "timed out"


async def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="logging level"):
        Server("x", log_level="loud")  # type: ignore[arg-type]


async def test_completion_gets_the_resolved_arguments() -> None:
    server = Server("complete")
    seen: list[dict[str, str]] = []

    @server.prompt()
    def plan(country: str, city: str) -> str:
        return f"{city}, {country}"

    @server.completion()
    def complete(ref: dict[str, Any], argument: str, value: str, resolved: dict[str, str]) -> list[str]:
        seen.append(resolved)
        cities = {"fr": ["Paris", "Lyon"], "it": ["Rome", "Milan"]}
        return [c for c in cities.get(resolved.get("country", ""), []) if c.startswith(value)]

    async with Client.memory(server) as client:
        ref = {"type": "ref/prompt", "name": "plan"}
        result = await client.complete(ref, "city", "", arguments={"country": "it"})
        assert result["completion"]["values"] == ["Rome", "Milan"]
        assert (await client.complete(ref, "city", "L"))["completion"]["values"] == []
    assert seen == [{"country": "it"}, {}]


async def test_roots_changed_hook_can_list_roots() -> None:
    server = Server("roots")
    heard: list[list[str]] = []

    @server.on_roots_changed()
    async def changed(ctx: Context) -> None:
        assert ctx.request_id is None
        heard.append([r["uri"] for r in await ctx.list_roots()])

    with pytest.raises(ValueError, match="already set"):
        server.on_roots_changed()(changed)

    roots = [{"uri": "file:///one"}]
    async with Client.memory(server, roots=lambda: roots) as client:
        roots.append({"uri": "file:///two"})
        client.notify_roots_changed()
        await eventually(lambda: heard == [["file:///one", "file:///two"]])


async def test_limits_and_extra_capabilities() -> None:
    server = Server(
        "limited",
        max_uri_length=32,
        max_in_flight_requests=1,
        max_queued_messages=16,
        max_queued_bytes=1 << 20,
        max_subscriptions=2,
        capabilities={"experimental": {"probe": {}}},
    )
    gate = asyncio.Event()

    @server.tool()
    async def hold() -> str:
        await gate.wait()
        return "held"

    @server.resource("test://{name}")
    def named(name: str) -> str:
        return name

    async with Client.memory(server) as client:
        assert client.server_info["capabilities"]["experimental"] == {"probe": {}}
        with pytest.raises(InvalidParams):
            await client.read_resource("test://" + "x" * 64)
        held = asyncio.ensure_future(client.call_tool("hold"))
        await asyncio.sleep(0.1)
        with pytest.raises(McpError) as refused:
            await client.call_tool("hold")
        assert refused.value.code == -32003
        gate.set()
        assert (await held)["content"][0]["text"] == "held"
        await client.subscribe("test://a")
        await client.subscribe("test://b")
        await client.subscribe("test://b")
        with pytest.raises(InvalidParams, match="subscribed to 2 resources"):
            await client.subscribe("test://c")
        await client.unsubscribe("test://a")
        await client.subscribe("test://c")
