"""The context a server handler receives when it declares a parameter annotated ``Context``."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from . import _native
from ._schema import SchemaBuilder, coerce, is_structured
from .errors import InvalidInputError

if TYPE_CHECKING:
    from .auth import AuthInfo
    from .server import Server
from .types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    JsonObject,
    LoggingLevel,
    ReadResourceResult,
    Root,
    SamplingMessage,
    Tool,
    optional,
)


class Done:
    """What the context's methods that act at once return: nothing to wait for, but awaiting
    it works too, as code written for FastMCP (``await ctx.info(...)``) does."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        yield from ()

    def __repr__(self) -> str:
        return "Done"


_DONE = Done()


class Elicited(dict[str, Any]):
    """The client's answer to ``Context.elicit``: the ``ElicitResult`` dict, with ``action``
    (``"accept"``, ``"decline"`` or ``"cancel"``) and, when accepted, ``data``, the content
    converted to the type asked for."""

    _data: Any = None

    @property
    def action(self) -> str:
        """What the user did: ``"accept"``, ``"decline"`` or ``"cancel"``."""
        return str(self.get("action"))

    @property
    def data(self) -> Any:
        """The accepted content, as the response type asked for (``None`` unless accepted)."""
        return self._data


class RequestContext:
    """FastMCP's ``ctx.request_context``: the request's ``request_id`` and ``meta``, and the
    ``lifespan_context`` (what the server's ``lifespan`` gave, ``None`` without one).

    FastMCP's ``session`` and ``request`` are not there: what they are used for (logging,
    progress, requests to the client, the HTTP session's id, the caller's identity) is on the
    ``Context`` itself.
    """

    __slots__ = ("request_id", "meta", "lifespan_context")

    def __init__(self, request_id: Union[int, str, None], meta: Optional[JsonObject], lifespan_context: Any) -> None:
        self.request_id = request_id
        self.meta = meta
        self.lifespan_context = lifespan_context

    def __repr__(self) -> str:
        fields = f"request_id={self.request_id!r}, meta={self.meta!r}, lifespan_context={self.lifespan_context!r}"
        return f"RequestContext({fields})"


