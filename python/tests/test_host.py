"""A host over three real servers at once: the Rust calculator over stdio, the Python calculator
over Streamable HTTP, the official reference server (``@modelcontextprotocol/server-everything``)
over stdio, and a server that cannot start; and the same three servers behind ``mcpweft
gateway``."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from mcpweft import Client, ConfigError, Host, InvalidInputError, McpError, RequestTimeout
from mcpweft.host import HostEvent, HostEvents
from mcpweft.types import JsonObject, LogMessage

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "python" / "examples"
EVERYTHING = ROOT / "tests" / "host" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"


def rust_calculator() -> Path:
    """The Rust calculator example, built by ``make build-examples``."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", "target"))
    path = (target if target.is_absolute() else ROOT / target) / "debug" / "examples" / "calculator_server"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make build-examples`")
    return path


def everything_command() -> list[str]:
    """The command of the reference server, installed by ``make tests/host/node_modules/.package-lock.json``."""
    node = shutil.which("node")
    if node is None or not (EVERYTHING / "index.js").exists():
        pytest.fail("node or server-everything is missing: run `make tests/host/node_modules/.package-lock.json`")
    return [node, str(EVERYTHING / "index.js"), "stdio"]


@pytest.fixture
def python_http(free_port: int, tmp_path: Path) -> Iterator[str]:
    """The Python calculator example serving Streamable HTTP on 127.0.0.1; yields its URL."""
    log = tmp_path / "calculator.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, str(EXAMPLES / "calculator.py"), "--http", str(free_port)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", free_port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the Python calculator did not serve HTTP: {log.read_text()!r}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{free_port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
async def events_of() -> AsyncIterator[Callable[[Host], HostEvents]]:
    """Makes event readers that are closed at the end of the test."""
    readers: list[HostEvents] = []

    def make(host: Host) -> HostEvents:
        readers.append(host.events())
        return readers[-1]

    yield make
    for reader in readers:
        reader.close()


async def next_event(events: HostEvents, wanted: Callable[[HostEvent], bool], timeout: float = 20) -> HostEvent:
    """The first event that ``wanted`` accepts, within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        event = await events.next(timeout=max(deadline - time.monotonic(), 0.01))
        assert event is not None, "the events ended"
        if wanted(event):
            return event


async def eventually(condition: Callable[[], bool], timeout: float = 20) -> None:
    """Waits until ``condition()`` holds, for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


def text(result: JsonObject) -> str:
    return str(result["content"][0]["text"])


# Four servers start, among them a Node process: more than the default minute on a loaded machine.
@pytest.mark.timeout(180)
async def test_a_host_of_three_real_servers_and_one_that_cannot_start(
    python_http: str, tmp_path: Path, events_of: Callable[[Host], HostEvents]
) -> None:
    pidfile = tmp_path / "rust.pid"
    config = {
        "mcpServers": {
            "rust": {"command": "sh", "args": ["-c", f'echo $$ > "{pidfile}"; exec "{rust_calculator()}"']},
            "python": {"type": "http", "url": python_http},
            "everything": {"command": everything_command()[0], "args": everything_command()[1:]},
            "broken": {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no API key given')"]},
        }
    }
    logs: list[tuple[str, LogMessage]] = []
    sampled: list[tuple[str, JsonObject]] = []

    async def sampling(server: str, params: JsonObject) -> str:
        sampled.append((server, params))
        return "a sampled answer"

    def on_log(server: str, message: LogMessage) -> None:
        logs.append((server, message))

    async with Host.connect(config, sampling=sampling, on_log=on_log) as host:
        states = host.servers()
        assert list(states) == ["rust", "python", "everything", "broken"]
        assert [states[name]["state"] for name in ("rust", "python", "everything")] == ["ready"] * 3, states
        assert states["broken"]["state"] == "failed"
        assert "no API key given" in states["broken"]["stderr"]
        assert host.state("broken") == states["broken"]
        with pytest.raises(ConfigError):
            host.state("nobody")

        # Namespaced tools of each server, called on each.
        names = {tool["name"]: tool["server"] for tool in host.tools()}
        for server, tool in [("rust", "add"), ("python", "add"), ("everything", "get-sum"), ("everything", "echo")]:
            assert names[f"{server}__{tool}"] == server, names
        # Both calculators list the same resources: the host offers neither and reads them
        # from the server named.
        assert host.collisions() == [
            {"kind": "resource", "name": "calc://constants", "servers": ["rust", "python"]},
            {"kind": "resourceTemplate", "name": "calc://constants/{name}", "servers": ["rust", "python"]},
        ]
        assert (await host.call_tool("rust__add", {"a": 2, "b": 3}))["structuredContent"] == {"sum": 5}
        assert (await host.call_tool("python__add", {"a": 2, "b": 3}))["structuredContent"] == {"sum": 5}
        assert text(await host.call_tool("everything__get-sum", {"a": 2, "b": 3})) == "The sum of 2 and 3 is 5."
        assert text(await host.call_tool("everything__echo", {"message": "hi"})) == "Echo: hi"
        constants = await host.read_resource("calc://constants", server="python")
        assert '"pi"' in constants["contents"][0]["text"]
        prompt = await host.get_prompt("rust__explain", {"expression": "2+3"})
        assert "2+3" in prompt["messages"][0]["content"]["text"]

        # The handlers are told which server asks.
        await host.call_tool("rust__count", {"n": 2})
        await eventually(lambda: ("rust", "step 2 of 2") in [(s, m["data"]) for s, m in logs])
        await eventually(lambda: any(t["name"] == "everything__trigger-sampling-request" for t in host.tools()))
        answer = await host.call_tool("everything__trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
        assert "a sampled answer" in text(answer)
        assert sampled[0][0] == "everything"
        assert sampled[0][1]["maxTokens"] == 5

        # A list change: the reference server lists a resource it makes.
        events = events_of(host)
        made = await host.call_tool(
            "everything__gzip-file-as-resource",
            {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"},
        )
        assert made.get("isError") is not True, made
        changed = await next_event(events, lambda e: e["type"] == "listChanged")
        assert changed == {"type": "listChanged", "server": "everything", "list": "resources"}
        uri = "demo://resource/session/hello.txt.gz"
        assert {"uri": uri, "server": "everything"}.items() <= next(
            r for r in host.resources() if r["uri"] == uri
        ).items()

        # A long call kept alive by progress past its time-out; the total limit still ends one.
        progress: list[float] = []

        def on_progress(value: float, total: Optional[float], message: Optional[str]) -> None:
            progress.append(value)

        long_call = "everything__trigger-long-running-operation"
        done = await host.call_tool(long_call, {"duration": 2, "steps": 8}, timeout=1, progress=on_progress)
        assert "Long running operation completed" in text(done)
        await eventually(lambda: len(progress) == 8)
        with pytest.raises(RequestTimeout):
            await host.call_tool(long_call, {"duration": 3, "steps": 6}, timeout=1, max_total_timeout=0.8)
        with pytest.raises(InvalidInputError):
            await host.call_tool("rust__add", {"a": 1, "b": 1}, timeout=-1)

        # The Rust server killed mid-session is started again, and calls work again.
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
        gone = await next_event(events, lambda e: e.get("server") == "rust")
        assert gone["state"] == "connecting"
        back = await next_event(events, lambda e: e.get("server") == "rust")
        assert back == {"type": "stateChanged", "server": "rust", "state": "ready"}
        assert (await host.call_tool("rust__add", {"a": 20, "b": 22}))["structuredContent"] == {"sum": 42}

        # A failed server is tried again on demand, and fails the same way.
        host.restart("broken")
        retried = await next_event(events, lambda e: e.get("server") == "broken" and e["state"] == "failed")
        assert "no API key given" in retried["stderr"]

    assert {state["state"] for state in host.servers().values()} == {"closed"}
    ends: list[Any] = []
    async for event in events:
        ends.append(event)
    assert {"type": "stateChanged", "server": "python", "state": "closed"} in ends


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Callable[[JsonObject], str]]:
    """Starts ``mcpweft gateway`` over a configuration on a free port of 127.0.0.1; returns its
    URL once it listens. The gateways are stopped at the end of the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(config: JsonObject) -> str:
        path = tmp_path / f"gateway-{len(processes)}.json"
        path.write_text(json.dumps(config))
        log = tmp_path / f"gateway-{len(processes)}.log"
        with log.open("wb") as stderr:
            command = [sys.executable, "-m", "mcpweft", "gateway", "--config", str(path), "--listen", "127.0.0.1:0"]
            processes.append(
                subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
            )
        deadline = time.monotonic() + 120
        while True:
            listening = [line for line in log.read_text().splitlines() if line.startswith("listening on ")]
            if listening:
                return listening[0].removeprefix("listening on ")
            if processes[-1].poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the gateway did not listen: {log.read_text()!r}")
            time.sleep(0.05)

    yield start
    for process in processes:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# Three servers start behind the gateway, among them a Node process.
@pytest.mark.timeout(180)
async def test_a_gateway_over_three_real_servers(
    python_http: str, tmp_path: Path, gateway: Callable[[JsonObject], str]
) -> None:
    pidfile = tmp_path / "rust.pid"
    url = gateway(
        {
            "mcpServers": {
                "rust": {"command": "sh", "args": ["-c", f'echo $$ > "{pidfile}"; exec "{rust_calculator()}"']},
                "python": {"type": "http", "url": python_http},
                "everything": {
                    "command": everything_command()[0],
                    "args": everything_command()[1:],
                    "deniedTools": ["trigger-long-running-operation"],
                },
            }
        }
    )
    async with Client.http(url) as client:
        assert client.server_info["serverInfo"]["name"] == "mcpweft-gateway"
        # The tools of each server under its prefix, the denied one left out; each called.
        names = {tool["name"] for tool in await client.list_tools()}
        assert {"rust__add", "python__add", "everything__get-sum", "everything__echo"} <= names, names
        assert "everything__trigger-long-running-operation" not in names
        assert (await client.call_tool("rust__add", {"a": 2, "b": 3}))["structuredContent"] == {"sum": 5}
        assert (await client.call_tool("python__add", {"a": 2, "b": 3}))["structuredContent"] == {"sum": 5}
        assert text(await client.call_tool("everything__get-sum", {"a": 2, "b": 3})) == "The sum of 2 and 3 is 5."
        assert text(await client.call_tool("everything__echo", {"message": "hi"})) == "Echo: hi"
        prompt = await client.get_prompt("rust__explain", {"expression": "2+3"})
        assert "2+3" in prompt["messages"][0]["content"]["text"]

        # The Rust server killed: the gateway's host starts it again, and the same client's
        # calls reach it again.
        killed = pidfile.read_text().strip()
        os.kill(int(killed), signal.SIGKILL)
        deadline = time.monotonic() + 60
        while True:
            restarted = pidfile.read_text().strip() not in ("", killed)
            if restarted:
                try:
                    answer = await client.call_tool("rust__add", {"a": 20, "b": 22}, timeout=10)
                except McpError:
                    answer = None
                if answer is not None and answer.get("isError") is not True:
                    break
            assert time.monotonic() < deadline, "the Rust server did not come back behind the gateway"
            await asyncio.sleep(0.1)
        assert answer["structuredContent"] == {"sum": 42}
        assert text(await client.call_tool("everything__echo", {"message": "still"})) == "Echo: still"


async def test_a_host_reads_a_file_and_refuses_bad_settings(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"off": {"command": "${NO_SUCH_SERVER:-true}", "enabled": false}}}')
    async with Host.connect(path, separator=".") as host:
        assert host.servers() == {"off": {"state": "disabled"}}
        assert host.tools() == []
        with pytest.raises(ConfigError):
            host.restart("off")
    with pytest.raises(ConfigError):
        await Host.connect({"calc": {"command": "calc"}}, separator="/")
    with pytest.raises(ConfigError):
        await Host.connect(tmp_path / "missing.json")
    with pytest.raises(ConfigError):
        Host({}, elicitation_modes=("voice",))


@pytest.mark.timeout(180)
async def test_the_example_connects_to_three_kinds_of_server() -> None:
    everything_command()
    rust_calculator()
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLES / "host.py"), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=150)
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[:4] == ["calc: ready", "pycalc: ready", "everything: ready", "broken: failed (no API key given)"], (
        lines
    )
    assert "calc__add(2, 40) = 42" in lines
    assert "pycalc__add(2, 40) = 42" in lines
    assert "everything__get-sum(2, 40) = The sum of 2 and 40 is 42." in lines
