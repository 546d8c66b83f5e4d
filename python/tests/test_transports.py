"""The calculator example over stdio and Streamable HTTP, and the blocking-call guard."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from mcpweft import Client, ConfigError, Context, InvalidParams, ResourceNotFound, Server, TransportClosed
from mcpweft.types import LogMessage

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


async def exercise_calculator(client: Client) -> None:
    assert client.server_info["serverInfo"]["name"] == "calculator"
    assert [t["name"] for t in await client.list_tools()] == ["add", "divide", "count"]
    assert (await client.call_tool("add", {"a": 2, "b": 3}))["structuredContent"] == {"sum": 5}
    failed = await client.call_tool("divide", {"a": 1, "b": 0})
    assert failed == {"content": [{"type": "text", "text": "division by zero"}], "isError": True}
    progress: list[float] = []

    def on_progress(p: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append(p)

    counted = await client.call_tool("count", {"n": 3}, progress=on_progress)
    assert counted["content"][0]["text"] == "counted to 3"
    for _ in range(500):
        if len(progress) == 3:
            break
        await asyncio.sleep(0.01)
    assert progress == [1, 2, 3]
    constants = await client.read_resource("calc://constants")
    assert '"pi"' in constants["contents"][0]["text"]
    assert (await client.read_resource("calc://constants/e"))["contents"][0]["text"].startswith("2.718")
    with pytest.raises(ResourceNotFound):
        await client.read_resource("calc://constants/tau")
    prompt = await client.get_prompt("explain", {"expression": "2+3"})
    assert prompt["messages"][0]["content"]["text"] == "Explain step by step how to compute 2+3."
    completion = await client.complete({"type": "ref/resource", "uri": "calc://constants/{name}"}, "name", "p")
    assert completion["completion"]["values"] == ["pi"]


async def test_calculator_over_stdio(calculator_command: list[str]) -> None:
    logs: list[LogMessage] = []
    async with Client.stdio(calculator_command, logging_handler=logs.append) as client:
        await exercise_calculator(client)
        await client.ping()
    assert [m["data"] for m in logs] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]


async def test_client_example_runs(calculator_command: list[str]) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLES / "client.py"), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0] == "connected to calculator 0.1.0 (protocol 2025-11-25)"
    assert "add(2, 3) = 5" in lines
    # Log notifications may be printed after later results, so only membership is checked.
    assert "prompt explain: Explain step by step how to compute 2+3." in lines
    assert "log info: step 3 of 3" in lines, err.decode()


async def test_in_process_http() -> None:
    from calculator import server

    http = await server.serve_http(port=0)
    assert http.url.startswith("http://127.0.0.1:") and http.url.endswith("/mcp")
    try:
        async with Client.http(http.url) as client:
            await exercise_calculator(client)
    finally:
        await http.close()
    await http.wait()


async def test_example_served_over_http(calculator_command: list[str], free_port: int) -> None:
    process = await asyncio.create_subprocess_exec(
        *calculator_command, "--http", str(free_port), stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert process.stderr is not None
        line = await asyncio.wait_for(process.stderr.readline(), timeout=30)
        url = line.decode().strip().removeprefix("serving MCP at ")
        assert url == f"http://127.0.0.1:{free_port}/mcp"
        async with Client.http(url) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 1}))["structuredContent"] == {"sum": 2}
    finally:
        process.terminate()
        await process.wait()


async def test_blocking_run_inside_a_loop_is_refused() -> None:
    server = Server("guarded")
    with pytest.raises(ConfigError, match="asyncio event loop"):
        server.run()


def test_run_rejects_unknown_transport() -> None:
    with pytest.raises(ValueError, match="unknown transport"):
        Server("x").run(transport="carrier-pigeon")


async def test_async_handlers_run_on_the_serving_loop() -> None:
    server = Server("loops")
    loops: list[asyncio.AbstractEventLoop] = []

    @server.tool()
    async def where(ctx: Context) -> str:
        loops.append(asyncio.get_running_loop())
        return "here"

    http = await server.serve_http(port=0)
    async with http, Client.http(http.url) as client:
        await client.call_tool("where")
    assert loops == [asyncio.get_running_loop()]


async def test_errors_over_http() -> None:
    server = Server("errors")

    @server.tool()
    def strict(x: int) -> int:
        raise InvalidParams("bad x")

    http = await server.serve_http(port=0)
    async with http:
        async with Client.http(http.url) as client:
            with pytest.raises(InvalidParams) as caught:
                await client.call_tool("strict", {"x": 1})
            assert caught.value.code == -32602


PLAIN_SERVER = """
import sys

from mcpweft import Server

server = Server("plain")


@server.tool()
def modules() -> str:
    '''Says whether asyncio was imported.'''
    print("this goes to stderr")
    return "asyncio" if "asyncio" in sys.modules else "no asyncio"


server.run()
"""


async def test_a_plain_stdio_server_runs_without_asyncio(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text(PLAIN_SERVER)
    async with Client.stdio([sys.executable, str(script)]) as client:
        assert (await client.call_tool("modules", {}))["content"] == [{"type": "text", "text": "no asyncio"}]
        assert (await client.call_tool("modules", {}))["content"][0]["text"] == "no asyncio"


async def test_stdio_server_that_exits(tmp_path: Path) -> None:
    script = tmp_path / "quits.py"
    script.write_text("import sys\nsys.exit(0)\n")
    with pytest.raises((TransportClosed, OSError)):
        async with Client.stdio([sys.executable, str(script)]):
            pass


CRASHING_SERVER = """
import json, sys
request = json.loads(sys.stdin.readline())
info = {"name": "crash", "version": "1"}
result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.stdin.readline()
sys.stderr.write("fatal: the database is gone\\n")
sys.exit(3)
"""


async def test_on_close_hears_how_a_stdio_server_ended(tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_SERVER)
    heard: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    async def on_close(info: dict[str, object]) -> None:
        await heard.put(info)

    message = (
        "transport closed: the server process exited with code 3; its stderr ended with:\nfatal: the database is gone"
    )
    async with Client.stdio([sys.executable, str(script)], on_close=on_close) as client:
        info = await asyncio.wait_for(heard.get(), 10)
        assert info == {
            "reason": "disconnected",
            "message": message,
            "exitCode": 3,
            "stderr": "fatal: the database is gone",
        }
        with pytest.raises(TransportClosed) as raised:
            await client.list_tools()
        assert str(raised.value) == message


async def test_on_close_hears_a_close_of_this_side() -> None:
    server = Server("closing")
    heard: list[dict[str, object]] = []

    async def on_close(info: dict[str, object]) -> None:
        heard.append(info)

    async with Client.memory(server, on_close=on_close):
        assert heard == []
    for _ in range(500):
        if heard:
            break
        await asyncio.sleep(0.01)
    assert heard == [{"reason": "closed", "message": "the client closed the connection"}]
