"""A client of a cluster written with the official Python SDK (package ``mcp``, the version
pinned in python/requirements-dev.txt): one session through the balancer.

    python py_cluster_client.py URL

Calls ``whoami`` six times and checks that three processes answered, then calls ``greet``,
answering its elicitation and counting its progress, and checks the answer. Exits 0 when every
check passes, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import re
import sys

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

TIMEOUT = 15.0


async def run(url: str) -> None:
    elicited: list[str] = []
    reported: list[float] = []

    async def on_elicit(
        context: object, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        elicited.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "py"})

    async def on_progress(
        progress: float, total: float | None, message: str | None
    ) -> None:
        reported.append(progress)

    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(
            read, write, read_timeout_seconds=TIMEOUT, elicitation_callback=on_elicit
        ) as session:
            await asyncio.wait_for(session.initialize(), TIMEOUT)
            processes = set()
            for _ in range(6):
                answer = await session.call_tool("whoami", {})
                block = answer.content[0]
                assert isinstance(block, types.TextContent), block
                processes.add(block.text)
            assert len(processes) == 3, f"three processes answered: {sorted(processes)}"
            print(f"[py_client] ok   whoami answered by {', '.join(sorted(processes))}")
            greeted = await session.call_tool(
                "greet", {}, progress_callback=on_progress
            )
            assert len(elicited) == 1, f"one elicitation: {elicited}"
            assert reported == [1, 2], (
                f"progress before and after the elicitation: {reported}"
            )
            block = greeted.content[0]
            assert isinstance(block, types.TextContent), block
            assert re.fullmatch(r"hello py, from process \d+", block.text), block.text
            print(f"[py_client] ok   greet: {block.text}")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python py_cluster_client.py URL", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(sys.argv[1]))
    except Exception as error:  # noqa: BLE001 - every failure is reported and exits 1
        print(f"[py_client] FAILED: {error!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
