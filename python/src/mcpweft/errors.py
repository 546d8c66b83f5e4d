"""Exceptions of mcpweft: JSON-RPC errors from the peer and local failures.

Every error mcpweft raises is an ``McpError``, with the bridge's ``kind``, the JSON-RPC
``code`` (where there is one), ``data`` and ``causes``. A handler that raises one of kind
``rpc`` (``McpError(code, ...)``, ``InvalidParams``...) answers the request with that JSON-RPC
error; any other exception from a tool (local ones such as ``RequestTimeout`` included)
becomes an ``isError`` result, and from other handlers an internal error. The classes are
those of the native module's ``ERROR_KINDS`` and ``ERROR_CODES`` tables, which the tests check
this module against.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, ClassVar, Optional, TypeVar

_T = TypeVar("_T")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
REQUEST_TIMEOUT = -32001
URL_ELICITATION_REQUIRED = -32042
CONNECTION_CLOSED = -32000
REQUEST_CANCELLED = -32800


class McpError(Exception):
    """Every error mcpweft raises: a JSON-RPC error (kind ``rpc``) or a local failure.

    ``kind`` is the bridge's stable kind name (the same in every mcpweft language), ``code`` the
    JSON-RPC code (``None`` for a local failure without one), ``data`` the JSON-RPC error's
    data, and ``causes`` the messages of the underlying errors, outermost first. Raised by a
    handler, an error of kind ``rpc`` answers the request with its code, message and data.
    """

    #: The bridge's stable name of the kind of every error of this class.
    KIND: ClassVar[str] = "rpc"
    code: Optional[int]
    message: str
    data: Any
    kind: str
    causes: list[str]
    #: Whether the error is a local failure rather than an error to answer a request with.
    local: ClassVar[bool] = False

    def __init__(self, code: Optional[int], message: str, data: Any = None, *, causes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.kind = self.KIND
        self.causes = list(causes)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        causes = f", causes={self.causes!r}" if self.causes else ""
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r}{causes})"

    @classmethod
    def from_wire(cls, code: int, message: str, data: Any = None) -> McpError:
        """Builds the most specific exception for a JSON-RPC error received from the peer."""
        known = _BY_CODE.get(code)
        if known is not None:
            return known(message, data)
        return McpError(code, message, data)


class _CodedError(McpError):
    """An error whose code (``None`` for a local failure without one) is fixed by its class."""

    CODE: ClassVar[Optional[int]] = INTERNAL_ERROR
    DEFAULT_MESSAGE: ClassVar[str] = "Internal error"

    def __init__(self, message: Optional[str] = None, data: Any = None, *, causes: Sequence[str] = ()) -> None:
        super().__init__(self.CODE, message if message is not None else self.DEFAULT_MESSAGE, data, causes=causes)


class ParseError(_CodedError):
    """The peer sent invalid JSON (-32700)."""

    CODE = PARSE_ERROR
    DEFAULT_MESSAGE = "Parse error"


class InvalidRequest(_CodedError):
    """The message was not a valid request (-32600)."""

    CODE = INVALID_REQUEST
    DEFAULT_MESSAGE = "Invalid request"


class MethodNotFound(_CodedError):
    """The method does not exist or is not supported (-32601)."""

    CODE = METHOD_NOT_FOUND
    DEFAULT_MESSAGE = "Method not found"


class InvalidParams(_CodedError):
    """The parameters are invalid (-32602)."""

    CODE = INVALID_PARAMS
    DEFAULT_MESSAGE = "Invalid params"


class InternalError(_CodedError):
    """The peer failed while handling the request (-32603)."""

    CODE = INTERNAL_ERROR
    DEFAULT_MESSAGE = "Internal error"


class ResourceNotFound(_CodedError):
    """The resource does not exist (-32002)."""

    CODE = RESOURCE_NOT_FOUND
    DEFAULT_MESSAGE = "Resource not found"


class UrlElicitationRequired(_CodedError):
    """The request needs the user to complete a URL-mode elicitation first (-32042).

    Its ``data`` holds ``{"elicitations": [...]}``, the URL-mode elicitation requests to show.
    """

    CODE = URL_ELICITATION_REQUIRED
    DEFAULT_MESSAGE = "URL elicitation required"


class _LocalError(_CodedError):
    """A local failure: kind ``KIND`` of the bridge's table, never an answer to a request."""

    CODE: ClassVar[Optional[int]] = None
    local = True


class TransportClosed(_LocalError):
    """The connection closed before the response came (kind ``transport_closed``)."""

    KIND = "transport_closed"
    CODE = CONNECTION_CLOSED
    DEFAULT_MESSAGE = "Transport closed"


class RequestTimeout(_LocalError):
    """No response came in time; the request was cancelled (kind ``timeout``)."""

    KIND = "timeout"
    CODE = REQUEST_TIMEOUT
    DEFAULT_MESSAGE = "Request timed out"


