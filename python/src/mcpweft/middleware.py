"""Middleware: async functions around every message a server or a client receives and sends.

A middleware is ``async def middleware(message: Message, call_next: CallNext) -> Any``. It may
read or change ``message`` before ``await call_next(message)``, look at or change the outcome
(a request's result as a dict), return without calling ``call_next`` to answer the message
itself, or raise: an ``McpError`` fails the request with its code, message and data. The first
middleware added is the outermost. ``Server.add_middleware`` (or ``@server.middleware``) and
``Client(middleware=[...])`` take them, and the built-in ones below.

The chain and its rules are the core's, shared by every language: a server's chain sees the
requests and notifications it receives and those it sends (sampling, elicitation, log
messages); a client's, the calls it sends and what the server sends it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional, Union

from .types import JsonObject, optional

__all__ = ["Cache", "CallNext", "Message", "Middleware", "RateLimit", "Timing"]


@dataclass
class Message:
    """One message passing through a middleware chain.

    ``method`` and ``params`` may be changed before the message is passed on; the other fields
    describe where it belongs.
    """

    #: The JSON-RPC method.
    method: str
    #: The parameters, a dict when present.
    params: Optional[JsonObject] = None
    #: Whether it is a request (with an answer to come) rather than a notification.
    is_request: bool = True
    #: The request's id on the wire; ``None`` for a notification.
    id: Union[str, int, None] = None
    #: ``"received"`` from the peer, or ``"sent"`` by this side.
    direction: Literal["received", "sent"] = "received"
    #: The role of the side the chain belongs to.
    role: Literal["server", "client"] = "server"
    #: The transport's id of the session (Streamable HTTP's ``Mcp-Session-Id``), if any.
    session_id: Optional[str] = None
    #: The protocol revision the message belongs to.
    protocol_version: Optional[str] = None
    #: Who sent the session's latest request (the token's issuer, subject and client), if known.
    identity: Optional[str] = None
    #: The tool, prompt, resource URI or task the message is about.
    target: Optional[str] = None
    #: The message as the native layer gave it, for the fields above.
    _raw: JsonObject = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from_json(cls, raw: JsonObject) -> Message:
        return cls(
            method=raw["method"],
            params=raw.get("params"),
            is_request=raw["isRequest"],
            id=raw.get("id"),
            direction=raw["direction"],
            role=raw["role"],
            session_id=raw.get("sessionId"),
            protocol_version=raw.get("protocolVersion"),
            identity=raw.get("identity"),
            target=raw.get("target"),
            _raw=raw,
        )

    def _to_json(self) -> JsonObject:
        return {"method": self.method, "params": self.params}

    def _describe(self) -> JsonObject:
        """Every field, as the native layer names them."""
        return {
            "method": self.method,
            "params": self.params,
            "isRequest": self.is_request,
            "id": self.id,
            "direction": self.direction,
            "role": self.role,
            "sessionId": self.session_id,
            "protocolVersion": self.protocol_version,
            "identity": self.identity,
        }


#: Passes a message on to the rest of the chain and returns its outcome.
CallNext = Callable[[Message], Awaitable[Any]]
#: A middleware: an async function of the message and the rest of the chain.
Middleware = Callable[[Message, CallNext], Awaitable[Any]]


class _Builtin:
    """One of the core's built-in middleware, given to the native layer as its settings."""

    _name = ""

    def __init__(self, settings: JsonObject) -> None:
        self._settings = settings

    def _spec(self) -> JsonObject:
        return {self._name: self._settings}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._settings!r})"


class Timing(_Builtin):
    """Logs every message with how long its outcome took, through the ``mcpweft.middleware``
    logger: requests at ``INFO`` (failures at ``WARNING``), notifications at ``DEBUG``."""

    _name = "timing"

    def __init__(self) -> None:
        super().__init__({})


class RateLimit(_Builtin):
    """Refuses received requests beyond ``per_second`` on average and ``burst`` at once with
    the JSON-RPC error -32003 (``retryAfterMs`` in its data), counted ``per`` caller (the
    authenticated identity, else the session), session, or ``"global"``ly. ``initialize``,
    ``ping`` and notifications are not counted."""

    _name = "rateLimit"

    def __init__(
        self,
        per_second: float,
        burst: Optional[int] = None,
        *,
        per: Literal["caller", "session", "global"] = "caller",
    ) -> None:
        super().__init__({"perSecond": per_second, "per": per} | optional(burst=burst))


class Cache(_Builtin):
    """Answers repeated requests from earlier results while they are fresh, as 2026-07-28's
    ``ttlMs`` and ``cacheScope`` say (``"private"`` results are kept per caller, ``"public"``
    ones shared); ``default_ttl`` (seconds) applies to results without ``ttlMs``, ``max_ttl``
    bounds every one. List changes drop what they make stale. ``methods`` are the requests
    cached: by default ``server/discover``, the four lists and ``resources/read``."""

    _name = "cache"

    def __init__(
        self,
        *,
        default_ttl: Optional[float] = None,
        max_ttl: Optional[float] = None,
        max_entries: Optional[int] = None,
        methods: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(
            optional(
                defaultTtlMs=None if default_ttl is None else round(default_ttl * 1000),
                maxTtlMs=None if max_ttl is None else round(max_ttl * 1000),
                maxEntries=max_entries,
                methods=None if methods is None else list(methods),
            )
        )


def _native(middleware: Union[Middleware, _Builtin]) -> tuple[bool, Any]:
    """What the native layer takes for ``middleware``: ``(True, settings)`` for a built-in one,
    ``(False, coroutine function)`` for one written in Python."""
    if isinstance(middleware, _Builtin):
        return True, middleware._spec()
    if not (inspect.iscoroutinefunction(middleware) or inspect.iscoroutinefunction(type(middleware).__call__)):
        raise TypeError(f"a middleware is an async function (message, call_next) or a built-in one, not {middleware!r}")

    async def run(raw: JsonObject, native_next: Callable[[JsonObject], Awaitable[Any]]) -> Any:
        async def call_next(message: Message) -> Any:
            return await native_next(message._to_json())

        return await middleware(Message._from_json(raw), call_next)

    return False, run
