"""The client's calls work the same against a server of either revision: ``ping``,
``subscribe``/``unsubscribe``, ``set_logging_level`` and list changes (2026-07-28 has no ``ping``,
``resources/subscribe`` or ``logging/setLevel``: the bridge sends ``server/discover``, opens a
``subscriptions/listen`` stream and puts the level in ``_meta``)."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import pytest

from mcpweft import CapabilityMissing, Client, Context, Server


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


def watched_server() -> Server:
    """A server with two tools (it offers tools while one is left) and a resource."""
    server = Server("watched")

    @server.resource("test://note")
    def note() -> str:
        return "hi"

    @server.tool()
    def first() -> str:
        return "first"

    @server.tool()
    def kept() -> str:
        return "kept"

    return server


async def test_listen_iterates_over_its_stream_and_closes_it_when_the_iteration_stops() -> None:
    server = watched_server()
    updated: list[str] = []
    async with Client.memory(server, protocol_version="2026-07-28", on_resource_updated=updated.append) as client:
        subscription = await client.listen(
            tools_list_changed=True, prompts_list_changed=True, resources=["test://note"]
        )
        # Prompts are not offered: the acknowledgment leaves them out.
        assert subscription.acknowledged == {"toolsListChanged": True, "resourceSubscriptions": ["test://note"]}
        server.notify_resource_updated("test://note")
        heard: list[Any] = []
        async for notification in subscription:
            heard.append(notification)
            if len(heard) == 1:
                server.remove_tool("first")
            else:
                break
        assert heard[0]["method"] == "notifications/resources/updated"
        assert heard[0]["params"]["uri"] == "test://note"
        assert heard[1]["method"] == "notifications/tools/list_changed"
        # The notifications reached the handlers as well.
        await _until(lambda: updated == ["test://note"])
        # Leaving the loop closed the stream: iterating again ends at once.
        async for notification in subscription:
            raise AssertionError(f"heard {notification} after the stream was closed")

        async with client.listen(resources=["test://note"]) as scoped:
            assert scoped.acknowledged == {"resourceSubscriptions": ["test://note"]}
            server.notify_resource_updated("test://note")
            async for notification in scoped:
                assert notification["params"]["uri"] == "test://note"
                break
        await _until(lambda: updated == ["test://note", "test://note"])
        # The block closed its stream: a later update reaches no handler.
        server.notify_resource_updated("test://note")
        await client.ping()
        await asyncio.sleep(0.1)
        assert updated == ["test://note", "test://note"]


async def test_a_subscription_ends_with_its_connection_and_an_older_server_has_none() -> None:
    server = watched_server()
    async with Client.memory(server, protocol_version="2026-07-28") as client:
        subscription = await client.listen(resources=["test://note"])
        waiting = asyncio.ensure_future(subscription.__aiter__().__anext__())
        await asyncio.sleep(0.05)
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(waiting, 5)
    await subscription.close()

    async with Client.memory(server) as older:
        with pytest.raises(CapabilityMissing):
            await older.listen(tools_list_changed=True)
        with pytest.raises(CapabilityMissing):
            async for _ in older.listen(resources=["test://note"]):
                pass
