"""An ASGI application that serves a ``Server``'s Streamable HTTP endpoint.

Any ASGI server runs it (``uvicorn module:app``), and Starlette or FastAPI mount it
(``app.mount("/", server.asgi_app())``). The native core does all protocol work: sessions,
SSE streams, resumption, Host and Origin checks; this module only moves each exchange between
ASGI messages and the core, and ends a response stream when the client goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, MutableMapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Callable, Optional

from . import _native
from .errors import ProtocolError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: The largest request body read by default, as the core's own HTTP server allows: 4 MiB.
DEFAULT_MAX_BODY_SIZE = 4 * 1024 * 1024


class AsgiApp:
    """The ASGI application of ``Server.asgi_app()``."""

    def __init__(
        self,
        native: _native.Server,
        path: str,
        options: dict[str, Any],
        lifespan: Callable[[], AbstractAsyncContextManager[None]],
        verifier: Optional[tuple[Callable[..., Any], bool]] = None,
    ) -> None:
        self._native = native
        self._verifier = verifier
        self._lifespan = lifespan
        self._path = path
        self._options = {"path": path} | options
        self._max_body = int(options.get("maxBodySize") or DEFAULT_MAX_BODY_SIZE)
        self._endpoint: Optional[_native.HttpEndpoint] = None

    @property
    def path(self) -> str:
        """The path of the MCP endpoint, relative to where the app is mounted."""
        return self._path

    def _endpoint_now(self) -> _native.HttpEndpoint:
        # Made on the first exchange, inside the loop the ASGI server runs: handlers run there.
        if self._endpoint is None:
            self._endpoint = self._native.http_endpoint(self._options, self._verifier)
        return self._endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send, self._lifespan)
            return
        if scope["type"] != "http":
            raise ProtocolError(f"mcpweft's ASGI app serves HTTP, not {scope['type']!r}")
        body = await _read_body(receive, self._max_body)
        if body is None:
            await _plain(send, 413, f"the request body is larger than {self._max_body} bytes")
            return
        uri = _relative_path(scope)
        if scope.get("query_string"):
            uri += "?" + scope["query_string"].decode("latin-1")
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope.get("headers", [])]
        status, reply_headers, stream = await self._endpoint_now().handle(scope["method"], uri, headers, body)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in reply_headers],
            }
        )
        watcher = asyncio.ensure_future(_close_on_disconnect(receive, stream))
        try:
            while (chunk := await stream.next_chunk()) is not None:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            stream.close()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher


def _relative_path(scope: Scope) -> str:
    """The request's path below the app's mount point."""
    path: str = scope.get("path") or "/"
    root: str = scope.get("root_path") or ""
    if root and path.startswith(root):
        path = path[len(root) :]
    return path if path.startswith("/") else "/" + path


async def _read_body(receive: Receive, limit: int) -> Optional[bytes]:
    """Reads the request body, or returns ``None`` as soon as it grows past ``limit`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(parts)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


async def _close_on_disconnect(receive: Receive, stream: _native.ResponseBody) -> None:
    """Ends the response stream when the client disconnects, which the core sees as the
    client going away (an SSE stream can then be resumed)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.close()


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text.encode()})


async def _lifespan(receive: Receive, send: Send, lifespan: Callable[[], AbstractAsyncContextManager[None]]) -> None:
    """Runs the server's lifespan between the ASGI server's start-up and shut-down."""
    async with contextlib.AsyncExitStack() as running:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await running.enter_async_context(lifespan())
                except Exception as error:
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await running.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


__all__ = ["AsgiApp"]
