"""Tasks on both sides, sampling with tools, URL-mode elicitation, and the client's raw
requests, notifications, time-outs and sync-handler limit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import mcpweft
from mcpweft import Client, ConfigError, Context, Host, InvalidParams, McpError, RequestTimeout, Server


async def eventually(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def task_server(release: asyncio.Event) -> Server:
    server = Server("tasks", tasks=True)

    @server.tool(task_support="optional")
    async def slow(n: int) -> int:
        await release.wait()
        return n * 2

    @server.tool(task_support="required")
    async def forever() -> str:
        await asyncio.sleep(60)
        return "never"

    @server.tool()
    def plain() -> str:
        return "plain"

    return server


async def test_tools_run_as_tasks() -> None:
    release = asyncio.Event()
    statuses: list[dict[str, Any]] = []
    async with Client.memory(task_server(release), on_task_status=statuses.append) as client:
        assert client.server_info["capabilities"]["tasks"]["requests"]["tools"]["call"] == {}
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["slow"]["execution"] == {"taskSupport": "optional"}
        task = await client.call_tool_as_task("slow", {"n": 21}, ttl=60)
        assert task["status"] == "working"
        assert (await client.get_task(task["taskId"]))["status"] == "working"
        assert [t["taskId"] for t in await client.list_tasks()] == [task["taskId"]]
        release.set()
        result = await client.task_result(task["taskId"])
        assert result["structuredContent"] == {"result": 42}
        await eventually(lambda: any(s["status"] == "completed" for s in statuses))
        assert (await client.call_tool("slow", {"n": 1}))["structuredContent"] == {"result": 2}

        endless = await client.call_tool_as_task("forever")
        cancelled = await client.cancel_task(endless["taskId"])
        assert cancelled["status"] == "cancelled"
        with pytest.raises(McpError, match="must be called as a task"):
            await client.call_tool("forever")
        with pytest.raises(McpError, match="cannot be called as a task"):
            await client.call_tool_as_task("plain")


def test_task_support_needs_a_task_server() -> None:
    server = Server("no tasks")
    with pytest.raises(ValueError, match="task support"):

        @server.tool(task_support="optional")
        def work() -> str:
            return ""


async def test_sampling_with_tools_and_tool_choice() -> None:
    server = Server("agent")
    weather = {"name": "weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}

    @server.tool()
    async def plan(ctx: Context) -> dict[str, Any]:
        result = await ctx.sample("Weather in Paris?", tools=[weather], tool_choice={"mode": "required"})
        return {"content": result["content"], "stop": result.get("stopReason")}

    seen: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        use = {"type": "tool_use", "id": "call-1", "name": "weather", "input": {"city": "Paris"}}
        return {"role": "assistant", "content": [use], "model": "test", "stopReason": "toolUse"}

    async with Client.memory(server, sampling_handler=model, sampling_tools=True) as client:
        result = await client.call_tool("plan")
        assert result["structuredContent"]["stop"] == "toolUse"
        assert result["structuredContent"]["content"][0]["name"] == "weather"
    assert seen[0]["tools"] == [weather]
    assert seen[0]["toolChoice"] == {"mode": "required"}

    async with Client.memory(server, sampling_handler=model) as client:
        refused = await client.call_tool("plan")
        assert refused["isError"] is True
        assert "tools" in refused["content"][0]["text"]


async def test_url_elicitation_and_its_completion() -> None:
    server = Server("browser")

    @server.tool()
    async def connect(ctx: Context) -> str:
        answer = await ctx.elicit_url("Sign in, please.", "https://example.com/login", "login-1")
        ctx.notify_elicitation_complete("login-1")
        return answer["action"]

    asked: list[dict[str, Any]] = []
    completed: list[str] = []

    def browser(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    async with Client.memory(
        server, elicitation_handler=browser, elicitation_modes=("url",), on_elicitation_complete=completed.append
    ) as client:
        assert (await client.call_tool("connect"))["content"][0]["text"] == "accept"
        await eventually(lambda: completed == ["login-1"])
    assert (asked[0]["mode"], asked[0]["url"], asked[0]["elicitationId"]) == (
        "url",
        "https://example.com/login",
        "login-1",
    )
    async with Client.memory(server, elicitation_handler=browser) as client:
        assert (await client.call_tool("connect"))["isError"] is True
    with pytest.raises(ValueError, match="elicitation modes"):
        Client.memory(server, elicitation_handler=browser, elicitation_modes=("telepathy",))


async def test_url_elicitation_required_error() -> None:
    server = Server("gate")
    needed = {"elicitations": [{"mode": "url", "message": "Pay", "url": "https://x", "elicitationId": "p"}]}

    @server.tool()
    def gated() -> str:
        raise mcpweft.UrlElicitationRequired("payment first", needed)

    async with Client.memory(server) as client:
        with pytest.raises(mcpweft.UrlElicitationRequired) as caught:
            await client.call_tool("gated")
    assert (caught.value.code, caught.value.data) == (-32042, needed)


async def test_client_identity_raw_requests_and_notifications() -> None:
    server = Server("raw")
    seen: list[Any] = []

    @server.tool()
    async def who(ctx: Context) -> dict[str, Any]:
        return {"client": ctx.client_info, "protocol": ctx.protocol_version, "meta": ctx.meta}

    @server.tool()
    def tidy() -> str:
        server.remove_tool("tidy")
        return "removed"

    heard: list[tuple[str, Any]] = []

    async def on_notification(method: str, params: Any) -> None:
        heard.append((method, params))

    async with Client.memory(
        server,
        name="probe",
        version="9.9",
        title="Probe",
        protocol_version="2025-06-18",
        on_notification=on_notification,
        on_list_changed=seen.append,
    ) as client:
        assert client.protocol_version == "2025-06-18"
        result = await client.call_tool("who", meta={"trace": "t1"})
        info = result["structuredContent"]
        assert info["client"] == {"name": "probe", "version": "9.9", "title": "Probe"}
        assert info["protocol"] == "2025-06-18"
        assert info["meta"]["trace"] == "t1"
        listed = await client.request("tools/list", {})
        assert [t["name"] for t in listed["tools"]] == ["who", "tidy"]
        assert await client.request("ping") == {}
        with pytest.raises(McpError) as unknown:
            await client.request("no/such/method")
        assert unknown.value.code == -32601
        await client.call_tool("tidy")
        await eventually(lambda: ("notifications/tools/list_changed", {}) in heard)
        assert seen == ["notifications/tools/list_changed"]
        client.notify("notifications/custom", {"x": 1})
        await client.ping()


async def test_every_request_takes_a_timeout() -> None:
    server = Server("slow")
    gate = asyncio.Event()

    @server.resource("test://slow")
    async def slow() -> str:
        await gate.wait()
        return "done"

    @server.prompt()
    async def slow_prompt() -> str:
        await gate.wait()
        return "done"

    async with Client.memory(server) as client:
        with pytest.raises(RequestTimeout):
            await client.read_resource("test://slow", timeout=0.1)
        with pytest.raises(RequestTimeout):
            await client.get_prompt("slow_prompt", timeout=0.1)
        with pytest.raises(RequestTimeout):
            await client.request("resources/read", {"uri": "test://slow"}, timeout=0.1)
        gate.set()
        await client.ping(timeout=5)
    async with Client.memory(server, timeout=0.1) as client:
        gate.clear()
        with pytest.raises(RequestTimeout):
            await client.read_resource("test://slow")
        gate.set()


async def test_handler_errors_keep_their_code() -> None:
    server = Server("errors")

    @server.prompt()
    def strict(x: str) -> str:
        raise InvalidParams("x is wrong", {"x": x})

    @server.prompt()
    def local() -> str:
        raise RequestTimeout("inner call timed out")

    async with Client.memory(server) as client:
        with pytest.raises(InvalidParams) as caught:
            await client.get_prompt("strict", {"x": "1"})
        assert caught.value.data == {"x": "1"}
        with pytest.raises(mcpweft.InternalError, match="inner call timed out"):
            await client.get_prompt("local")


def test_sync_handler_limit() -> None:
    before = mcpweft.sync_handler_limit()
    try:
        mcpweft.set_sync_handler_limit(8)
        assert mcpweft.sync_handler_limit() == 8
        mcpweft.set_sync_handler_limit(0)
        assert mcpweft.sync_handler_limit() == 1
    finally:
        mcpweft.set_sync_handler_limit(before)


async def test_a_host_runs_tool_calls_as_tasks_on_the_server_that_offers_them(free_port: int) -> None:
    release = asyncio.Event()
    async with await task_server(release).serve_http(port=free_port) as http:
        async with Host.connect({"jobs": {"type": "http", "url": http.url}}) as host:
            task = await host.call_tool_as_task("jobs__slow", {"n": 21}, ttl=60)
            assert task["server"] == "jobs"
            assert task["status"] == "working"
            assert (await host.get_task("jobs", task["taskId"]))["status"] == "working"
            release.set()
            result = await host.task_result("jobs", task["taskId"])
            assert result["structuredContent"] == {"result": 42}

            endless = await host.call_tool_as_task("jobs__forever")
            cancelled = await host.cancel_task(endless["server"], endless["taskId"])
            assert cancelled["status"] == "cancelled"
            with pytest.raises(McpError, match="cannot be called as a task"):
                await host.call_tool_as_task("jobs__plain")
            with pytest.raises(ConfigError):
                await host.get_task("nobody", task["taskId"])
