"""Every option of ``serve_http``, seen from raw HTTP exchanges, and the client's headers."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from typing import Any, Optional
from urllib.parse import urlsplit

import pytest

from mcpweft import Client, Context, McpError, Server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = "application/json, text/event-stream"


class Exchange:
    """One raw HTTP exchange: its status, headers and body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body


def exchange(url: str, method: str, body: Optional[Any] = None, headers: Optional[dict[str, str]] = None) -> Exchange:
    """Sends one request (blocking; run it in a thread) and reads its whole body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        data = body if isinstance(body, bytes) else (None if body is None else json.dumps(body).encode())
        sent = {"Accept": ACCEPT, "Content-Type": "application/json", **(headers or {})}
        connection.request(method, parts.path, body=data, headers=sent)
        response = connection.getresponse()
        return Exchange(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


async def send(url: str, method: str, body: Optional[Any] = None, **kwargs: Any) -> Exchange:
    return await asyncio.to_thread(exchange, url, method, body, **kwargs)


def echo_server() -> Server:
    server = Server("http-options")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def session(ctx: Context) -> str:
        return ctx.session_id or "none"

    return server


async def test_hosts_origins_and_body_size() -> None:
    http = await echo_server().serve_http(
        port=0,
        allowed_hosts=["mcp.example"],
        allowed_origins=["https://ok.example"],
        max_body_size=2048,
        max_buffered_body_bytes=1 << 20,
    )
    async with http:
        assert (await send(http.url, "POST", INITIALIZE)).status == 403  # Host 127.0.0.1 is not allowed.
        host = {"Host": "mcp.example"}
        assert (await send(http.url, "POST", INITIALIZE, headers=host)).status == 200
        bad_origin = {**host, "Origin": "https://bad.example"}
        assert (await send(http.url, "POST", INITIALIZE, headers=bad_origin)).status == 403
        good_origin = {**host, "Origin": "https://ok.example"}
        assert (await send(http.url, "POST", INITIALIZE, headers=good_origin)).status == 200
        assert (await send(http.url, "POST", b"x" * 4096, headers=host)).status == 413


async def test_sse_replies_retry_and_stateless_mode() -> None:
    http = await echo_server().serve_http(port=0, json_response=False, sse_retry=0.25, event_store_capacity=4)
    async with http:
        reply = await send(http.url, "POST", INITIALIZE)
        assert reply.headers["content-type"] == "text/event-stream"
        assert b"retry: 250" in reply.body
        assert "mcp-session-id" in reply.headers
    stateless = await echo_server().serve_http(port=0, stateful=False)
    async with stateless:
        reply = await send(stateless.url, "POST", INITIALIZE)
        assert reply.headers["content-type"].startswith("application/json")
        assert "mcp-session-id" not in reply.headers
        async with Client.http(stateless.url) as client:
            assert (await client.call_tool("echo", {"text": "hi"}))["content"][0]["text"] == "hi"
            assert (await client.call_tool("session"))["content"][0]["text"] == "none"
    stateful = await echo_server().serve_http(port=0)
    async with stateful, Client.http(stateful.url) as client:
        assert len((await client.call_tool("session"))["content"][0]["text"]) >= 16


async def test_session_idle_timeout_and_keep_alive() -> None:
    http = await echo_server().serve_http(port=0, session_idle_timeout=0.2, keep_alive=0.05)
    async with http:
        session = (await send(http.url, "POST", INITIALIZE)).headers["mcp-session-id"]
        headers = {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await send(http.url, "POST", initialized, headers=headers)).status == 202
        started = time.monotonic()
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        while time.monotonic() - started < 10:
            await asyncio.sleep(0.3)
            if (await send(http.url, "POST", ping, headers=headers)).status == 404:
                break
        else:
            pytest.fail("the idle session was never ended")
    keeping = await echo_server().serve_http(port=0, keep_alive=0.05)
    async with keeping:
        session = (await send(keeping.url, "POST", INITIALIZE)).headers["mcp-session-id"]
        headers = {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25", "Accept": "text/event-stream"}
        await send(keeping.url, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        assert b": keep-alive" in await asyncio.to_thread(read_stream, keeping.url, headers, b": keep-alive")


def read_stream(url: str, headers: dict[str, str], until: bytes) -> bytes:
    """Reads a GET stream until ``until`` shows up (or a few seconds pass)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
    try:
        connection.request("GET", parts.path, headers=headers)
        response = connection.getresponse()
        seen = b""
        deadline = time.monotonic() + 5
        while until not in seen and time.monotonic() < deadline:
            seen += response.read1(256)
        return seen
    finally:
        connection.close()


async def test_client_headers_and_bearer_token() -> None:
    seen: list[dict[str, str]] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")[1:]
        seen.append({k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)})
        writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    listener = await asyncio.start_server(record, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    async with listener:
        client = Client.http(f"http://127.0.0.1:{port}/mcp", headers={"X-Team": "blue"}, bearer_token="s3cret")
        with pytest.raises(McpError, match="401"):
            await client.connect()
    assert seen[0]["x-team"] == "blue"
    assert seen[0]["authorization"] == "Bearer s3cret"


async def test_version_header_and_connection_limits() -> None:
    strict = await echo_server().serve_http(
        port=0, header_read_timeout=5, body_read_timeout=5, max_connections=8, max_queued_events=16
    )
    lenient = await echo_server().serve_http(port=0, require_negotiated_version=False)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    async with strict, lenient:
        for http, status in ((strict, 400), (lenient, 200)):
            session = (await send(http.url, "POST", INITIALIZE)).headers["mcp-session-id"]
            stale = {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
            assert (await send(http.url, "POST", ping, headers=stale)).status == status
        async with Client.http(strict.url) as client:
            assert (await client.call_tool("echo", {"text": "ok"}))["content"][0]["text"] == "ok"