class Context:
    """What a handler can do while it runs: report progress, log, and ask the client.

    The methods that only send something (``report_progress``, ``log``, ``info``, ...) act at
    once; their result may be awaited or not.
    """

    def __init__(self, native: _native.Context, server: Optional[Server] = None) -> None:
        self._native = native
        self._server = server

    @property
    def lifespan_context(self) -> Any:
        """What the server's ``lifespan`` context manager gave (``None`` without one)."""
        return None if self._server is None else self._server._lifespan_state

    @property
    def request_context(self) -> RequestContext:
        """The request's id, ``_meta`` and the lifespan's value, as FastMCP's
        ``ctx.request_context`` has them (``ctx.request_context.lifespan_context``)."""
        return RequestContext(self._native.request_id, self._native.meta, self.lifespan_context)

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Reads one of this server's own resources (or templates), as a client would."""
        if self._server is None:
            raise InvalidInputError("this context belongs to no server")
        from .client import Client

        async with Client.memory(self._server) as client:
            return await client.read_resource(uri)

    @property
    def request_id(self) -> Union[int, str, None]:
        """The JSON-RPC id of the request being handled (``None`` outside a request, as in the
        roots-changed handler)."""
        return self._native.request_id

    @property
    def session_id(self) -> Optional[str]:
        """The transport's id of the session (Streamable HTTP's ``Mcp-Session-Id``), if any."""
        return self._native.session_id

    @property
    def auth(self) -> Optional[AuthInfo]:
        """Who the request came from on a protected HTTP server (subject, client id, issuer,
        audience, scopes, expiry, claims), as the token verifier saw them; ``None`` elsewhere."""
        return cast("Optional[AuthInfo]", self._native.auth)

    @property
    def meta(self) -> Optional[JsonObject]:
        """The request's ``_meta``, if it had one."""
        return self._native.meta

    @property
    def progress_token(self) -> Union[int, str, None]:
        """The progress token the client asked for, if any."""
        return self._native.progress_token

    @property
    def protocol_version(self) -> Optional[str]:
        """The protocol version negotiated for the session."""
        return self._native.protocol_version

    @property
    def is_cancelled(self) -> bool:
        """Whether the client cancelled the request (or the session ended)."""
        return self._native.is_cancelled

    @property
    def client_info(self) -> Optional[Implementation]:
        """The client's name and version."""
        return cast(Optional[Implementation], self._native.client_info)

    @property
    def client_capabilities(self) -> JsonObject:
        """The capabilities the client declared."""
        return self._native.client_capabilities

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> Done:
        """Reports progress, when the client asked for it; ``progress`` must increase.

        It never fails because the client reads slowly: when the outgoing queue is full, only
        the latest progress waits for room, so the client sees fewer, later steps."""
        self._native.report_progress(progress, total, message)
        return _DONE

    def log(
        self, level: LoggingLevel, data: Any, logger: Optional[str] = None, *, logger_name: Optional[str] = None
    ) -> Done:
        """Sends a log message, if its level passes the client's threshold; ``logger_name`` is
        FastMCP's name for ``logger``."""
        self._native.log(level, data, logger or logger_name)
        return _DONE

    def debug(self, data: Any, logger: Optional[str] = None, *, logger_name: Optional[str] = None) -> Done:
        """Logs at level ``debug``."""
        self.log("debug", data, logger or logger_name)
        return _DONE

    def info(self, data: Any, logger: Optional[str] = None, *, logger_name: Optional[str] = None) -> Done:
        """Logs at level ``info``."""
        self.log("info", data, logger or logger_name)
        return _DONE

    def warning(self, data: Any, logger: Optional[str] = None, *, logger_name: Optional[str] = None) -> Done:
        """Logs at level ``warning``."""
        self.log("warning", data, logger or logger_name)
        return _DONE

    def error(self, data: Any, logger: Optional[str] = None, *, logger_name: Optional[str] = None) -> Done:
        """Logs at level ``error``."""
        self.log("error", data, logger or logger_name)
        return _DONE

    def close_sse_stream(self) -> Done:
        """Ends this request's SSE stream over Streamable HTTP (SSE polling).

        The client reconnects after the server's ``retry`` delay and receives the rest of the
        request's messages, the result included, on the resumed stream. Does nothing on other
        transports.
        """
        self._native.close_sse_stream()
        return _DONE

    def notify(self, method: str, params: Optional[JsonObject] = None) -> Done:
        """Sends a notification to the client, tied to the request being handled."""
        self._native.notify(method, params)
        return _DONE

    async def request(self, method: str, params: Optional[JsonObject] = None) -> JsonObject:
        """Sends any request to the client and returns its result."""
        return await self._native.request(method, params)

    async def ask(self, key: str, method: str, params: JsonObject) -> JsonObject:
        """Asks the client for input (``elicitation/create``, ``sampling/createMessage`` or
        ``roots/list``) and returns its raw answer.

        A 2026-07-28 client answers by ``key`` in a later round: until it has, this raises and
        the handler runs again from the start when the client retries, so work before asking is
        repeated (keep what should not be with :meth:`set_state`). Older clients get the request
        at once and ``key`` is not used.
        """
        return await self._native.ask(key, method, params)

    @property
    def state(self) -> Any:
        """What :meth:`set_state` kept in an earlier round of this 2026-07-28 request, or
        ``None``."""
        return self._native.state

    def set_state(self, state: Any) -> None:
        """Keeps ``state`` (JSON) for the next round of this 2026-07-28 request."""
        self._native.set_state(state)

    async def sample(
        self,
        messages: Union[str, Sequence[Union[str, SamplingMessage]]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        stop_sequences: Optional[list[str]] = None,
        model_preferences: Optional[JsonObject] = None,
        include_context: Optional[str] = None,
        metadata: Optional[JsonObject] = None,
        tools: Optional[Sequence[Tool]] = None,
        tool_choice: Optional[JsonObject] = None,
    ) -> CreateMessageResult:
        """Asks the client to sample from its model; a ``str`` is one user message.

        ``tools`` offers the model tools (``Tool`` dicts) and ``tool_choice`` says how it may use
        them, such as ``{"mode": "auto"}``; the client must declare sampling with tools. The
        result's content then may hold ``tool_use`` blocks.
        """
        items = [messages] if isinstance(messages, str) else list(messages)
        wire = [{"role": "user", "content": {"type": "text", "text": m}} if isinstance(m, str) else m for m in items]
        params = {
            "messages": wire,
            "maxTokens": max_tokens,
            **optional(
                systemPrompt=system_prompt,
                temperature=temperature,
                stopSequences=stop_sequences,
                modelPreferences=model_preferences,
                includeContext=include_context,
                metadata=metadata,
                tools=None if tools is None else list(tools),
                toolChoice=tool_choice,
            ),
        }
        return cast(CreateMessageResult, await self._native.sample(params))

    async def elicit(
        self, message: str, schema: Union[JsonObject, type, Any, None] = None, *, response_type: Any = None
    ) -> Elicited:
        """Asks the user, through the client, for data: ``schema`` is a flat object JSON Schema,
        or a type (``response_type`` as FastMCP names it): a pydantic model, dataclass or
        ``TypedDict``, or a scalar such as ``int`` or ``bool``, which is asked for as ``value``.

        The result is the ``ElicitResult`` dict; its ``action`` says what the user did and,
        with a type, ``data`` is the accepted content converted to it.
        """
        asked = response_type if response_type is not None else schema
        if asked is None:
            raise TypeError("elicit needs a schema or a response_type")
        wrapped = False
        if isinstance(asked, dict):
            requested: JsonObject = asked
        elif is_structured(asked):
            requested = SchemaBuilder().schema(asked)
        else:
            wrapped = True
            requested = {
                "type": "object",
                "properties": {"value": SchemaBuilder().schema(asked)},
                "required": ["value"],
            }
        params = {"mode": "form", "message": message, "requestedSchema": requested}
        answer = Elicited(await self._native.elicit(params))
        content = answer.get("content")
        if answer.get("action") == "accept" and not isinstance(asked, dict) and isinstance(content, dict):
            answer._data = coerce(content.get("value") if wrapped else content, asked)
        return answer

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult:
        """Asks the user, through the client, to visit ``url`` (URL-mode elicitation).

        The result says whether the user agreed to go (its action is ``accept`` without
        content); when the interaction at the URL ends, call ``notify_elicitation_complete``
        with the same ``elicitation_id``. The client must declare URL-mode elicitation.
        """
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return cast(ElicitResult, await self._native.elicit(params))

    def notify_elicitation_complete(self, elicitation_id: str) -> Done:
        """Tells the client that the URL-mode elicitation ``elicitation_id`` finished."""
        self._native.notify_elicitation_complete(elicitation_id)
        return _DONE

    async def list_roots(self) -> list[Root]:
        """Asks the client for its roots."""
        result = await self._native.list_roots()
        return cast(list[Root], result.get("roots", []))
