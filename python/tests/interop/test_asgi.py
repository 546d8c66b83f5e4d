"""``Server.asgi_app()`` under uvicorn, alone and mounted in Starlette, driven by the official
MCP Python SDK's client and by mcpweft's own."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from mcpweft import Client, Server
from mcpweft.cli import load_server

from .helpers import CALCULATOR, CALL_TIMEOUT
from .test_official_client import Recorder, exercise_calculator, session_over


def calculator() -> Server:
    """A fresh calculator server, loaded from the example file."""
    return load_server(str(CALCULATOR))


async def http_status(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POSTs ``body`` and returns the status code, off the loop."""

    def post() -> int:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=CALL_TIMEOUT) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            error.close()
            return int(error.code)

    return await asyncio.to_thread(post)


async def http_get_text(url: str) -> str:
    def get() -> str:
        with urllib.request.urlopen(url, timeout=CALL_TIMEOUT) as response:
            return str(response.read().decode())

    return await asyncio.to_thread(get)


@contextlib.asynccontextmanager
async def uvicorn_serving(app: Any, port: int) -> AsyncIterator[str]:
    """Serves ``app`` with uvicorn on 127.0.0.1:``port`` in this loop; yields the base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    task = asyncio.ensure_future(server.serve())
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, CALL_TIMEOUT)


async def test_the_official_client_over_uvicorn(free_port: int) -> None:
    server = calculator()
    recorder = Recorder()
    async with uvicorn_serving(server.asgi_app(), free_port) as base:
        async with streamable_http_client(f"{base}/mcp") as streams, session_over(streams, recorder) as session:
            await exercise_calculator(session, recorder)


async def test_mounted_in_starlette_beside_other_routes(free_port: int) -> None:
    server = calculator()

    async def health(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/health", health), Mount("/tools", app=server.asgi_app(json_response=False))])
    async with uvicorn_serving(app, free_port) as base:
        assert await http_get_text(f"{base}/health") == "ok"
        assert await http_status(f"{base}/mcp", b"{}", {}) == 404
        progress: list[float] = []
        async with Client.http(f"{base}/tools/mcp") as client:
            result = await client.call_tool("count", {"n": 3}, progress=lambda p, total, message: progress.append(p))
            assert result["content"][0]["text"] == "counted to 3"
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert added["structuredContent"] == {"sum": 5}
        assert progress == [1, 2, 3]


async def test_bodies_over_the_limit_and_foreign_hosts_are_refused(free_port: int) -> None:
    server = calculator()
    app = server.asgi_app(max_body_size=1024)
    async with uvicorn_serving(app, free_port) as base:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        assert await http_status(f"{base}/mcp", b"x" * 4096, headers) == 413
        foreign = await http_status(f"{base}/mcp", b"{}", headers | {"host": "evil.example"})
        assert foreign in (403, 421), foreign
