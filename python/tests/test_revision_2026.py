"""A Python server answers revision 2026-07-28 clients without changes: session-less requests,
and a handler's request for input becomes an ``input_required`` result and a retry."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SERVER = textwrap.dedent(
    """
    from mcpweft import Context, Server

    server = Server("asker")

    @server.tool()
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"Hello, {answer['content']['name']}!"

    server.run()
    """
)

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def call(params: dict[str, Any], id: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})


def test_a_python_handler_asks_a_2026_client_through_input_rounds(tmp_path: Path) -> None:
    script = tmp_path / "asker.py"
    script.write_text(SERVER)
    process = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        base = {"name": "greet", "arguments": {}, "_meta": ENVELOPE}
        process.stdin.write(call(base, 1) + "\n")
        first = json.loads(process.stdout.readline())["result"]
        assert first["resultType"] == "input_required", first
        (key, asked), *_ = first["inputRequests"].items()
        assert asked["method"] == "elicitation/create"
        answers = {key: {"action": "accept", "content": {"name": "Ada"}}}
        retry = base | {"inputResponses": answers, "requestState": first["requestState"]}
        process.stdin.write(call(retry, 2) + "\n")
        done = json.loads(process.stdout.readline())["result"]
        assert done["resultType"] == "complete", done
        assert done["content"][0]["text"] == "Hello, Ada!"
    finally:
        process.stdin.close()
        process.wait(timeout=10)
        process.stdout.close()


KEYED_SERVER = textwrap.dedent(
    """
    from mcpweft import Context, Server

    server = Server("counter")

    @server.tool()
    async def count(ctx: Context) -> str:
        seen = (ctx.state or {}).get("rounds", 0)
        ctx.set_state({"rounds": seen + 1})
        form = {"message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}
        answer = await ctx.ask("confirm", "elicitation/create", form)
        return f"{answer['action']} after {seen} earlier round(s)"

    server.run()
    """
)


def test_a_python_handler_names_its_request_for_input_and_keeps_state(tmp_path: Path) -> None:
    script = tmp_path / "counter.py"
    script.write_text(KEYED_SERVER)
    process = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        base = {"name": "count", "arguments": {}, "_meta": ENVELOPE}
        process.stdin.write(call(base, 1) + "\n")
        first = json.loads(process.stdout.readline())["result"]
        assert list(first["inputRequests"]) == ["confirm"], first
        retry = base | {"inputResponses": {"confirm": {"action": "accept"}}, "requestState": first["requestState"]}
        process.stdin.write(call(retry, 2) + "\n")
        done = json.loads(process.stdout.readline())["result"]
        assert done["content"][0]["text"] == "accept after 1 earlier round(s)", done
    finally:
        process.stdin.close()
        process.wait(timeout=10)
        process.stdout.close()


SKILL_MD = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md first.\n"


async def test_a_skill_is_listed_with_its_files_served_as_resources() -> None:
    from mcpweft import Client, Server

    server = Server("skills")
    server.add_skill(SKILL_MD, files={"references/FORMS.md": "Forms have fields.\n"})
    async with Client.memory(server, protocol_version="2026-07-28") as client:
        assert "io.modelcontextprotocol/skills" in client.server_info["capabilities"]["extensions"]
        listed = await client.request("skills/list")
        (skill,) = listed["skills"]
        assert skill["uri"] == "skill://pdf-processing/SKILL.md"
        assert [r["uri"] for r in skill["resources"]] == [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
        ]
        read = await client.read_resource("skill://pdf-processing/references/FORMS.md")
        assert read["contents"][0].get("text") == "Forms have fields.\n"
    with pytest.raises(ValueError, match="lowercase"):
        server.add_skill(SKILL_MD.replace("pdf-processing", "PDF--x"))
    with pytest.raises(ValueError):
        server.add_skill(SKILL_MD, files={"../up.md": "x"})
