"""Context: progress, logging, sampling, elicitation, roots and cancellation."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Optional

import pytest

from mcpweft import Client, Context, RequestTimeout, Server
from mcpweft.types import LogMessage


async def eventually(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def test_progress_and_logging() -> None:
    server = Server("ctx")

    @server.tool()
    async def work(steps: int, ctx: Context) -> str:
        for i in range(1, steps + 1):
            ctx.report_progress(i, steps, f"step {i}")
            ctx.debug({"step": i}, logger="work")
        ctx.info("done")
        return f"{ctx.request_id}:{(ctx.client_info or {}).get('name')}"

    @server.tool()
    def sync_work(ctx: Context) -> str:
        ctx.report_progress(0.5)
        ctx.warning("from a thread")
        return "ok"

    logs: list[LogMessage] = []
    progress: list[tuple[float, Optional[float], Optional[str]]] = []

    async def on_progress(p: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((p, total, message))

    async with Client.memory(server, logging_handler=logs.append) as client:
        result = await client.call_tool("work", {"steps": 3})
        request_id, client_name = result["content"][0]["text"].split(":")
        assert client_name == "mcpweft-python"
        # Notifications reach their handler in order, but may come after the call's result.
        await eventually(lambda: len(logs) >= 1)
        assert [m["data"] for m in logs] == ["done"]  # Debug is below the default level.

        await client.set_logging_level("debug")
        logs.clear()
        await client.call_tool("work", {"steps": 2}, progress=on_progress)
        await eventually(lambda: len(progress) == 2)
        assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
        await eventually(lambda: len(logs) == 3)
        assert [(m["level"], m.get("logger"), m["data"]) for m in logs] == [
            ("debug", "work", {"step": 1}),
            ("debug", "work", {"step": 2}),
            ("info", None, "done"),
        ]

        progress.clear()
        assert (await client.call_tool("sync_work", progress=lambda p, t, m: progress.append((p, t, m))))["content"][0][
            "text"
        ] == "ok"
        await eventually(lambda: progress == [(0.5, None, None)])
        await eventually(lambda: logs[-1]["data"] == "from a thread")


async def test_progress_must_increase() -> None:
    server = Server("ctx")

    @server.tool()
    def backwards(ctx: Context) -> str:
        ctx.report_progress(2)
        ctx.report_progress(1)
        return "unreachable"

    async with Client.memory(server) as client:
        result = await client.call_tool("backwards", progress=lambda p, t, m: None)
        assert result["isError"] is True
        assert "progress must increase" in result["content"][0]["text"]


async def test_sampling_elicitation_and_roots() -> None:
    server = Server("asks")

    @server.tool()
    async def ask(ctx: Context) -> dict[str, Any]:
        sampled = await ctx.sample("What is 2+2?", max_tokens=5, system_prompt="Be brief.")
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        roots = await ctx.list_roots()
        return {"sampled": sampled["content"], "answer": answer, "roots": [r["uri"] for r in roots]}

    seen: dict[str, Any] = {}

    async def sampling(params: dict[str, Any]) -> str:
        seen["sampling"] = params
        return "4"

    def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        seen["elicitation"] = params
        return {"name": "Ann"}

    roots = [{"uri": "file:///work", "name": "work"}]
    async with Client.memory(server, sampling_handler=sampling, elicitation_handler=elicitation, roots=roots) as c:
        result = await c.call_tool("ask")
        assert result["structuredContent"] == {
            "sampled": {"type": "text", "text": "4"},
            "answer": {"action": "accept", "content": {"name": "Ann"}},
            "roots": ["file:///work"],
        }
    assert seen["sampling"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "What is 2+2?"}}]
    assert (seen["sampling"]["maxTokens"], seen["sampling"]["systemPrompt"]) == (5, "Be brief.")
    assert seen["elicitation"]["message"] == "Your name?"


async def test_async_roots_provider_and_missing_capabilities() -> None:
    server = Server("asks")

    @server.tool()
    async def roots(ctx: Context) -> list[str]:
        return [r["uri"] for r in await ctx.list_roots()]

    @server.tool()
    async def sample(ctx: Context) -> str:
        await ctx.sample("hi")
        return "unreachable"

    async def provide() -> list[dict[str, str]]:
        return [{"uri": "file:///a"}]

    async with Client.memory(server, roots=provide) as client:
        listed = await client.call_tool("roots")
        assert listed["structuredContent"] == {"result": ["file:///a"]}
        failed = await client.call_tool("sample")
        assert failed["isError"] is True
    async with Client.memory(server) as client:
        failed = await client.call_tool("roots")
        assert failed["isError"] is True
        assert "roots" in failed["content"][0]["text"]


async def test_client_cancellation_cancels_the_async_handler() -> None:
    server = Server("cancel")
    started = asyncio.Event()
    outcome: list[str] = []

    @server.tool()
    async def slow(ctx: Context) -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            outcome.append(f"cancelled, is_cancelled={ctx.is_cancelled}")
            raise
        return "finished"

    async with Client.memory(server) as client:
        call = asyncio.ensure_future(client.call_tool("slow"))
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: bool(outcome))
        assert outcome == ["cancelled, is_cancelled=True"]

        started.clear()
        with pytest.raises(RequestTimeout):
            await client.call_tool("slow", timeout=0.2)
        await eventually(lambda: len(outcome) == 2)
        await client.ping()


async def test_sync_handler_sees_cancellation() -> None:
    server = Server("cancel")
    running = threading.Event()
    saw: list[bool] = []

    @server.tool()
    def poll(ctx: Context) -> str:
        running.set()
        for _ in range(2000):
            if ctx.is_cancelled:
                saw.append(True)
                break
            threading.Event().wait(0.005)
        return "done"

    async with Client.memory(server) as client:
        with pytest.raises(RequestTimeout):
            await client.call_tool("poll", timeout=0.3)
        await eventually(lambda: saw == [True])
    assert running.is_set()
