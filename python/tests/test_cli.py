"""The ``mcpweft`` command, and stdout kept for the protocol while serving stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcpweft import Client
from mcpweft.cli import load_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CALCULATOR = str(EXAMPLES / "calculator.py")

CHATTY = textwrap.dedent(
    '''
    from mcpweft import Server

    chatty = Server("chatty")

    @chatty.tool()
    def shout(text: str) -> str:
        """Prints to stdout, as careless code does, then answers."""
        print("printed by a handler")
        return text.upper()

    if __name__ == "__main__":
        chatty.run()
    '''
)


def mcpweft(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpweft", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_inspect_lists_what_a_server_file_offers() -> None:
    done = mcpweft("inspect", CALCULATOR)
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert listing["serverInfo"]["name"] == "calculator"
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert {"add", "divide", "count"} <= tools.keys()
    assert list(tools["add"]["inputSchema"]["properties"]) == ["a", "b"]
    assert listing["resourceTemplates"] and listing["prompts"]


def test_call_reaches_a_file_a_command_and_prints_the_result() -> None:
    done = mcpweft("call", f"{CALCULATOR}:server", "add", '{"a": 2, "b": 3}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"sum": 5}
    over_stdio = mcpweft("call", f"{sys.executable} {CALCULATOR}", "divide", '{"a": 1, "b": 0}')
    assert over_stdio.returncode == 1, "an isError result makes the exit status 1"
    assert json.loads(over_stdio.stdout)["isError"] is True


def test_bad_input_is_named() -> None:
    missing = mcpweft("inspect", "no/such/file.py")
    assert missing.returncode != 0 and "no such file: no/such/file.py" in missing.stderr
    wrong = mcpweft("inspect", f"{CALCULATOR}:nothing")
    assert "has no Server named 'nothing'" in wrong.stderr
    arguments = mcpweft("call", CALCULATOR, "add", "[1, 2]")
    assert "must be a JSON object" in arguments.stderr
    unknown = mcpweft("call", f"{sys.executable} -c pass", "add")
    assert unknown.returncode != 0


def test_load_server_prefers_the_usual_names(tmp_path: Path) -> None:
    path = tmp_path / "two.py"
    path.write_text("from mcpweft import Server\nother = Server('other')\nmcp = Server('main')\n")
    assert load_server(str(path)).name == "main"
    assert load_server(f"{path}:other").name == "other"
    path.write_text("from mcpweft import Server\na = Server('a')\nb = Server('b')\n")
    with pytest.raises(SystemExit, match="several servers"):
        load_server(str(path))


async def test_printing_while_serving_stdio_goes_to_stderr(tmp_path: Path) -> None:
    path = tmp_path / "chatty.py"
    path.write_text(CHATTY)
    errors = tmp_path / "stderr.txt"
    redirect = f"import runpy, sys; sys.stderr = open({str(errors)!r}, 'w', buffering=1)"
    command = [sys.executable, "-c", f"{redirect}; runpy.run_path({str(path)!r}, run_name='__main__')"]
    async with Client.stdio(command) as client:
        for text in ("a", "b"):
            result = await client.call_tool("shout", {"text": text})
            assert result["content"] == [{"type": "text", "text": text.upper()}]
    logged = errors.read_text()
    assert logged.count("printed by a handler") == 2, logged


def test_run_serves_over_stdio_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "chatty.py"
    path.write_text(CHATTY)
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    done = subprocess.run(
        [sys.executable, "-m", "mcpweft", "run", str(path)],
        input=request + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["result"]["serverInfo"]["name"] == "chatty"
