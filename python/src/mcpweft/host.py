"""One client for many servers: ``async with Host.connect("servers.json") as host: ...``."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Generator, Mapping, Sequence
from typing import Any, Callable, Literal, Optional, TypedDict, Union, cast

from . import _logging, _native
from . import middleware as _middleware
from .auth import Authorizer, TokenStore, _authorizer, _token_store
from .client import ProgressCallback, _elicitation_result, _options, _progress_listener, _sampling_result, _settle
from .errors import ConfigError, TransportClosed
from .middleware import Middleware, _Builtin
from .types import (
    AppView,
    CallToolResult,
    CreateMessageResult,
    ElicitResult,
    GetPromptResult,
    JsonObject,
    LogMessage,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Root,
    Task,
    Tool,
    optional,
)

HostSamplingHandler = Callable[
    [str, JsonObject], Union[CreateMessageResult, str, Awaitable[Union[CreateMessageResult, str]]]
]
HostElicitationHandler = Callable[[str, JsonObject], Union[ElicitResult, Awaitable[ElicitResult]]]
HostRootsProvider = Union[Sequence[Root], Callable[[str], Union[Sequence[Root], Awaitable[Sequence[Root]]]]]
HostLogHandler = Callable[[str, LogMessage], Union[None, Awaitable[None]]]
HostUriHandler = Callable[[str, str], Union[None, Awaitable[None]]]
HostNotificationHandler = Callable[[str, str, JsonObject], Union[None, Awaitable[None]]]

State = Literal["disabled", "connecting", "ready", "failed", "closed"]


class ServerState(TypedDict, total=False):
    """Where a server stands: ``state``, and for a failed one the ``reason`` and the end of
    what it wrote to ``stderr``."""

    state: State
    reason: str
    stderr: str


class HostTool(Tool, total=False):
    """A tool under its host name (``calc__add``), with the ``server`` that offers it."""

    server: str


class HostTask(Task, total=False):
    """A task a server runs for a call through the host, with the ``server`` that runs it."""

    server: str


class HostPrompt(Prompt, total=False):
    """A prompt under its host name, with the ``server`` that offers it."""

    server: str


class HostResource(Resource, total=False):
    """A resource with the ``server`` that lists it."""

    server: str


class HostResourceTemplate(ResourceTemplate, total=False):
    """A resource template with the ``server`` that lists it."""

    server: str


class Collision(TypedDict):
    """A name several ready servers offer at once, which the host offers under none of them."""

    kind: Literal["tool", "prompt", "resource", "resourceTemplate"]
    name: str
    servers: list[str]


class HostEvent(TypedDict, total=False):
    """What happened in a host, by ``type``:

    - ``"stateChanged"``: ``server`` changed state (``state``, ``reason``, ``stderr`` as
      ``Host.state`` gives them); the host's lists already show it.
    - ``"listChanged"``: ``server``'s ``list`` (``"tools"``, ``"prompts"`` or ``"resources"``)
      changed, and the host's lists show the new one.
    - ``"collisions"``: the names several servers offer changed; ``collisions`` holds all of them.
    - ``"lagged"``: the reader fell behind and ``missed`` that many events.
    """

    type: Literal["stateChanged", "listChanged", "collisions", "lagged"]
    server: str
    state: State
    reason: str
    stderr: str
    list: Literal["tools", "prompts", "resources"]
    collisions: list[Collision]
    missed: int


def _from_server(fn: Callable[[str, Any], Any], post: Callable[[Any], Any]) -> tuple[Callable[..., Any], bool]:
    """Wraps a user callback ``fn(server, params)`` as a native one ``(payload, ctx)`` whose
    result ``post`` converts; keeps it sync or async."""
    if inspect.iscoroutinefunction(fn):

        async def run_async(payload: JsonObject, _ctx: Any) -> Any:
            return post(await fn(payload["server"], payload["params"]))

        return run_async, True

    def run_sync(payload: JsonObject, _ctx: Any) -> Any:
        return post(fn(payload["server"], payload["params"]))

    return run_sync, False


def _listener(
    on_log: Optional[HostLogHandler],
    on_resource_updated: Optional[HostUriHandler],
    on_notification: Optional[HostNotificationHandler],
) -> Optional[tuple[Callable[..., Any], bool]]:
    """The one native notification callback of the hooks given, async when one of them is."""
    hooks = [h for h in (on_log, on_resource_updated, on_notification) if h is not None]
    if not hooks:
        return None

    def calls(payload: JsonObject) -> list[Any]:
        server, method, params = payload["server"], payload["method"], payload.get("params") or {}
        outcomes = []
        if on_log is not None and method == "notifications/message":
            outcomes.append(on_log(server, cast(LogMessage, params)))
        if on_resource_updated is not None and method == "notifications/resources/updated":
            outcomes.append(on_resource_updated(server, params["uri"]))
        if on_notification is not None:
            outcomes.append(on_notification(server, method, params))
        return outcomes

    if not any(inspect.iscoroutinefunction(h) for h in hooks):

        def hear_sync(payload: JsonObject, _ctx: Any) -> None:
            calls(payload)

        return hear_sync, False

    async def hear(payload: JsonObject, _ctx: Any) -> None:
        for outcome in calls(payload):
            await _settle(outcome)

    return hear, True


class HostEvents:
    """An async iterator of a host's events from the moment ``Host.events`` made it; the
    iteration ends when the host is closed (after the events of its closing) or ``close`` is
    called."""

    def __init__(self, native: _native.HostEvents) -> None:
        self._native = native

    def __aiter__(self) -> AsyncIterator[HostEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[HostEvent]:
        try:
            while (event := await self._native.next()) is not None:
                yield cast(HostEvent, event)
        finally:
            self._native.close()

    async def next(self, timeout: Optional[float] = None) -> Optional[HostEvent]:
        """Waits for the next event, for at most ``timeout`` seconds (then raises
        ``asyncio.TimeoutError``); ``None`` once the reader or the host is closed."""
        return cast(Optional[HostEvent], await asyncio.wait_for(self._native.next(), timeout))

    def close(self) -> None:
        """Ends the reader: a waiting iteration stops. Closing again does nothing."""
        self._native.close()


class Host:
    """One client for many servers, from the ``mcpServers`` configuration Claude Desktop,
    Cursor and VS Code write.

    ``Host.connect(config)`` takes the path of such a file, or the configuration as a dict (the
    whole file, or the ``mcpServers`` dict alone), and connects to every enabled server at once;
    awaiting it, or entering it with ``async with`` (which closes the host at the end), returns
    once each server is ready or failed. A server that fails does not fail the host:
    ``state(name)`` says why, with the end of its stderr. Tools and prompts are offered under
    ``<server>__<name>`` (``separator`` sets the ``__``), and calls go to the server that offers
    each; a server that exits is started again.

    The handlers answer every server and are told its name: ``sampling(server, params)`` (with
    ``sampling_tools=True`` the host declares sampling with tools),
    ``elicitation(server, params)`` (for the ``elicitation_modes`` declared), ``roots`` (a
    list, or a callable ``roots(server)`` returning one), ``on_log(server, message)``,
    ``on_resource_updated(server, uri)`` and ``on_notification(server, method, params)``. Each
    may be a plain or an ``async`` function, and the capabilities declared follow them.

    ``name``, ``version`` and ``title`` describe the host to the servers, ``protocol_version``
    is the revision it asks for, and ``timeout`` (seconds) is the time-out of requests to
    servers whose configuration has no ``timeoutMs``.

    Servers configured with ``oauth`` log the user in as a ``Client`` does:
    ``authorizer(authorization_url)`` shows the URL and returns the one the authorization server
    redirected to, ``redirect_uri`` (needed with an ``authorizer``) is where it sends the user
    back, and ``token_store`` keeps every server's tokens between runs (in memory by default).
    """

    def __init__(
        self,
        config: Union[str, os.PathLike[str], Mapping[str, Any]],
        *,
        sampling: Optional[HostSamplingHandler] = None,
        sampling_tools: bool = False,
        elicitation: Optional[HostElicitationHandler] = None,
        elicitation_modes: Sequence[str] = ("form",),
        roots: Optional[HostRootsProvider] = None,
        on_log: Optional[HostLogHandler] = None,
        on_resource_updated: Optional[HostUriHandler] = None,
        on_notification: Optional[HostNotificationHandler] = None,
        separator: Optional[str] = None,
        name: Optional[str] = None,
        version: Optional[str] = None,
        title: Optional[str] = None,
        protocol_version: Optional[str] = None,
        timeout: Optional[float] = None,
        authorizer: Optional[Authorizer] = None,
        token_store: Optional[TokenStore] = None,
        redirect_uri: Optional[str] = None,
        middleware: Sequence[Union[Middleware, _Builtin]] = (),
        apps: bool = False,
    ) -> None:
        unknown = set(elicitation_modes) - {"form", "url"}
        if unknown:
            raise ConfigError(f"unknown elicitation modes {sorted(unknown)}; use 'form' and 'url'")
        self._config: Any = os.fspath(config) if isinstance(config, (str, os.PathLike)) else dict(config)
        self._handlers: dict[str, Any] = {
            "sampling": None if sampling is None else _from_server(sampling, _sampling_result),
            "sampling_tools": sampling_tools,
            "elicitation": None if elicitation is None else _from_server(elicitation, _elicitation_result),
            "elicitation_form": "form" in elicitation_modes,
            "elicitation_url": "url" in elicitation_modes,
            "roots": None,
            "notification": _listener(on_log, on_resource_updated, on_notification),
            "authorizer": None if authorizer is None else _authorizer(authorizer),
            "token_store": None if token_store is None else _token_store(token_store),
            "close": None,
            "middleware": [_middleware._native(m) for m in middleware],
        }
        if roots is not None:
            provider = roots if callable(roots) else (lambda _server, fixed=list(roots): fixed)

            async def list_roots(payload: JsonObject, _ctx: Any) -> Any:
                return {"roots": list(await _settle(provider(payload["server"])))}

            self._handlers["roots"] = list_roots, True
        self._options = optional(
            name=name or "mcpweft-python-host",
            version=version,
            title=title,
            protocolVersion=protocol_version,
            requestTimeoutMs=None if timeout is None else round(timeout * 1000),
            separator=separator,
            redirectUri=redirect_uri,
            apps=apps or None,
        )
        self._native: Optional[_native.Host] = None
        self._tasks: set[asyncio.Future[Any]] = set()

    @classmethod
    def connect(cls, config: Union[str, os.PathLike[str], Mapping[str, Any]], **options: Any) -> Host:
        """A host of the servers of ``config``; await it or enter it with ``async with`` to
        connect (see ``Host``)."""
        return cls(config, **options)

    async def _connected(self) -> Host:
        if self._native is None:
            _logging.refresh()
            self._native = await _native.Host.connect(self._config, self._options, self._handlers)
        return self

    def __await__(self) -> Generator[Any, None, Host]:
        return self._connected().__await__()

    async def __aenter__(self) -> Host:
        return await self._connected()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes every server (a spawned one is asked to exit, then terminated) and returns
        once each has ended. Closing again does nothing."""
        if self._native is not None:
            await self._native.close()

    @property
    def _host(self) -> _native.Host:
        if self._native is None:
            raise TransportClosed("the host is not connected; await Host.connect(...) or use `async with`")
        return self._native

    def servers(self) -> dict[str, ServerState]:
        """Every configured server, in the order of the configuration, with its state."""
        return {entry.pop("name"): cast(ServerState, entry) for entry in self._host.servers()}

    def state(self, name: str) -> ServerState:
        """The state of the server ``name``; an unknown name raises ``ConfigError``."""
        return cast(ServerState, self._host.state(name))

    def tools(self) -> list[HostTool]:
        """The tools of every ready server under their host names; a name several servers
        offer is left out (see ``collisions``)."""
        return cast(list[HostTool], self._host.tools())

    def prompts(self) -> list[HostPrompt]:
        """The prompts of every ready server under their host names."""
        return cast(list[HostPrompt], self._host.prompts())

    def resources(self) -> list[HostResource]:
        """The resources of every ready server."""
        return cast(list[HostResource], self._host.resources())

    def resource_templates(self) -> list[HostResourceTemplate]:
        """The resource templates of every ready server."""
        return cast(list[HostResourceTemplate], self._host.resource_templates())

    def collisions(self) -> list[Collision]:
        """The names several ready servers offer at once, which the host offers under none."""
        return cast(list[Collision], self._host.collisions())

    async def call_tool(
        self,
        name: str,
        arguments: Optional[JsonObject] = None,
        *,
        timeout: Optional[float] = None,
        max_total_timeout: Optional[float] = None,
        progress: Optional[ProgressCallback] = None,
    ) -> CallToolResult:
        """Calls a tool by its host name. ``timeout`` (seconds; the server's ``timeoutMs`` by
        default) restarts with each progress notification, which ``progress(progress, total,
        message)`` hears; ``max_total_timeout`` bounds the whole call however much progress it
        reports. A tool failure comes back as a result with ``isError``; a server that is not
        ready, or goes away during the call, raises ``TransportClosed`` naming it."""
        on_progress = _progress_listener(progress, self._tasks)
        options = _options(timeout, max_total_timeout=max_total_timeout)
        return cast(CallToolResult, await self._host.call_tool(name, arguments, options, on_progress))

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Optional[JsonObject] = None,
        *,
        ttl: Optional[float] = None,
        timeout: Optional[float] = None,
    ) -> HostTask:
        """Calls a tool by its host name as a task on the server that offers it and returns the
        task at once (``ttl`` in seconds), with the ``server`` that runs it; follow it with
        ``get_task``, ``task_result`` or ``cancel_task``. A server that does not run tool calls
        as tasks raises ``CapabilityMissing``."""
        task = optional(ttl=None if ttl is None else round(ttl * 1000))
        created = await self._host.call_tool(name, arguments, _options(timeout, task=task))
        return cast(HostTask, {**created["task"], "server": created["server"]})

    async def get_task(self, server: str, task_id: str, *, timeout: Optional[float] = None) -> Task:
        """Returns the current state of the task ``task_id`` of the server ``server``."""
        return cast(Task, await self._host.get_task(server, task_id, _options(timeout)))

    async def task_result(self, server: str, task_id: str, *, timeout: Optional[float] = None) -> CallToolResult:
        """Waits until the task ``task_id`` of the server ``server`` ends and returns the
        tool's result."""
        return cast(CallToolResult, await self._host.task_result(server, task_id, _options(timeout)))

    async def cancel_task(self, server: str, task_id: str, *, timeout: Optional[float] = None) -> Task:
        """Cancels the task ``task_id`` of the server ``server`` and returns its final state."""
        return cast(Task, await self._host.cancel_task(server, task_id, _options(timeout)))

    async def read_app_view(self, tool: str) -> AppView:
        """Reads the app view (MCP Apps) of the tool with host name ``tool`` from its server: its
        ``html`` and ``meta``. A tool without a view raises ``ConfigError``. Tools whose
        ``visibleToModel`` is false are for the view only: leave them out of the model's list."""
        return cast(AppView, await self._host.read_app_view(tool))

    async def read_resource(
        self,
        uri: str,
        *,
        server: Optional[str] = None,
        timeout: Optional[float] = None,
        max_total_timeout: Optional[float] = None,
    ) -> ReadResourceResult:
        """Reads a resource from ``server``, or else from the server that lists ``uri`` or the
        one whose resource template matches it."""
        options = _options(timeout, max_total_timeout=max_total_timeout)
        return cast(ReadResourceResult, await self._host.read_resource(uri, server, options))

    async def get_prompt(
        self,
        name: str,
        arguments: Optional[dict[str, str]] = None,
        *,
        timeout: Optional[float] = None,
        max_total_timeout: Optional[float] = None,
    ) -> GetPromptResult:
        """Renders a prompt by its host name with string arguments."""
        options = _options(timeout, max_total_timeout=max_total_timeout)
        return cast(GetPromptResult, await self._host.get_prompt(name, arguments, options))

    def restart(self, name: str) -> None:
        """Connects to the server ``name`` again: a ready one is closed first, a failed one is
        tried anew. Its ``stateChanged`` events tell how it goes."""
        self._host.restart(name)

    def notify_roots_changed(self) -> None:
        """Tells every ready server that the roots changed."""
        self._host.notify_roots_changed()

    def events(self) -> HostEvents:
        """The host's events from now on, as an async iterator::

        async for event in host.events():
            if event["type"] == "stateChanged":
                print(event["server"], event["state"])
        """
        return HostEvents(self._host.events())
