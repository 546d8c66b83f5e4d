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


def test_the_native_command_lists_and_calls_a_server_file() -> None:
    served = ["--", sys.executable, "-m", "mcpweft", "run", CALCULATOR]
    tools = mcpweft("tools", *served)
    assert tools.returncode == 0, tools.stderr
    assert [line.split()[0] for line in tools.stdout.splitlines()][:3] == ["add", "divide", "count"]
    listing = mcpweft("inspect", "--json", *served)
    assert listing.returncode == 0, listing.stderr
    assert json.loads(listing.stdout)["serverInfo"]["name"] == "calculator"
    done = mcpweft("call", "add", '{"a": 2, "b": 3}', "--json", *served)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"sum": 5}
    failed = mcpweft("call", "divide", '{"a": 1, "b": 0}', "--json", "--", sys.executable, CALCULATOR)
    assert failed.returncode == 1, "an isError result makes the exit status 1"
    assert json.loads(failed.stdout)["isError"] is True


def test_the_native_command_names_bad_input() -> None:
    version = mcpweft("--version")
    assert version.returncode == 0 and version.stdout.startswith("mcpweft "), version
    usage = mcpweft("call")
    assert usage.returncode == 2 and "Usage" in usage.stderr, usage.stderr
    arguments = mcpweft("call", "add", "[1, 2]", "--", sys.executable, CALCULATOR)
    assert arguments.returncode == 2 and "JSON object" in arguments.stderr, arguments.stderr
    dead = mcpweft("tools", "--", sys.executable, "-c", "import sys; print('no key', file=sys.stderr); sys.exit(4)")
    assert dead.returncode == 3, dead
    assert "no key" in dead.stderr and "exited with code 4" in dead.stderr, dead.stderr
    missing = mcpweft("run", "no/such/file.py")
    assert missing.returncode != 0 and "no such file: no/such/file.py" in missing.stderr
    wrong = mcpweft("run", f"{CALCULATOR}:nothing")
    assert "has no Server named 'nothing'" in wrong.stderr


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
