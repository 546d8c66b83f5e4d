"""Careless handlers fail their own call only: the server process and its other calls go on."""

from __future__ import annotations

import dataclasses
import enum
import math
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from mcpweft import Client, Context, Server


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


@dataclasses.dataclass
class Node:
    name: str
    next: Any = None


class Color(enum.Enum):
    RED = "red"


def make_server() -> Server:
    server = Server("careless")

    @server.tool()
    def deep(depth: int) -> dict[str, Any]:
        """Returns a value nested `depth` levels deep."""
        return nested(depth)

    @server.tool()
    def deep_list(depth: int) -> Any:
        value: Any = []
        for _ in range(depth):
            value = [value]
        return {"items": value}

    @server.tool()
    def itself() -> dict[str, Any]:
        loop: dict[str, Any] = {"name": "loop"}
        loop["self"] = loop
        return loop

    @server.tool()
    def list_itself() -> Any:
        loop: list[Any] = [1]
        loop.append(loop)
        return {"items": loop}

    @server.tool()
    def shared_twice() -> dict[str, Any]:
        shared = {"x": 1}
        return {"a": shared, "b": [shared, shared]}

    @server.tool()
    def shared_unfolding() -> dict[str, Any]:
        # Forty shared pairs: 2**40 values once unfolded into JSON.
        value: Any = [1]
        for _ in range(40):
            value = [value, value]
        return {"value": value}

    @server.tool()
    def dataclass_itself() -> dict[str, Any]:
        node = Node(name="loop")
        node.next = node
        return {"node": node}

    @server.tool()
    def odd_shapes() -> dict[str, Any]:
        return {"nodes": [Node(name="a", next=Node(name="b"))], "by_id": {1: "one", 2.5: Color.RED}}

    @server.tool()
    def not_a_number(which: str) -> dict[str, Any]:
        return {"value": {"nan": math.nan, "inf": math.inf}[which]}

    @server.tool()
    def huge_int() -> dict[str, Any]:
        return {"value": 2**70}

    @server.tool()
    async def logs_itself(ctx: Context) -> str:
        loop: dict[str, Any] = {}
        loop["loop"] = loop
        ctx.log("info", loop)
        return "logged"

    @server.tool()
    async def exits_async() -> str:
        raise SystemExit(3)

    @server.tool()
    async def interrupted_async() -> str:
        raise KeyboardInterrupt

    @server.tool()
    def exits_sync() -> str:
        raise SystemExit("bye")

    @server.tool()
    def interrupted_sync() -> str:
        raise KeyboardInterrupt

    @server.tool()
    def ping() -> str:
        return "pong"

    return server


def error_text(result: dict[str, Any]) -> str:
    assert result["isError"] is True, result
    return str(result["content"][0]["text"])


async def test_values_nested_too_deep_fail_their_call_only() -> None:
    async with Client.memory(make_server()) as client:
        for depth in (129, 1000, 100_000):
            text = error_text(await client.call_tool("deep", {"depth": depth}))
            assert "deeper" in text or "recursion" in text, text
            text = error_text(await client.call_tool("deep_list", {"depth": depth}))
            assert "deeper" in text or "recursion" in text, text
        ok = await client.call_tool("deep", {"depth": 100})
        assert ok.get("isError") is not True
        assert ok["structuredContent"] == nested(100)
        assert (await client.call_tool("ping"))["structuredContent"] == {"result": "pong"}


async def test_values_that_contain_themselves_fail_their_call_only() -> None:
    async with Client.memory(make_server()) as client:
        for tool in ("itself", "list_itself"):
            text = error_text(await client.call_tool(tool))
            assert "itself" in text or "recursion" in text or "ircular" in text, text
        shared = await client.call_tool("shared_twice")
        assert shared["structuredContent"] == {"a": {"x": 1}, "b": [{"x": 1}, {"x": 1}]}
        assert "contains itself" in error_text(await client.call_tool("logs_itself"))
        assert (await client.call_tool("ping"))["structuredContent"] == {"result": "pong"}


async def test_shared_values_that_unfold_past_the_limit_fail_their_call_only() -> None:
    async with Client.memory(make_server()) as client:
        text = error_text(await client.call_tool("shared_unfolding"))
        assert "more than 1048576 JSON values" in text, text
        assert (await client.call_tool("ping"))["structuredContent"] == {"result": "pong"}


async def test_values_without_a_json_shape_convert_in_the_same_bounded_walk() -> None:
    async with Client.memory(make_server()) as client:
        assert "contains itself" in error_text(await client.call_tool("dataclass_itself"))
        shapes = await client.call_tool("odd_shapes")
        assert shapes["structuredContent"] == {
            "nodes": [{"name": "a", "next": {"name": "b", "next": None}}],
            "by_id": {"1": "one", "2.5": "red"},
        }


async def test_numbers_json_cannot_hold_are_errors() -> None:
    async with Client.memory(make_server()) as client:
        for which in ("nan", "inf"):
            assert "not a JSON number" in error_text(await client.call_tool("not_a_number", {"which": which}))
        assert "64 bits" in error_text(await client.call_tool("huge_int"))


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("exits_async", "SystemExit: 3"),
        ("interrupted_async", "KeyboardInterrupt"),
        ("exits_sync", "bye"),
        ("interrupted_sync", "KeyboardInterrupt"),
    ],
)
async def test_exit_and_interrupt_in_a_handler_fail_its_call_only(tool: str, expected: str) -> None:
    async with Client.memory(make_server()) as client:
        assert expected in error_text(await client.call_tool(tool))
        assert (await client.call_tool("ping"))["structuredContent"] == {"result": "pong"}


RECURSION = textwrap.dedent(
    """
    import asyncio, sys
    from mcpweft import Client, Server

    server = Server("recursive")

    @server.tool()
    def recurse(depth: int, limit: int) -> int:
        # Each level goes through a C call (map), so it takes C stack as well as a Python frame.
        def down(n: int) -> int:
            return 0 if n == 0 else next(map(down, [n - 1])) + 1

        before = sys.getrecursionlimit()
        sys.setrecursionlimit(limit)
        try:
            return down(depth)
        finally:
            sys.setrecursionlimit(before)

    async def main() -> None:
        async with Client.memory(server) as client:
            deep = await client.call_tool("recurse", {"depth": 5000, "limit": 20000})
            print(deep["structuredContent"])
            over = await client.call_tool("recurse", {"depth": 5000, "limit": 1000})
            print(over["isError"], "recursion depth" in over["content"][0]["text"])

    asyncio.run(main())
    """
)


def test_a_sync_handler_recurses_as_deep_as_a_python_thread() -> None:
    # 5,000 levels through C frames, which a threading.Thread survives; a handler thread with a
    # 2 MiB stack died of SIGSEGV at 3,500. Past the recursion limit it is an error for the call.
    run = subprocess.run([sys.executable, "-c", RECURSION], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    assert run.stdout.splitlines() == ["{'result': 5000}", "True True"], run.stdout
