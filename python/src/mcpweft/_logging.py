"""The core's traces in Python's ``logging``.

The native module hands every record of the Rust core to ``deliver`` in batches, from a thread
of its own (never from the threads that serve the protocol), under the logger ``mcpweft`` or a
child named after the module it comes from (``mcpweft.http.server``). The core formats and
queues only the records at or above the lowest level any ``mcpweft`` logger lets through, which
``refresh`` tells it: when the package is imported, when serving or connecting starts, and
after each batch. ``logging`` is not imported for that: until something imports it, its
defaults hold (warnings and errors, which its last-resort handler writes to stderr).
"""

from __future__ import annotations

import sys
from typing import Optional

from . import _native

#: Python's number for the core's ``trace`` level, below ``logging.DEBUG``.
TRACE = 5

#: Python's default level (``logging.WARNING``), for as long as ``logging`` is not imported.
_DEFAULT = 30

_applied: Optional[int] = None


def threshold() -> int:
    """The lowest level that a logger named ``mcpweft`` or ``mcpweft.*`` lets through."""
    logging = sys.modules.get("logging")
    if logging is None:
        return _DEFAULT
    manager = logging.Logger.manager
    lowest: int = logging.getLogger("mcpweft").getEffectiveLevel()
    for name, logger in list(manager.loggerDict.items()):
        if name.startswith("mcpweft.") and isinstance(logger, logging.Logger):
            lowest = min(lowest, logger.getEffectiveLevel())
    disabled: int = manager.disable
    return max(lowest, disabled + 1)


def refresh() -> None:
    """Tells the core the lowest level the ``mcpweft`` loggers let through, if it changed."""
    global _applied
    level = threshold()
    if level != _applied:
        _applied = level
        _native.set_log_level(level)


def deliver(records: list[tuple[int, str, str]]) -> None:
    """Logs the core's records, each ``(level, logger name, message)``."""
    import logging  # The first record imports it, as logging anything would.

    for level, name, message in records:
        logger = logging.getLogger(name)
        if logger.isEnabledFor(level):
            logger.log(level, message)
    refresh()
