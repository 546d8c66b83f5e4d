"""OpenTelemetry: a middleware that records a span around every MCP message with Python's
``opentelemetry`` API (``pip install mcpweft[otel]``), as the official Python SDK 2.x does.

What a server or client receives gets a server span, whose parent is the W3C trace context the
peer put in the message's ``_meta`` (``traceparent``, ``tracestate``); a request it sends gets a
client span, whose context goes into the request's ``_meta``. The span names and attributes
(``"tools/call add"``, ``mcp.method.name``, ``mcp.protocol.version``, ``jsonrpc.request.id``,
``gen_ai.tool.name``, ``error.type``, ...) are the official SDK's, decided once in the native
core for every mcpweft language. Spans go to the tracer provider the application sets up.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _native
from .errors import McpError
from .middleware import CallNext, Message

__all__ = ["OpenTelemetry"]


class OpenTelemetry:
    """Records a span around every message, for a server (``server.add_middleware``) or a
    client (``Client(middleware=[OpenTelemetry()])``); ``tracer_provider`` defaults to the
    global one."""

    def __init__(self, tracer_provider: Optional[Any] = None) -> None:
        try:
            from opentelemetry import propagate, trace
        except ImportError as e:  # pragma: no cover - the extra is installed in the tests
            raise ImportError("OpenTelemetry needs the opentelemetry-api package: pip install mcpweft[otel]") from e
        self._trace = trace
        self._propagate = propagate
        self._tracer = trace.get_tracer("mcpweft", tracer_provider=tracer_provider)

    def _parent(self, message: Message) -> Any:
        """The trace context in the message's ``_meta`` when it carries a valid one; otherwise
        ``None``, so that the span nests under the current one."""
        meta = (message.params or {}).get("_meta")
        if not isinstance(meta, dict) or not meta:
            return None
        try:
            context = self._propagate.extract(meta)
        except (ValueError, TypeError):
            return None
        if not self._trace.get_current_span(context).get_span_context().is_valid:
            return None
        return context

    async def __call__(self, message: Message, call_next: CallNext) -> Any:
        plan = _native.telemetry_span(message._describe())
        if plan is None:
            return await call_next(message)
        server = plan["kind"] == "server"
        kind = self._trace.SpanKind.SERVER if server else self._trace.SpanKind.CLIENT
        with self._tracer.start_as_current_span(
            plan["name"],
            kind=kind,
            attributes=plan["attributes"],
            context=self._parent(message) if server else None,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            if not server:
                params = message.params if message.params is not None else {}
                meta = params.setdefault("_meta", {})
                self._propagate.inject(meta)
                message.params = params
            try:
                result = await call_next(message)
            except McpError as e:
                self._record(span, message.method, {"error": {"kind": e.kind, "code": e.code, "message": e.message}})
                raise
            except Exception as e:
                self._record(span, message.method, {"error": {"kind": "handler", "message": str(e)}})
                raise
            self._record(span, message.method, {"result": result})
            return result

    def _record(self, span: Any, method: str, outcome: dict[str, Any]) -> None:
        recorded = _native.telemetry_outcome(method, outcome)
        if recorded["attributes"]:
            span.set_attributes(recorded["attributes"])
        if recorded["error"] is not None:
            span.set_status(self._trace.StatusCode.ERROR, recorded["error"] or None)
