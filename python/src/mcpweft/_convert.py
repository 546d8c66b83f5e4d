"""Turns the Python values that handlers return into JSON.

Only what is Python's own happens here: bytes, ``Image`` and ``Audio`` media and prompt tuples
``(role, content)`` at the top of a result. Everything else is converted by the native module in
one bounded walk, which asks ``_schema.json_default`` (set here, at import) for a stand-in when it
meets a dataclass, pydantic model, enum, date or other value JSON has no shape for. The rules that
turn that JSON into an MCP result (a string is a text block, an object is structured content,
...) are the native bridge's, the same in every language.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Optional

from . import _native
from ._schema import json_default
from .types import ContentBlock, _Media

_native.set_json_default(json_default)

BYTES_URI = "mcpweft://bytes"
_PLAIN = (str, int, float, bool, type(None))


def _blob(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _block(value: Any) -> Any:
    """Converts one item that may stand for a content block: media and bytes become blocks."""
    if isinstance(value, _Media):
        return value.to_content()
    if isinstance(value, (bytes, bytearray)):
        blob: ContentBlock = {"uri": BYTES_URI, "mimeType": "application/octet-stream", "blob": _blob(bytes(value))}
        return {"type": "resource", "resource": blob}
    return value


def tool_value(value: Any) -> Any:
    """Converts a tool's return value; a list or tuple is converted item by item."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return [_block(v) for v in value]
    return _block(value)


def resource_value(value: Any, mime_type: Optional[str]) -> Any:
    """Converts a resource's return value; bytes and media become a ``blob`` item, typed by the
    resource's ``mime_type`` when it declares one."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, _Media):
        return {"blob": _blob(value.data), "mimeType": mime_type or value.mime_type}
    if isinstance(value, (bytes, bytearray)):
        return {"blob": _blob(bytes(value)), "mimeType": mime_type or "application/octet-stream"}
    return value


def _message(value: Any) -> Any:
    if isinstance(value, tuple) and len(value) == 2:
        role, content = value
        return {"role": role, "content": _block(content)}
    if isinstance(value, Mapping) and "role" in value:
        return {**value, "content": _block(value.get("content"))}
    return _block(value)


def prompt_value(value: Any) -> Any:
    """Converts a prompt's return value: one message, or a list of them."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return [_message(v) for v in value]
    return _message(value)
