"""Model Context Protocol (2025-11-25) servers, clients and hosts, on the mcpweft Rust core."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _logging
from ._native import __version__, set_sync_handler_limit, sync_handler_limit
from .context import Context
from .errors import (
    CapabilityMissing,
    ConfigError,
    HandlerError,
    InternalError,
    InternalFailure,
    InvalidInputError,
    InvalidParams,
    InvalidRequest,
    IoError,
    McpError,
    MethodNotFound,
    OverloadedError,
    ParseError,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    TransportClosed,
    UrlElicitationRequired,
)
from .server import ClusterOptions, HttpServer, Server
from .types import Audio, File, Image

_logging.refresh()

if TYPE_CHECKING:
    from .auth import (
        AuthInfo,
        ClientAuth,
        ClientCredentials,
        IdentityAssertion,
        JwtSettings,
        ServerAuth,
        StoredTokens,
        TokenStore,
        WorkloadIdentity,
    )
    from .client import Client, Subscription
    from .host import Host, HostEvents

#: The public names imported on first use, and their modules: a server without authorization
#: never loads the client or the authorization settings (the idle memory of a plain server).
_LAZY = {
    "AuthInfo": "auth",
    "ClientAuth": "auth",
    "ClientCredentials": "auth",
    "IdentityAssertion": "auth",
    "WorkloadIdentity": "auth",
    "JwtSettings": "auth",
    "ServerAuth": "auth",
    "StoredTokens": "auth",
    "TokenStore": "auth",
    "Client": "client",
    "Subscription": "client",
    "Host": "host",
    "HostEvents": "host",
}


def __getattr__(name: str) -> Any:
    """Imports the module of a public name listed in ``_LAZY`` the first time it is used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Lists the module's names, the ones imported on first use included."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "Audio",
    "AuthInfo",
    "CapabilityMissing",
    "Client",
    "ClientAuth",
    "ClientCredentials",
    "ClusterOptions",
    "ConfigError",
    "Context",
    "File",
    "HandlerError",
    "Host",
    "HostEvents",
    "HttpServer",
    "IdentityAssertion",
    "Image",
    "InternalError",
    "InternalFailure",
    "InvalidInputError",
    "InvalidParams",
    "InvalidRequest",
    "IoError",
    "JwtSettings",
    "McpError",
    "MethodNotFound",
    "OverloadedError",
    "ParseError",
    "ProtocolError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "Server",
    "ServerAuth",
    "StoredTokens",
    "Subscription",
    "TokenStore",
    "TransportClosed",
    "UrlElicitationRequired",
    "WorkloadIdentity",
    "set_sync_handler_limit",
    "sync_handler_limit",
]
