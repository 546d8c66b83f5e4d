"""Helpers of the interop tests: child processes that are always killed, and bounded waits."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent.parent / "examples"
CALCULATOR = EXAMPLES / "calculator.py"
FASTMCP_CALCULATOR = HERE / "fastmcp_calculator.py"

# Bounds of every wait in these tests, in seconds.
STARTUP_TIMEOUT = 30.0
CALL_TIMEOUT = 20.0


async def eventually(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Waits, bounded, until ``condition()`` holds."""
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def wait_for_port(port: int, process: asyncio.subprocess.Process, timeout: float = STARTUP_TIMEOUT) -> None:
    """Waits, bounded, until 127.0.0.1:``port`` accepts connections; fails if the process exits."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if process.returncode is not None:
            raise AssertionError(f"the server exited with {process.returncode} before listening")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError(f"nothing listened on port {port} within {timeout:g}s")


@contextlib.asynccontextmanager
async def http_server(script: Path, port: int, *args: str) -> AsyncIterator[str]:
    """Runs ``script --http PORT`` and yields its MCP URL; kills it afterwards."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "--http",
        str(port),
        *args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        await stop(process)


async def stop(process: asyncio.subprocess.Process) -> None:
    """Terminates a child process, then kills it if it does not exit within 5 s."""
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), timeout=5)
        except asyncio.TimeoutError:
            process.kill()
            await asyncio.wait_for(process.wait(), timeout=5)


def texts(content: list[Any]) -> list[str]:
    """The texts of the text blocks of a content list (dicts or SDK models)."""
    out = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else getattr(block, "type", None)
        if kind == "text":
            out.append(block["text"] if isinstance(block, dict) else block.text)
    return out
