"""Cluster mode from Python: two server processes share one session through Redis.

The test runs ``tests/cluster/setup.sh`` (which installs ``redis-server`` when missing) and skips,
naming the reason, when that fails. It starts Redis on a free loopback port and two Python
processes serving HTTP with ``cluster={"url": ...}``, then speaks raw HTTP: ``initialize`` on one
process, ``tools/call`` on the other with the session id the first one gave.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest

from mcpweft import Server

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "tests" / "cluster" / "setup.sh"
VERSION = "2025-11-25"

#: One process of the cluster: its tool answers with the id of the process that ran it.
SERVER = """
import asyncio, os, sys
from mcpweft import Server

server = Server("cluster-member")

@server.tool()
def whoami() -> str:
    return str(os.getpid())

async def main() -> None:
    port, url = int(sys.argv[1]), sys.argv[2]
    http = await server.serve_http(port=port, cluster={"url": url, "prefix": "pytest", "command_timeout": 5})
    print(http.url, flush=True)
    await http.wait()

asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], what: str) -> None:
    """Waits (at most 20 s) until ``port`` accepts connections, failing if ``process`` exits."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"{what} did not listen on port {port} within 20 s")


def post(port: int, body: Any, session: Optional[str] = None) -> tuple[int, dict[str, str], Any]:
    """POSTs one JSON-RPC message to ``/mcp`` on ``port``; returns status, headers and JSON body."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if session is not None:
        headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
        response = connection.getresponse()
        data = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
        return response.status, found, json.loads(data) if data else None
    finally:
        connection.close()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of this test alone, on a free loopback port."""
    setup = subprocess.run(["sh", str(SETUP)], capture_output=True, text=True, timeout=600)
    if setup.returncode != 0 or shutil.which("redis-server") is None:
        pytest.skip(f"cluster test skipped: tests/cluster/setup.sh failed: {setup.stderr.strip()}")
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, redis, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        redis.terminate()
        redis.wait(timeout=10)


@pytest.fixture
def members(redis_url: str, tmp_path: Path) -> Iterator[list[tuple[int, int]]]:
    """Two Python server processes in cluster mode on one Redis: their ports and process ids."""
    script = tmp_path / "member.py"
    script.write_text(SERVER)
    started: list[tuple[int, subprocess.Popen[Any]]] = []
    try:
        for _ in range(2):
            port = free_port()
            process = subprocess.Popen([sys.executable, str(script), str(port), redis_url], stdout=subprocess.DEVNULL)
            started.append((port, process))
            wait_for_port(port, process, "the cluster member")
        yield [(port, process.pid) for port, process in started]
    finally:
        for _, process in started:
            process.terminate()
            process.wait(timeout=10)


def test_one_session_is_served_by_two_processes(members: list[tuple[int, int]]) -> None:
    (first, first_pid), (second, second_pid) = members
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    status, headers, body = post(first, initialize)
    assert status == 200, body
    assert body["result"]["serverInfo"]["name"] == "cluster-member"
    session = headers["mcp-session-id"]

    status, _, _ = post(second, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert status == 202
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    status, _, body = post(second, call, session)
    assert status == 200, body
    assert body["result"]["content"][0]["text"] == str(second_pid)

    status, _, body = post(first, {**call, "id": 3}, session)
    assert status == 200, body
    assert body["result"]["content"][0]["text"] == str(first_pid)
    assert first_pid != second_pid != os.getpid()


async def test_cluster_settings_are_checked_before_serving() -> None:
    server = Server("strict")
    with pytest.raises(TypeError, match="unknown cluster settings"):
        await server.serve_http(port=0, cluster={"url": "redis://127.0.0.1:1/0", "ttl": 1})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(TypeError, match="needs the Redis server's url"):
        await server.serve_http(port=0, cluster={"prefix": "x"})  # type: ignore[typeddict-item]
