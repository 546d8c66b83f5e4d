"""Exceptions of mcpweft: JSON-RPC errors from the peer and local failures.

A handler that raises one of these answers the request with that JSON-RPC error; any other
exception from a tool (local ones such as ``RequestTimeout`` included) becomes an ``isError``
result, and from other handlers an internal error. The codes are those of the native module's
``ERROR_CODES`` table, which the tests check this module against.
"""

from __future__ import annotations

from collections.abc import Awaitable
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
    """An MCP error with its JSON-RPC ``code``, ``message`` and optional ``data``."""

    code: int
    message: str
    data: Any
    #: Whether the error is a local failure rather than an error to answer a request with.
    local: ClassVar[bool] = False

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"

    @classmethod
    def from_wire(cls, code: int, message: str, data: Any = None) -> McpError:
        """Builds the most specific exception for a JSON-RPC error received from the peer."""
        known = _BY_CODE.get(code)
        if known is not None:
            return known(message, data)
        return McpError(code, message, data)


class _CodedError(McpError):
    """An error whose code is fixed by its class."""

    CODE: ClassVar[int] = INTERNAL_ERROR
    DEFAULT_MESSAGE: ClassVar[str] = "Internal error"

    def __init__(self, message: Optional[str] = None, data: Any = None) -> None:
        super().__init__(self.CODE, message if message is not None else self.DEFAULT_MESSAGE, data)


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


class TransportClosed(_CodedError):
    """The connection closed before the response came (local)."""

    CODE = CONNECTION_CLOSED
    DEFAULT_MESSAGE = "Transport closed"
    local = True


class RequestTimeout(_CodedError):
    """No response came in time; the request was cancelled (local)."""

    CODE = REQUEST_TIMEOUT
    DEFAULT_MESSAGE = "Request timed out"
    local = True


class RequestCancelled(_CodedError):
    """This side cancelled the request (local)."""

    CODE = REQUEST_CANCELLED
    DEFAULT_MESSAGE = "Request cancelled"
    local = True


class CapabilityMissing(_CodedError):
    """The peer did not declare the capability the request needs (local)."""

    CODE = METHOD_NOT_FOUND
    DEFAULT_MESSAGE = "Capability missing"
    local = True


class ProtocolError(_CodedError):
    """The peer broke the protocol, or a payload could not be converted (local)."""

    CODE = INTERNAL_ERROR
    DEFAULT_MESSAGE = "Protocol error"
    local = True


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

_BY_CODE: dict[int, type[_CodedError]] = {cls.CODE: cls for cls in BY_NAME.values() if cls is not RequestTimeout}

_BY_KIND: dict[str, type[_CodedError]] = {
    "transport_closed": TransportClosed,
    "timeout": RequestTimeout,
    "cancelled": RequestCancelled,
    "protocol": ProtocolError,
    "capability_missing": CapabilityMissing,
}


def _from_native(kind: str, code: Optional[int], message: str, data: Any) -> Exception:
    """Builds the exception for an error of the native module, by its stable kind name.

    A JSON-RPC error (kind ``rpc``) is built by ``McpError.from_wire``; local failures get
    their ``McpError`` subclass, or ``ValueError`` for invalid input and settings, ``OSError``
    for input/output failures and ``RuntimeError`` for the rest.
    """
    if kind == "rpc" and code is not None:
        return McpError.from_wire(code, message, data)
    local = _BY_KIND.get(kind)
    if local is not None:
        return local(message)
    if kind in ("config", "invalid_input"):
        return ValueError(message)
    if kind == "io":
        return OSError(message)
    return RuntimeError(message)


async def _contain(call: Awaitable[_T]) -> _T:
    """Awaits a coroutine handler so that ``SystemExit`` and ``KeyboardInterrupt`` fail only its
    call: asyncio would let them out of the event loop and stop the server. The native module
    runs every coroutine handler through this."""
    try:
        return await call
    except (SystemExit, KeyboardInterrupt) as exc:
        detail = f": {exc}" if str(exc) else ""
        raise RuntimeError(f"the handler raised {type(exc).__name__}{detail}") from None


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
]
