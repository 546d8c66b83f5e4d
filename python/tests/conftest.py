from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def calculator_command() -> list[str]:
    """The command that runs the calculator example over stdio."""
    return [sys.executable, str(EXAMPLES / "calculator.py")]


@pytest.fixture
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


sys.path.insert(0, str(EXAMPLES))  # The HTTP tests import the calculator example in-process.
