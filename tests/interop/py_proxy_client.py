"""A client written with the official Python SDK (package ``mcp``, the version pinned in
python/requirements-dev.txt) of the Rust conformance fixture, started as a stdio server: in
the interop tests, ``mcpweft proxy URL`` in front of the fixture served over HTTP.

    python py_proxy_client.py legacy|auto SERVER_CMD [ARGS...]

``legacy`` speaks revision 2025-11-25 (initialize); ``auto`` asks ``server/discover`` first
and speaks 2026-07-28, whose requests for input come back as ``input_required`` results that
the SDK answers and retries. Lists the tools, calls one with progress, reads a resource, gets
two prompts, and answers the fixture's elicitation and sampling requests. Prints
``all N checks passed`` and exits 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import sys
import warnings
from typing import Any

from mcp import Client, StdioServerParameters, types

TIMEOUT = 15.0
EXPECTED_VERSION = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def texts(content: list[Any]) -> list[str]:
    return [block.text for block in content if isinstance(block, types.TextContent)]


async def run(mode: str, command: str, args: list[str]) -> int:
    elicited: list[str] = []
    sampled: list[str] = []
    reported: list[tuple[float, float | None]] = []

    async def on_elicit(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        elicited.append(params.message)
        return types.ElicitResult(action="accept", content={"username": "py", "email": "py@example.com"})

    async def on_sample(context: object, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        [message] = params.messages
        assert isinstance(message.content, types.TextContent), message
        sampled.append(message.content.text)
        reply = types.TextContent(type="text", text=f"echo {message.content.text}")
        return types.CreateMessageResult(role="assistant", content=reply, model="test-model")

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total))

    checks = 0

    def check(condition: bool, what: str) -> None:
        nonlocal checks
        if not condition:
            raise AssertionError(what)
        checks += 1
        print(f"[py_proxy_client] ok   {what}", flush=True)

    server = StdioServerParameters(command=command, args=args)
    async with Client(
        server,
        mode=mode,
        read_timeout_seconds=TIMEOUT,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
    ) as client:
        check(client.protocol_version == EXPECTED_VERSION[mode], f"protocol {client.protocol_version}")
        check(client.server_info is not None and client.server_info.name == "mcpweft-conformance-server", "server info")

        names = [tool.name for tool in (await client.list_tools()).tools]
        for name in ("test_tool_with_progress", "test_elicitation", "test_sampling", "test_simple_text"):
            check(name in names, f"tools/list has {name}")

        simple = await client.call_tool("test_simple_text", {})
        check(texts(simple.content) == ["This is a simple text response for testing."], "a tool's text")

        progressed = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        check(texts(progressed.content) == ["Tool with progress executed successfully"], "a tool with progress")
        for _ in range(50):
            if len(reported) == 3:
                break
            await asyncio.sleep(0.02)
        check(reported == [(0, 100), (50, 100), (100, 100)], f"progress {reported}")

        contents = (await client.read_resource("test://static-text")).contents
        check(
            len(contents) == 1
            and isinstance(contents[0], types.TextResourceContents)
            and contents[0].text == "This is the content of the static text resource.",
            "resources/read",
        )

        simple_prompt = await client.get_prompt("test_simple_prompt")
        check(
            [texts([m.content]) for m in simple_prompt.messages] == [["This is a simple prompt for testing."]],
            "prompts/get",
        )
        with_arguments = await client.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"})
        check(
            texts([with_arguments.messages[0].content]) == ["Prompt with arguments: arg1='one', arg2='two'"],
            "prompts/get with arguments",
        )

        answered = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        check(elicited == ["Who are you?"], f"the elicitation reached the client: {elicited}")
        check(not answered.is_error and "py@example.com" in " ".join(texts(answered.content)), "the elicited answer")

        sampling = await client.call_tool("test_sampling", {"prompt": "ping"})
        check(sampled == ["ping"], f"the sampling request reached the client: {sampled}")
        check(texts(sampling.content) == ["LLM response: echo ping"], "the sampled answer")

    print(f"[py_proxy_client] all {checks} checks passed ({EXPECTED_VERSION[mode]})", flush=True)
    return 0


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in EXPECTED_VERSION:
        print("usage: py_proxy_client.py legacy|auto SERVER_CMD [ARGS...]", file=sys.stderr)
        return 2
    # mcp 2 warns about features that revision 2026-07-28 deprecates; they are not used here.
    warnings.simplefilter("ignore")
    try:
        return asyncio.run(asyncio.wait_for(run(sys.argv[1], sys.argv[2], sys.argv[3:]), 60))
    except Exception as error:  # noqa: BLE001 - any failure is reported and fails the run
        print(f"[py_proxy_client] FAILED: {error!r}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
