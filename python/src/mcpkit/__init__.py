"""Model Context Protocol (2025-11-25) servers and clients, on the mcpkit Rust core."""

from ._native import __version__, set_sync_handler_limit, sync_handler_limit
from .auth import AuthInfo, ClientAuth, ClientCredentials, JwtSettings, ServerAuth, StoredTokens, TokenStore
from .client import Client
from .context import Context
from .errors import (
    CapabilityMissing,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
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

__all__ = [
    "__version__",
    "Audio",
    "AuthInfo",
    "CapabilityMissing",
    "Client",
    "ClientAuth",
    "ClientCredentials",
    "ClusterOptions",
    "Context",
    "File",
    "HttpServer",
    "Image",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "JwtSettings",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "ProtocolError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "Server",
    "ServerAuth",
    "StoredTokens",
    "TokenStore",
    "TransportClosed",
    "UrlElicitationRequired",
    "set_sync_handler_limit",
    "sync_handler_limit",
]
