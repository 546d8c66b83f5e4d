"""The Python face of an MCP client: ``async with Client.stdio([...]) as client: ...``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Sequence
from typing import Any, Callable, Optional, Union, cast

from . import _native
from .types import (
    CallToolResult,
    CompleteResult,
    CreateMessageResult,
    ElicitResult,
    GetPromptResult,
    InitializeResult,
    JsonObject,
    LoggingLevel,
    LogMessage,
    ProgressParams,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Root,
    Tool,
)

SamplingHandler = Callable[[JsonObject], Union[CreateMessageResult, str, Awaitable[Union[CreateMessageResult, str]]]]
ElicitationHandler = Callable[[JsonObject], Union[ElicitResult, Awaitable[ElicitResult]]]
RootsProvider = Union[Sequence[Root], Callable[[], Union[Sequence[Root], Awaitable[Sequence[Root]]]]]
LoggingHandler = Callable[[LogMessage], Union[None, Awaitable[None]]]
UriHandler = Callable[[str], Union[None, Awaitable[None]]]
ProgressCallback = Callable[[float, Optional[float], Optional[str]], Union[None, Awaitable[None]]]

Handlers = dict[str, tuple[Callable[..., Any], bool]]
Connect = Callable[[Optional[Handlers]], Awaitable[_native.Client]]


def _map(fn: Callable[..., Any], post: Callable[[Any], Any]) -> tuple[Callable[..., Any], bool]:
    """Wraps a user callback so that ``post`` converts its result; keeps it sync or async."""
    if inspect.iscoroutinefunction(fn):

        async def run_async(*args: Any) -> Any:
            return post(await fn(*args))

        return run_async, True

    def run_sync(*args: Any) -> Any:
        return post(fn(*args))

    return run_sync, False


def _sampling_result(value: Any) -> Any:
    if isinstance(value, str):
        return {"role": "assistant", "content": {"type": "text", "text": value}, "model": "unknown"}
    return value


def _elicitation_result(value: Any) -> Any:
    if isinstance(value, dict) and "action" not in value:
        return {"action": "accept", "content": value}
    return value


def _handlers(
    sampling_handler: Optional[SamplingHandler],
    elicitation_handler: Optional[ElicitationHandler],
    roots: Optional[RootsProvider],
    logging_handler: Optional[LoggingHandler],
    on_resource_updated: Optional[UriHandler],
    on_list_changed: Optional[UriHandler],
) -> Handlers:
    handlers: Handlers = {}
    if sampling_handler is not None:
        handlers["sampling"] = _map(sampling_handler, _sampling_result)
    if elicitation_handler is not None:
        handlers["elicitation"] = _map(elicitation_handler, _elicitation_result)
    if roots is not None:
        provider = roots if callable(roots) else (lambda fixed=list(roots): fixed)
        run, is_async = _map(provider, lambda value: {"roots": list(value)})
        handlers["roots"] = (lambda _params, run=run: run()), False
        if is_async:

            async def roots_async(_params: Any) -> Any:
                return await run()

            handlers["roots"] = roots_async, True
    if logging_handler is not None:
        handlers["logging"] = _map(logging_handler, lambda v: None)
    if on_resource_updated is not None:
        updated = on_resource_updated
        handlers["resource_updated"] = _map(lambda p: updated(p["uri"]), lambda v: v)
        if inspect.iscoroutinefunction(updated):

            async def updated_async(p: Any) -> None:
                await cast(Awaitable[None], updated(p["uri"]))

            handlers["resource_updated"] = updated_async, True
    if on_list_changed is not None:
        handlers["list_changed"] = _map(on_list_changed, lambda v: None)
    return handlers


class Client:
    """An MCP client. Connect with ``async with Client.stdio([...])`` or ``Client.http(url)``.

    Handlers given at construction answer the server: ``sampling_handler(params)``,
    ``elicitation_handler(params)``, ``roots`` (a list, or a callable returning one),
    ``logging_handler(message)``, ``on_resource_updated(uri)`` and ``on_list_changed(method)``;
    each may be a plain or an ``async`` function, and the capabilities declared follow them.
    """

    def __init__(
        self,
        connect: Connect,
        *,
        sampling_handler: Optional[SamplingHandler] = None,
        elicitation_handler: Optional[ElicitationHandler] = None,
        roots: Optional[RootsProvider] = None,
        logging_handler: Optional[LoggingHandler] = None,
        on_resource_updated: Optional[UriHandler] = None,
        on_list_changed: Optional[UriHandler] = None,
    ) -> None:
        self._connect = connect
        self._handlers = _handlers(
            sampling_handler, elicitation_handler, roots, logging_handler, on_resource_updated, on_list_changed
        )
        self._native: Optional[_native.Client] = None
        self._tasks: set[asyncio.Future[Any]] = set()

    @classmethod
    def stdio(cls, command: Sequence[str], *, timeout: Optional[float] = None, **handlers: Any) -> Client:
        """A client that spawns ``command`` (program and arguments) and talks to it over stdio."""
        argv = list(command)
        return cls(lambda h: _native.Client.connect_stdio(argv, h, timeout), **handlers)

    @classmethod
    def http(cls, url: str, *, timeout: Optional[float] = None, **handlers: Any) -> Client:
        """A client of the Streamable HTTP endpoint at ``url``."""
        return cls(lambda h: _native.Client.connect_http(url, h, timeout), **handlers)

    @classmethod
    def memory(cls, server: Any, *, timeout: Optional[float] = None, **handlers: Any) -> Client:
        """A client of a ``Server`` in this process, over an in-memory transport."""
        native_server = server._native
        return cls(lambda h: _native.Client.connect_memory(native_server, h, timeout), **handlers)

    async def connect(self) -> Client:
        """Connects and initializes the session; ``async with`` does it for you."""
        if self._native is None:
            self._native = await self._connect(self._handlers)
        return self

    async def close(self) -> None:
        """Closes the session (over stdio this ends the server process)."""
        native, self._native = self._native, None
        if native is not None:
            await native.close()

    async def __aenter__(self) -> Client:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def _session(self) -> _native.Client:
        if self._native is None:
            raise RuntimeError("the client is not connected; use `async with` or `await client.connect()`")
        return self._native

    @property
    def server_info(self) -> InitializeResult:
        """What the server answered to ``initialize``: protocol version, capabilities, info."""
        return cast(InitializeResult, self._session.server)

    async def ping(self) -> None:
        """Checks that the server answers."""
        await self._session.ping()

    async def list_tools(self) -> list[Tool]:
        """Lists every tool of the server."""
        return cast(list[Tool], await self._session.list_tools())

    async def call_tool(
        self,
        name: str,
        arguments: Optional[JsonObject] = None,
        *,
        progress: Optional[ProgressCallback] = None,
        timeout: Optional[float] = None,
    ) -> CallToolResult:
        """Calls a tool. ``progress(progress, total, message)`` hears its progress notifications.

        A tool failure comes back as a result with ``isError``; protocol errors raise ``McpError``.
        """
        on_progress = None if progress is None else self._progress(progress)
        result = await self._session.call_tool(name, arguments, on_progress, timeout)
        return cast(CallToolResult, result)

    def _progress(self, callback: ProgressCallback) -> Callable[[JsonObject], None]:
        def on_progress(params: JsonObject) -> None:
            p = cast(ProgressParams, params)
            outcome = callback(p["progress"], p.get("total"), p.get("message"))
            if inspect.isawaitable(outcome):
                task = asyncio.ensure_future(outcome)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        return on_progress

    async def list_resources(self) -> list[Resource]:
        """Lists every resource of the server."""
        return cast(list[Resource], await self._session.list_resources())

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Lists every resource template of the server."""
        return cast(list[ResourceTemplate], await self._session.list_resource_templates())

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Reads a resource."""
        return cast(ReadResourceResult, await self._session.read_resource(uri))

    async def subscribe(self, uri: str) -> None:
        """Subscribes to updates of a resource; they go to ``on_resource_updated``."""
        await self._session.subscribe(uri)

    async def unsubscribe(self, uri: str) -> None:
        """Ends a subscription."""
        await self._session.unsubscribe(uri)

    async def list_prompts(self) -> list[Prompt]:
        """Lists every prompt of the server."""
        return cast(list[Prompt], await self._session.list_prompts())

    async def get_prompt(self, name: str, arguments: Optional[dict[str, str]] = None) -> GetPromptResult:
        """Renders a prompt with string arguments."""
        return cast(GetPromptResult, await self._session.get_prompt(name, arguments))

    async def complete(self, ref: JsonObject, argument: str, value: str) -> CompleteResult:
        """Asks for completions of ``argument`` of a prompt or template.

        ``ref`` is ``{"type": "ref/prompt", "name": ...}`` or ``{"type": "ref/resource", "uri": ...}``.
        """
        return cast(CompleteResult, await self._session.complete(ref, argument, value))

    async def set_logging_level(self, level: LoggingLevel) -> None:
        """Sets the lowest level of log messages the server sends."""
        await self._session.set_logging_level(level)

    def notify_roots_changed(self) -> None:
        """Tells the server that the roots changed."""
        self._session.notify_roots_changed()
