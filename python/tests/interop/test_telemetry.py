"""Trace propagation between mcpweft and the official MCP Python SDK 2.x, both with
OpenTelemetry on: the server's span of a call has the client's span as its parent, across the
W3C trace context in ``_meta``, whichever side is mcpweft; and both name their spans alike."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpweft import Client, Server
from mcpweft.telemetry import OpenTelemetry

from .helpers import CALL_TIMEOUT

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """The in-memory exporter of this process's global tracer provider, which the official SDK
    uses (a global provider can be set once per process)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def _span(spans: Any, name: str) -> Any:
    found = [s for s in spans if s.name == name]
    assert found, f"no span {name} in {[s.name for s in spans]}"
    return found[-1]


def _attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


async def test_an_official_client_span_is_the_parent_of_a_mcpweft_server_span(exporter: InMemorySpanExporter) -> None:
    exporter.clear()
    server = Server("traced")

    @server.tool()
    def add(a: float, b: float) -> float:
        return a + b

    server.add_middleware(OpenTelemetry())
    http = await server.serve_http(port=0)
    async with http, streamable_http_client(http.url) as streams:
        async with ClientSession(streams[0], streams[1], read_timeout_seconds=CALL_TIMEOUT) as session:
            await session.initialize()
            result = await session.call_tool("add", {"a": 1, "b": 2})
            assert not result.is_error

    spans = exporter.get_finished_spans()
    sent = _span(spans, "MCP send tools/call add")
    assert sent.instrumentation_scope is not None and sent.instrumentation_scope.name == "mcp-python-sdk"
    received = _span(spans, "tools/call add")
    assert received.instrumentation_scope is not None and received.instrumentation_scope.name == "mcpweft"
    assert received.kind == trace.SpanKind.SERVER
    assert received.context is not None and sent.context is not None
    assert received.context.trace_id == sent.context.trace_id
    assert received.parent is not None and received.parent.span_id == sent.context.span_id
    assert received.parent.is_remote
    attributes = _attributes(received)
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["mcp.protocol.version"] == "2025-11-25"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes["jsonrpc.request.id"] == _attributes(sent)["jsonrpc.request.id"]


async def test_a_mcpweft_client_span_is_the_parent_of_an_official_server_span(
    exporter: InMemorySpanExporter, tmp_path: Path
) -> None:
    exporter.clear()
    spans_file = tmp_path / "server-spans.jsonl"
    command = [sys.executable, str(HERE / "traced_calculator.py"), str(spans_file)]
    async with Client.stdio(command, middleware=[OpenTelemetry()], timeout=CALL_TIMEOUT) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert not result.get("isError")
        missing = await client.call_tool("subtract", {"a": 1, "b": 2})
        assert missing.get("isError")

    sent = _span(exporter.get_finished_spans(), "MCP send tools/call add")
    assert sent.kind == trace.SpanKind.CLIENT
    assert sent.instrumentation_scope is not None and sent.instrumentation_scope.name == "mcpweft"
    assert _attributes(sent)["mcp.method.name"] == "tools/call"
    server_spans = [json.loads(line) for line in spans_file.read_text().splitlines() if line.strip()]
    received = _span([_Named(s) for s in server_spans], "tools/call add").raw
    assert sent.context is not None
    assert received["context"]["trace_id"] == f"0x{sent.context.trace_id:032x}"
    assert received["parent_id"] == f"0x{sent.context.span_id:016x}"
    assert received["kind"] == "SpanKind.SERVER"
    assert received["attributes"]["gen_ai.tool.name"] == "add"


class _Named:
    """A span the server process wrote, found by its name like the in-memory ones."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.name = raw["name"]
