"""Errors and warnings name what failed: the program, the address, the connection, the header."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from mcpweft import Client, Server, TransportClosed


async def test_a_program_that_cannot_start_is_named() -> None:
    with pytest.raises(OSError, match="could not start /no/such/program"):
        async with Client.stdio(["/no/such/program", "--flag"]):
            pass


async def test_a_refused_connection_is_a_transport_error(free_port: int) -> None:
    with pytest.raises(TransportClosed, match=f"could not connect to http://127.0.0.1:{free_port}/mcp"):
        async with Client.http(f"http://127.0.0.1:{free_port}/mcp"):
            pass


async def test_an_address_in_use_is_named() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"could not listen on 127.0.0.1:{port}"):
            await Server("busy").serve_http(port=port)


async def test_binding_beyond_loopback_says_what_to_set(free_port: int) -> None:
    server = Server("container")
    with pytest.raises(ValueError, match="allow_remote_without_auth"):
        await server.serve_http(host="0.0.0.0", port=free_port)
    with pytest.raises(ValueError, match="allowed_hosts"):
        await server.serve_http(host="0.0.0.0", port=free_port, allow_remote_without_auth=True)
    http = await server.serve_http(
        host="0.0.0.0", port=free_port, allow_remote_without_auth=True, allowed_hosts=[f"127.0.0.1:{free_port}"]
    )
    try:
        async with Client.http(f"http://127.0.0.1:{free_port}/mcp") as client:
            assert client.server_info["serverInfo"]["name"] == "container"
    finally:
        await http.close()


SERVE = textwrap.dedent(
    """
    import asyncio, sys
    from mcpweft import Server

    async def main():
        http = await Server("guarded").serve_http(port=int(sys.argv[1]))
        print(http.url, flush=True)
        await http.wait()

    asyncio.run(main())
    """
)


def test_a_refused_host_is_logged_once_with_its_value(tmp_path: Path, free_port: int) -> None:
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    process = subprocess.Popen(
        [sys.executable, str(script), str(free_port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The core's records reach Python's logging from a thread of their own: the lines are
    # collected as they come, so that the server is stopped only once the record is written.
    lines: list[str] = []
    stream = process.stderr
    assert stream is not None

    def collect() -> None:
        for line in stream:
            lines.append(line)

    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        for host in ("evil.example", "other.example"):
            request = urllib.request.Request(url, data=b"{}", headers={"Host": host}, method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 403
            refused.value.close()
        deadline = time.monotonic() + 10
        while not any("refused a request with Host" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.05)
        # Time for a second record, which must not come.
        time.sleep(0.5)
    finally:
        process.terminate()
        process.wait(timeout=10)
        reader.join(timeout=10)
        for pipe in (process.stdout, stream):
            if pipe is not None:
                pipe.close()
    stderr = "".join(lines)
    assert stderr.count("refused a request with Host") == 1, stderr
    assert '"evil.example"' in stderr and "allowed hosts" in stderr
    assert "other.example" not in stderr