class RequestCancelled(_LocalError):
    """This side cancelled the request (kind ``cancelled``)."""

    KIND = "cancelled"
    CODE = REQUEST_CANCELLED
    DEFAULT_MESSAGE = "Request cancelled"


class CapabilityMissing(_LocalError):
    """The peer did not declare the capability the request needs (kind ``capability_missing``)."""

    KIND = "capability_missing"
    CODE = METHOD_NOT_FOUND
    DEFAULT_MESSAGE = "Capability missing"


class ProtocolError(_LocalError):
    """The peer broke the protocol, or the negotiation failed (kind ``protocol``)."""

    KIND = "protocol"
    DEFAULT_MESSAGE = "Protocol error"


class ConfigError(_LocalError, ValueError):
    """A registration or setting is invalid, such as a name registered twice (kind ``config``)."""

    KIND = "config"
    DEFAULT_MESSAGE = "Invalid configuration"


class InvalidInputError(_LocalError, ValueError):
    """A value handed to mcpweft does not have the shape it needs (kind ``invalid_input``)."""

    KIND = "invalid_input"
    DEFAULT_MESSAGE = "Invalid input"


class IoError(_LocalError, OSError):
    """An input/output failure, such as a command that cannot be spawned or a port in use
    (kind ``io``)."""

    KIND = "io"
    DEFAULT_MESSAGE = "Input/output error"


class HandlerError(_LocalError, RuntimeError):
    """A handler failed without choosing a JSON-RPC error (kind ``handler``)."""

    KIND = "handler"
    DEFAULT_MESSAGE = "The handler failed"


class OverloadedError(_LocalError, RuntimeError):
    """Too much work is queued already; the call may be tried again (kind ``overloaded``)."""

    KIND = "overloaded"
    DEFAULT_MESSAGE = "Overloaded"


class InternalFailure(_LocalError, RuntimeError):
    """A failure inside mcpweft itself, such as a panic (kind ``internal``)."""

    KIND = "internal"
    DEFAULT_MESSAGE = "Internal failure"


#: The class of each JSON-RPC error code that a peer can answer with, by the name the native
#: module's ``ERROR_CODES`` table gives it.
BY_NAME: dict[str, type[_CodedError]] = {
    cls.__name__: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        RequestTimeout,
        ResourceNotFound,
        UrlElicitationRequired,
    )
}

_BY_CODE: dict[int, type[_CodedError]] = {
    cls.CODE: cls for cls in BY_NAME.values() if cls is not RequestTimeout and cls.CODE is not None
}

_LOCAL_BY_KIND: dict[str, type[_LocalError]] = {
    cls.KIND: cls
    for cls in (
        TransportClosed,
        RequestTimeout,
        RequestCancelled,
        ProtocolError,
        CapabilityMissing,
        ConfigError,
        InvalidInputError,
        IoError,
        HandlerError,
        OverloadedError,
        InternalFailure,
    )
}

#: The class of each error kind of the native module's ``ERROR_KINDS`` table, by kind name.
BY_KIND: dict[str, type[McpError]] = {McpError.KIND: McpError, **_LOCAL_BY_KIND}


def _from_native(kind: str, code: Optional[int], message: str, data: Any, causes: Sequence[str] = ()) -> McpError:
    """Builds the exception for an error of the native module, by its stable kind name.

    A JSON-RPC error (kind ``rpc``) is built by ``McpError.from_wire``; a local failure gets
    the class of its kind, which also derives from ``ValueError`` (config and input errors),
    ``OSError`` (input/output) or ``RuntimeError`` (handler, overloaded, internal).
    """
    error: McpError
    local = _LOCAL_BY_KIND.get(kind)
    if kind == "rpc" and code is not None:
        error = McpError.from_wire(code, message, data)
    elif local is not None:
        error = local(message, data)
    else:
        error = McpError(code, message, data)
        error.kind = kind
    error.causes = list(causes)
    return error


async def _contain(call: Awaitable[_T]) -> _T:
    """Awaits a coroutine handler so that ``SystemExit`` and ``KeyboardInterrupt`` fail only its
    call: asyncio would let them out of the event loop and stop the server. The native module
    runs every coroutine handler through this."""
    try:
        return await call
    except (SystemExit, KeyboardInterrupt) as exc:
        detail = f": {exc}" if str(exc) else ""
        raise HandlerError(f"the handler raised {type(exc).__name__}{detail}") from None


__all__ = [
    "McpError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "ResourceNotFound",
    "UrlElicitationRequired",
    "TransportClosed",
    "RequestTimeout",
    "RequestCancelled",
    "CapabilityMissing",
    "ProtocolError",
    "ConfigError",
    "InvalidInputError",
    "IoError",
    "HandlerError",
    "OverloadedError",
    "InternalFailure",
]
