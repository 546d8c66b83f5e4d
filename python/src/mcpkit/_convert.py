"""Turns what Python handlers return into MCP results (tool, resource, prompt)."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, Optional

from ._schema import to_jsonable
from .types import (
    CallToolResult,
    ContentBlock,
    GetPromptResult,
    PromptMessage,
    ReadResourceResult,
    ResourceContents,
    _Media,
    text,
    user,
)

_RESULT_KEYS = {"content", "structuredContent", "isError", "_meta"}
_BLOCK_TYPES = {"text", "image", "audio", "resource", "resource_link"}
BYTES_URI = "mcpkit://bytes"


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _is_block(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("type") in _BLOCK_TYPES


def _blob_block(data: bytes, mime_type: str = "application/octet-stream") -> ContentBlock:
    blob = base64.b64encode(data).decode("ascii")
    return {"type": "resource", "resource": {"uri": BYTES_URI, "mimeType": mime_type, "blob": blob}}


def to_block(value: Any) -> ContentBlock:
    """Converts one item into a content block."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, _Media):
        return value.to_content()
    if isinstance(value, (bytes, bytearray)):
        return _blob_block(bytes(value))
    if _is_block(value):
        return dict(value)
    return text(_json_text(to_jsonable(value)))


def is_call_tool_result(value: Any) -> bool:
    """Whether a dict already is a ``CallToolResult``."""
    return isinstance(value, Mapping) and isinstance(value.get("content"), list) and set(value.keys()) <= _RESULT_KEYS


def tool_result(value: Any, structured: bool, wrap: bool) -> CallToolResult:
    """Converts a tool's return value.

    ``structured`` says the return annotation is an object type; ``wrap`` says it is a primitive
    wrapped as ``{"result": value}``.
    """
    if wrap:
        return {
            "content": [to_block(value) if isinstance(value, str) else text(_json_text(value))],
            "structuredContent": {"result": to_jsonable(value)},
        }
    if is_call_tool_result(value):
        return dict(value)  # type: ignore[return-value]
    if value is None:
        return {"content": []}
    if isinstance(value, (str, bytes, bytearray, _Media)) or _is_block(value):
        return {"content": [to_block(value)]}
    if isinstance(value, (list, tuple)) and not structured:
        return {"content": [to_block(v) for v in value]}
    data = to_jsonable(value)
    if isinstance(data, dict):
        return {"content": [text(_json_text(data))], "structuredContent": data}
    return {"content": [text(_json_text(data))]}


def error_result(error: BaseException) -> CallToolResult:
    """The ``isError`` result of a tool that raised."""
    return {"content": [text(str(error) or type(error).__name__)], "isError": True}


def resource_result(value: Any, uri: str, mime_type: Optional[str]) -> ReadResourceResult:
    """Converts a resource handler's return value into a ``ReadResourceResult``."""
    if isinstance(value, Mapping) and isinstance(value.get("contents"), list):
        return dict(value)  # type: ignore[return-value]
    contents: ResourceContents = {"uri": uri}
    if isinstance(value, _Media):
        contents["blob"] = base64.b64encode(value.data).decode("ascii")
        contents["mimeType"] = mime_type or value.mime_type
        return {"contents": [contents]}
    if isinstance(value, (bytes, bytearray)):
        contents["blob"] = base64.b64encode(bytes(value)).decode("ascii")
        contents["mimeType"] = mime_type or "application/octet-stream"
    elif isinstance(value, str):
        contents["text"] = value
        contents["mimeType"] = mime_type or "text/plain"
    else:
        contents["text"] = _json_text(to_jsonable(value))
        contents["mimeType"] = mime_type or "application/json"
    return {"contents": [contents]}


def _message(value: Any) -> PromptMessage:
    if isinstance(value, str):
        return user(value)
    if isinstance(value, tuple) and len(value) == 2:
        role, content = value
        return {"role": role, "content": to_block(content)}
    if isinstance(value, Mapping) and "role" in value:
        content = value.get("content")
        return {"role": value["role"], "content": to_block(content)}
    return user(to_block(value))


def prompt_result(value: Any, description: Optional[str]) -> GetPromptResult:
    """Converts a prompt handler's return value into a ``GetPromptResult``."""
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        return dict(value)  # type: ignore[return-value]
    items = value if isinstance(value, list) else [value]
    result: GetPromptResult = {"messages": [_message(v) for v in items]}
    if description:
        result["description"] = description
    return result
