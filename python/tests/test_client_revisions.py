"""The client's calls work the same against a server of either revision: ``ping``,
``subscribe``/``unsubscribe``, ``set_logging_level`` and list changes (2026-07-28 has no ``ping``,
``resources/subscribe`` or ``logging/setLevel``: the bridge sends ``server/discover``, opens a
``subscriptions/listen`` stream and puts the level in ``_meta``)."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import pytest

from mcpweft import Client, Context, Server


async def _until(condition: Callable[[], bool]) -> None:
    """Waits, at most five seconds, until ``condition()`` holds."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_ping_subscriptions_log_level_and_list_changes(version: str) -> None:
    server = Server("calls")

    @server.resource("test://note")
    def note() -> str:
        return "hi"

    @server.tool()
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning", "error"):
            ctx.log(level, level)  # type: ignore[arg-type]
        return "logged"

    @server.tool()
    def spare() -> str:
        return ""

    updated: list[str] = []
    levels: list[str] = []
    changed: list[str] = []

    def on_log(message: Any) -> None:
        levels.append(message["level"])

    async with Client.memory(
        server,
        protocol_version=version,
        on_resource_updated=updated.append,
        logging_handler=on_log,
        on_list_changed=changed.append,
    ) as client:
        assert client.protocol_version == version
        await client.ping(timeout=5)

        await client.subscribe("test://note")
        server.notify_resource_updated("test://note")
        await _until(lambda: updated == ["test://note"])
        await client.unsubscribe("test://note")

        await client.set_logging_level("warning")
        result = await client.call_tool("chatty")
        assert result["content"][0]["text"] == "logged"
        # The logs come in order: any below the level would come before the error.
        await _until(lambda: "error" in levels)
        assert levels == ["warning", "error"]

        server.notify_resource_updated("test://note")
        server.remove_tool("spare")
        await _until(lambda: changed == ["notifications/tools/list_changed"])
        # The update sent after unsubscribing, before the list change, was never heard.
        assert updated == ["test://note"]


async def test_bad_call_options_are_refused_by_the_bridge() -> None:
    server = Server("options")

    @server.tool()
    def echo() -> str:
        return "ok"

    async with Client.memory(server) as client:
        with pytest.raises(ValueError, match="timeoutMs"):
            await client.call_tool("echo", timeout=-1)
        with pytest.raises(ValueError, match="meta"):
            await client.call_tool("echo", meta=[1])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="task"):
            await client.call_tool_as_task("echo", ttl=-5)
        with pytest.raises(ValueError, match="timeoutMs"):
            await client.ping(timeout=1e300)
        assert (await client.call_tool("echo", timeout=5, meta={"trace": "t1"}))["content"][0]["text"] == "ok"
