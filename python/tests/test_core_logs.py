"""The Rust core's traces reach Python's ``logging``: under ``mcpweft`` and its children, at the
matching level, only as far as the loggers let them through, and never on stdout."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from mcpweft import Client, Server, _logging


async def records_of(caplog: pytest.LogCaptureFixture, logger: str, text: str) -> list[logging.LogRecord]:
    """Waits (up to 5 s) for the records of ``logger`` whose message holds ``text``: the core hands
    them over from a thread of its own, a moment after it made them."""
    for _ in range(500):
        found = [r for r in caplog.records if r.name == logger and text in r.getMessage()]
        if found:
            return found
        await asyncio.sleep(0.01)
    return []


def initialize_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "mcpweft.server.session" and r.getMessage().startswith("initialize")]


async def test_debug_records_follow_the_level_of_the_mcpweft_loggers(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("logged")
    caplog.set_level(logging.WARNING, logger="mcpweft")
    async with Client.memory(server):
        pass
    assert _logging.threshold() == logging.WARNING
    await asyncio.sleep(0.2)
    assert initialize_records(caplog) == [], "a disabled level is not forwarded"

    # A child's level counts too: the core forwards what any mcpweft logger lets through.
    caplog.set_level(logging.DEBUG, logger="mcpweft.server")
    async with Client.memory(server):
        pass
    assert _logging.threshold() == logging.DEBUG
    found = await records_of(caplog, "mcpweft.server.session", "initialize")
    assert found, [(r.name, r.getMessage()) for r in caplog.records]
    record = found[0]
    assert record.levelno == logging.DEBUG
    # The fields follow the message as name=value.
    message = record.getMessage()
    assert message.startswith("initialize client=") and " requested=" in message and " version=" in message, message


async def test_a_core_warning_is_a_warning_of_its_modules_logger(
    caplog: pytest.LogCaptureFixture, free_port: int
) -> None:
    caplog.set_level(logging.WARNING, logger="mcpweft")
    http = await Server("guarded").serve_http(port=free_port)
    try:

        def refused() -> int:
            request = urllib.request.Request(http.url, data=b"{}", headers={"Host": "evil.example"}, method="POST")
            try:
                urllib.request.urlopen(request, timeout=10)
            except urllib.error.HTTPError as e:
                e.close()
                return e.code
            return 200

        assert await asyncio.to_thread(refused) == 403
        found = await records_of(caplog, "mcpweft.http.server", "refused a request with Host")
    finally:
        await http.close()
    assert len(found) == 1
    assert found[0].levelno == logging.WARNING
    assert '"evil.example"' in found[0].getMessage()


def test_records_go_to_the_processs_logging_and_never_to_stdout(tmp_path: Path) -> None:
    script = tmp_path / "logs.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, logging, sys
            from mcpweft import Client, Server

            logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")

            async def main():
                async with Client.memory(Server("subprocess")):
                    pass
                await asyncio.sleep(0.5)

            asyncio.run(main())
            print("done")
            """
        )
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "done\n"
    assert "mcpweft.server.session DEBUG initialize" in run.stderr, run.stderr


def test_the_last_records_reach_logging_when_the_process_exits(tmp_path: Path) -> None:
    script = tmp_path / "exits.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, logging, sys
            from mcpweft import Client, Server

            logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")

            async def main():
                async with Client.memory(Server("exits")):
                    pass

            asyncio.run(main())
            """
        )
    )
    for _ in range(3):
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "mcpweft.server.session DEBUG initialize" in run.stderr, "flushed before the interpreter ended"
