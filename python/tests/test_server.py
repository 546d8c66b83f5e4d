"""A mcpweft server and client in one process, over the in-memory transport."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import threading
from typing import Any, TypedDict

import pydantic
import pytest

from mcpweft import Audio, Client, Image, InvalidParams, McpError, ResourceNotFound, Server
from mcpweft.errors import CapabilityMissing
from mcpweft.types import CallToolResult


class Sum(TypedDict):
    sum: int


@dataclasses.dataclass
class Pair:
    left: int
    right: int


class Model(pydantic.BaseModel):
    name: str
    size: int


def make_server() -> Server:
    server = Server("test", version="1.2.3", instructions="Be nice.")

    @server.tool()
    def text() -> str:
        return "hello"

    @server.tool()
    def number(x: int) -> int:
        return x * 2

    @server.tool()
    def untyped(x: int):  # type: ignore[no-untyped-def]
        return x * 2

    @server.tool()
    async def summed(a: int, b: int) -> Sum:
        return {"sum": a + b}

    @server.tool()
    def pair() -> Pair:
        return Pair(1, 2)

    @server.tool()
    def model() -> Model:
        return Model(name="m", size=3)

    @server.tool()
    def mapping() -> dict[str, int]:
        return {"a": 1}

    @server.tool()
    def blocks() -> list[Any]:
        return ["one", Image(b"\x89PNG", "image/png"), Audio(b"RIFF"), {"k": 1}]

    @server.tool()
    def raw_bytes() -> bytes:
        return b"\x00\x01"

    @server.tool()
    def passthrough() -> CallToolResult:
        return {"content": [{"type": "text", "text": "as is"}], "isError": False}

    @server.tool()
    def nothing() -> None:
        return None

    @server.tool()
    def fails() -> str:
        raise ValueError("it broke")

    @server.tool()
    async def rejects(x: int) -> str:
        raise InvalidParams("x must be odd", {"x": x})

    @server.resource("test://static", description="Static text.", mime_type="text/markdown")
    def static() -> str:
        return "# hi"

    @server.resource("test://json")
    async def as_json() -> dict[str, int]:
        return {"a": 1}

    @server.resource("test://bin")
    def binary() -> bytes:
        return b"\xff"

    @server.resource("test://items/{item}/{part}")
    def item(item: str, part: str) -> str:
        if item == "missing":
            raise ResourceNotFound(f"no {item}")
        return f"{item}:{part}"

    @server.prompt(description="Greets.")
    def greet(name: str, polite: str = "yes") -> str:
        """Unused docstring.

        Args:
            name: Who to greet.
        """
        return f"Hello {name}" + ("!" if polite == "yes" else "")

    @server.prompt()
    async def dialog(topic: str) -> list[Any]:
        return [("user", f"Tell me about {topic}"), {"role": "assistant", "content": "Sure."}]

    @server.completion()
    def complete(ref: dict[str, Any], argument: str, value: str) -> list[str]:
        return [v for v in ("alpha", "beta", "alphabet") if v.startswith(value)]

    return server


async def test_lists_and_initialize() -> None:
    async with Client.memory(make_server()) as client:
        info = client.server_info
        assert info["serverInfo"] == {"name": "test", "version": "1.2.3"}
        assert info["instructions"] == "Be nice."
        assert set(info["capabilities"]) >= {"tools", "resources", "prompts", "completions", "logging"}
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["summed"]["outputSchema"]["required"] == ["sum"]
        assert tools["number"]["outputSchema"]["properties"] == {"result": {"type": "integer"}}
        assert "outputSchema" not in tools["untyped"]
        resources = await client.list_resources()
        assert [r["uri"] for r in resources] == ["test://static", "test://json", "test://bin"]
        assert resources[0]["mimeType"] == "text/markdown"
        templates = await client.list_resource_templates()
        assert templates == [{"uriTemplate": "test://items/{item}/{part}", "name": "item"}]
        prompts = {p["name"]: p for p in await client.list_prompts()}
        assert prompts["greet"]["description"] == "Greets."
        assert prompts["greet"]["arguments"] == [
            {"name": "name", "required": True, "description": "Who to greet."},
            {"name": "polite", "required": False},
        ]
        await client.ping()


async def test_tool_return_conversions() -> None:
    async with Client.memory(make_server()) as client:
        await client.list_tools()
        assert await client.call_tool("text") == {
            "content": [{"type": "text", "text": "hello"}],
            "structuredContent": {"result": "hello"},
        }
        number = await client.call_tool("number", {"x": 21})
        assert number["structuredContent"] == {"result": 42}
        assert number["content"] == [{"type": "text", "text": "42"}]
        assert await client.call_tool("untyped", {"x": 2}) == {"content": [{"type": "text", "text": "4"}]}
        summed = await client.call_tool("summed", {"a": 1, "b": 2})
        assert summed["structuredContent"] == {"sum": 3}
        assert json.loads(summed["content"][0]["text"]) == {"sum": 3}
        assert (await client.call_tool("pair"))["structuredContent"] == {"left": 1, "right": 2}
        assert (await client.call_tool("model"))["structuredContent"] == {"name": "m", "size": 3}
        assert (await client.call_tool("mapping"))["structuredContent"] == {"a": 1}
        blocks = (await client.call_tool("blocks"))["content"]
        assert [b["type"] for b in blocks] == ["text", "image", "audio", "text"]
        assert base64.b64decode(blocks[1]["data"]) == b"\x89PNG"
        assert blocks[2]["mimeType"] == "audio/wav"
        raw = (await client.call_tool("raw_bytes"))["content"][0]
        assert raw["type"] == "resource"
        assert base64.b64decode(raw["resource"]["blob"]) == b"\x00\x01"
        assert await client.call_tool("passthrough") == {
            "content": [{"type": "text", "text": "as is"}],
            "isError": False,
        }
        assert await client.call_tool("nothing") == {"content": []}


async def test_exceptions() -> None:
    async with Client.memory(make_server()) as client:
        assert await client.call_tool("fails") == {"content": [{"type": "text", "text": "it broke"}], "isError": True}
        with pytest.raises(InvalidParams) as caught:
            await client.call_tool("rejects", {"x": 2})
        assert (caught.value.code, caught.value.message, caught.value.data) == (-32602, "x must be odd", {"x": 2})
        invalid = await client.call_tool("number", {"x": "not a number"})
        assert invalid["isError"] is True
        with pytest.raises(McpError):
            await client.call_tool("no-such-tool")
        with pytest.raises(ResourceNotFound) as missing:
            await client.read_resource("test://items/missing/x")
        assert missing.value.code == -32002
        with pytest.raises(McpError):
            await client.get_prompt("no-such-prompt")


async def test_capabilities_follow_registrations() -> None:
    server = Server("bare")

    @server.tool()
    def only() -> str:
        return "x"

    async with Client.memory(server) as client:
        with pytest.raises(CapabilityMissing):
            await client.list_prompts()
        with pytest.raises(CapabilityMissing):
            await client.complete({"type": "ref/prompt", "name": "p"}, "a", "")


async def test_resources() -> None:
    async with Client.memory(make_server()) as client:
        static = await client.read_resource("test://static")
        assert static == {"contents": [{"uri": "test://static", "mimeType": "text/markdown", "text": "# hi"}]}
        as_json = (await client.read_resource("test://json"))["contents"][0]
        assert (as_json["mimeType"], json.loads(as_json["text"])) == ("application/json", {"a": 1})
        blob = (await client.read_resource("test://bin"))["contents"][0]
        assert base64.b64decode(blob["blob"]) == b"\xff"
        item = (await client.read_resource("test://items/cup/handle"))["contents"][0]
        assert (item["uri"], item["text"]) == ("test://items/cup/handle", "cup:handle")


async def test_prompts_and_completion() -> None:
    async with Client.memory(make_server()) as client:
        greeting = await client.get_prompt("greet", {"name": "Ann"})
        assert greeting == {
            "description": "Greets.",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hello Ann!"}}],
        }
        dialog = await client.get_prompt("dialog", {"topic": "cats"})
        assert [m["role"] for m in dialog["messages"]] == ["user", "assistant"]
        assert dialog["messages"][1]["content"] == {"type": "text", "text": "Sure."}
        with pytest.raises(InvalidParams):
            await client.get_prompt("greet", {})
        completed = await client.complete({"type": "ref/prompt", "name": "greet"}, "name", "alp")
        assert completed["completion"]["values"] == ["alpha", "alphabet"]
        assert completed["completion"]["total"] == 2


async def test_sync_handlers_run_in_parallel_off_the_loop() -> None:
    server = Server("parallel")
    barrier = threading.Barrier(2, timeout=20)

    @server.tool()
    def meet() -> str:
        barrier.wait()  # Returns only when both calls are running at once.
        return threading.current_thread().name

    async with Client.memory(server) as client:
        calls = asyncio.gather(client.call_tool("meet"), client.call_tool("meet"))
        await client.ping()  # The loop stays free while both sync handlers block.
        first, second = await asyncio.wait_for(calls, timeout=30)
        assert not first.get("isError") and not second.get("isError")


async def test_sync_handler_threads_keep_their_thread_locals() -> None:
    # Sync handlers run on long-lived threads that keep their Python thread state between
    # calls, so a per-thread cache (a database connection, say) survives from call to call.
    server = Server("thread-locals")
    local = threading.local()

    @server.tool()
    def count() -> int:
        local.calls = getattr(local, "calls", 0) + 1
        return local.calls

    async with Client.memory(server) as client:
        seen = [(await client.call_tool("count"))["structuredContent"]["result"] for _ in range(20)]
    assert max(seen) >= 2, seen


async def test_registrations_can_change_while_connected() -> None:
    server = Server("dynamic")
    changes: list[str] = []

    @server.tool()
    def one() -> str:
        return "1"

    async with Client.memory(server, on_list_changed=changes.append) as client:
        assert [t["name"] for t in await client.list_tools()] == ["one"]

        @server.tool()
        def two() -> str:
            return "2"

        assert server.remove_tool("one")
        assert [t["name"] for t in await client.list_tools()] == ["two"]
        for _ in range(500):
            if len(changes) >= 2:
                break
            await asyncio.sleep(0.01)
        assert changes[:2] == ["notifications/tools/list_changed"] * 2
