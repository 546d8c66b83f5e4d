"""The Python face of an MCP client: ``async with Client.stdio([...]) as client: ...``."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Generator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Callable, Optional, Union, cast

from . import _logging, _native
from . import middleware as _middleware
from .auth import Authorizer, ClientAuth, TokenStore, _authorizer, _token_store
from .errors import ConfigError, TransportClosed
from .middleware import Middleware, _Builtin
from .types import (
    AppView,
    CallToolResult,
    CompleteResult,
    CreateMessageResult,
    ElicitResult,
    GetPromptResult,
    Icon,
    InitializeResult,
    JsonObject,
    ListKind,
    LoggingLevel,
    LogMessage,
    Notification,
    ProgressParams,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Root,
    SubscriptionFilter,
    Task,
    Tool,
    optional,
)

SamplingHandler = Callable[[JsonObject], Union[CreateMessageResult, str, Awaitable[Union[CreateMessageResult, str]]]]
ElicitationHandler = Callable[[JsonObject], Union[ElicitResult, Awaitable[ElicitResult]]]
RootsProvider = Union[Sequence[Root], Callable[[], Union[Sequence[Root], Awaitable[Sequence[Root]]]]]
LoggingHandler = Callable[[LogMessage], Union[None, Awaitable[None]]]
UriHandler = Callable[[str], Union[None, Awaitable[None]]]
ParamsHandler = Callable[[JsonObject], Union[None, Awaitable[None]]]
NotificationHandler = Callable[[str, JsonObject], Union[None, Awaitable[None]]]
ProgressCallback = Callable[[float, Optional[float], Optional[str]], Union[None, Awaitable[None]]]

Handlers = dict[str, Any]
#: The identifier of the skills extension, to declare in ``Client(extensions=...)``.
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"

Connect = Callable[[JsonObject, Handlers], Awaitable[_native.Client]]

_LIST_CHANGED = {
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
}


def _options(
    timeout: Optional[float] = None,
    *,
    max_total_timeout: Optional[float] = None,
    task: Optional[JsonObject] = None,
    meta: Optional[JsonObject] = None,
) -> JsonObject:
    """The options of one call as the bridge reads them (times in seconds)."""
    return optional(
        timeoutMs=None if timeout is None else timeout * 1000,
        maxTotalTimeoutMs=None if max_total_timeout is None else max_total_timeout * 1000,
        task=task,
        meta=meta,
    )


def _progress_listener(
    callback: Optional[ProgressCallback], tasks: set[asyncio.Future[Any]]
) -> Optional[Callable[[JsonObject], None]]:
    """The native listener of progress notifications that calls ``callback(progress, total,
    message)``; a coroutine it returns runs as a task kept in ``tasks``."""
    if callback is None:
        return None

    def on_progress(params: JsonObject) -> None:
        p = cast(ProgressParams, params)
        outcome = callback(p["progress"], p.get("total"), p.get("message"))
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(outcome)
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    return on_progress


def _map(fn: Callable[..., Any], post: Callable[[Any], Any]) -> tuple[Callable[..., Any], bool]:
    """Wraps a user callback ``fn(params)`` as a native one ``(params, ctx)`` whose result ``post``
    converts; keeps it sync or async."""
    if inspect.iscoroutinefunction(fn):

        async def run_async(params: Any, _ctx: Any) -> Any:
            return post(await fn(params))

        return run_async, True

    def run_sync(params: Any, _ctx: Any) -> Any:
        return post(fn(params))

    return run_sync, False


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _sampling_result(value: Any) -> Any:
    if isinstance(value, str):
        return {"role": "assistant", "content": {"type": "text", "text": value}, "model": "unknown"}
    return value


def _elicitation_result(value: Any) -> Any:
    if isinstance(value, dict) and "action" not in value:
        return {"action": "accept", "content": value}
    return value


class _Listeners:
    """The notification hooks of a client, heard through one native notification callback.

    When every hook is a plain function the callback is too, so it runs off the event loop like
    any other sync handler; with an ``async`` hook among them it runs on the loop.
    """

    def __init__(
        self,
        logging_handler: Optional[LoggingHandler],
        on_resource_updated: Optional[UriHandler],
        on_list_changed: Optional[UriHandler],
        on_elicitation_complete: Optional[UriHandler],
        on_task_status: Optional[ParamsHandler],
        on_notification: Optional[NotificationHandler],
    ) -> None:
        hooks: list[Callable[..., Any]] = []
        self.by_method: dict[str, Callable[[str, JsonObject], Any]] = {}
        if logging_handler is not None:
            hooks.append(logging_handler)
            self.by_method["notifications/message"] = lambda _m, p: logging_handler(cast(LogMessage, p))
        if on_resource_updated is not None:
            hooks.append(on_resource_updated)
            self.by_method["notifications/resources/updated"] = lambda _m, p: on_resource_updated(p["uri"])
        if on_list_changed is not None:
            hooks.append(on_list_changed)
            for method in _LIST_CHANGED:
                self.by_method[method] = lambda m, _p: on_list_changed(m)
        if on_elicitation_complete is not None:
            hooks.append(on_elicitation_complete)
            self.by_method["notifications/elicitation/complete"] = lambda _m, p: on_elicitation_complete(
                p["elicitationId"]
            )
        if on_task_status is not None:
            hooks.append(on_task_status)
            self.by_method["notifications/tasks/status"] = lambda _m, p: on_task_status(p)
        if on_notification is not None:
            hooks.append(on_notification)
        self.generic = on_notification
        self.any = bool(hooks)
        self.is_async = any(inspect.iscoroutinefunction(h) for h in hooks)

    def _calls(self, payload: JsonObject) -> list[Any]:
        method, params = payload["method"], payload.get("params") or {}
        specific = self.by_method.get(method)
        calls = [] if specific is None else [specific(method, params)]
        if self.generic is not None:
            calls.append(self.generic(method, params))
        return calls

    def handler(self) -> Optional[tuple[Callable[..., Any], bool]]:
        if not self.any:
            return None
        if not self.is_async:

            def hear_sync(payload: JsonObject, _ctx: Any) -> None:
                self._calls(payload)

            return hear_sync, False

        async def hear(payload: JsonObject, _ctx: Any) -> None:
            for outcome in self._calls(payload):
                await _settle(outcome)

        return hear, True


def _handlers(
    sampling_handler: Optional[SamplingHandler],
    sampling_tools: bool,
    elicitation_handler: Optional[ElicitationHandler],
    elicitation_modes: Sequence[str],
    roots: Optional[RootsProvider],
    listeners: _Listeners,
) -> Handlers:
    unknown = set(elicitation_modes) - {"form", "url"}
    if unknown:
        raise ConfigError(f"unknown elicitation modes {sorted(unknown)}; use 'form' and 'url'")
    handlers: Handlers = {
        "sampling": None if sampling_handler is None else _map(sampling_handler, _sampling_result),
        "sampling_tools": sampling_tools,
        "elicitation": None if elicitation_handler is None else _map(elicitation_handler, _elicitation_result),
        "elicitation_form": "form" in elicitation_modes,
        "elicitation_url": "url" in elicitation_modes,
        "roots": None,
        "notification": listeners.handler(),
        "authorizer": None,
        "token_store": None,
    }
    if roots is not None:
        provider = roots if callable(roots) else (lambda fixed=list(roots): fixed)

        async def list_roots(_params: Any, _ctx: Any) -> Any:
            return {"roots": list(await _settle(provider()))}

        handlers["roots"] = list_roots, True
    return handlers


class Subscription:
    """A ``subscriptions/listen`` stream of a 2026-07-28 server, made by ``Client.listen``.

    Awaiting it opens the stream and waits for the server's acknowledgment, and ``async with``
    does the same and closes the stream at the end of the block. It is an async iterator of the
    stream's notifications (``{"method", "params"}``, which also reach the client's handlers):
    the iteration ends when the stream ends, and the stream is closed when the iteration stops,
    whether it ended or the loop was left (``async with`` closes it at once).
    """

    def __init__(self, session: _native.Client, filter: SubscriptionFilter) -> None:
        self._session = session
        self._filter = filter
        self._native: Optional[_native.Subscription] = None

    async def _open(self) -> _native.Subscription:
        if self._native is None:
            self._native = await self._session.listen(dict(self._filter))
        return self._native

    async def _opened(self) -> Subscription:
        await self._open()
        return self

    def __await__(self) -> Generator[Any, None, Subscription]:
        return self._opened().__await__()

    async def __aenter__(self) -> Subscription:
        return await self._opened()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def acknowledged(self) -> SubscriptionFilter:
        """What the server agreed to send: the requested notifications it supports."""
        if self._native is None:
            raise TransportClosed("the subscription is not open; await it or use `async with`")
        return cast(SubscriptionFilter, self._native.acknowledged)

    def __aiter__(self) -> AsyncIterator[Notification]:
        return self._notifications()

    async def _notifications(self) -> AsyncIterator[Notification]:
        native = await self._open()
        try:
            while (notification := await native.next()) is not None:
                yield cast(Notification, notification)
        finally:
            await native.close()

    async def close(self) -> None:
        """Ends the stream; an iteration waiting for a notification then stops. Closing again,
        or closing a subscription never opened, does nothing."""
        if self._native is not None:
            await self._native.close()


class Client:
    """An MCP client. Connect with ``async with Client.stdio([...])`` or ``Client.http(url)``.

    Handlers given at construction answer the server: ``sampling_handler(params)`` (with
    ``sampling_tools=True`` the client declares sampling with tools),
    ``elicitation_handler(params)`` (for the ``elicitation_modes`` declared, ``("form",)`` by
    default), ``roots`` (a list, or a callable returning one); and hear its notifications:
    ``logging_handler(message)``, ``on_resource_updated(uri)``, ``on_list_changed(method)``,
    ``on_elicitation_complete(elicitation_id)``, ``on_task_status(task)`` and, for every
    notification, ``on_notification(method, params)``. Each may be a plain or an ``async``
    function, and the capabilities declared follow them.

    ``name``, ``version``, ``title``, ``icons`` and ``website_url`` describe the client;
    ``protocol_version`` is the revision it asks for (``"2026-07-28"`` to speak the stateless
    revision to servers that offer it, falling back to ``initialize`` with older ones);
    ``extensions`` declares the extensions the client supports, by identifier (for example
    ``{SKILLS_EXTENSION: {}}``); ``timeout`` (seconds) is the default time-out of every request,
    which each call's own ``timeout`` overrides.

    ``on_close(info)``, a plain or ``async`` function, hears once that the connection ended:
    ``info`` is ``{"reason": "closed", "message"}`` when this side closed it, or ``{"reason":
    "disconnected", "message", "exitCode", "signal", "stderr"}`` when the server ended it, where
    ``message`` is that of the ``TransportClosed`` every call raises from then on (a spawned
    server's exit code or signal and the end of its stderr).

    ``middleware`` wraps every message the client sends and receives, outermost first: each
    an ``async def middleware(message, call_next)`` or a built-in one of ``mcpweft.middleware``
    (a ``Cache`` keeps list results while they are fresh).

    ``apps=True`` declares MCP Apps: the client renders app views (``read_app_view``), so
    servers list their views and the tools only a view may call.
    """

    def __init__(
        self,
        connect: Connect,
        *,
        sampling_handler: Optional[SamplingHandler] = None,
        sampling_tools: bool = False,
        elicitation_handler: Optional[ElicitationHandler] = None,
        elicitation_modes: Sequence[str] = ("form",),
        roots: Optional[RootsProvider] = None,
        logging_handler: Optional[LoggingHandler] = None,
        on_resource_updated: Optional[UriHandler] = None,
        on_list_changed: Optional[UriHandler] = None,
        on_elicitation_complete: Optional[UriHandler] = None,
        on_task_status: Optional[ParamsHandler] = None,
        on_notification: Optional[NotificationHandler] = None,
        name: Optional[str] = None,
        version: Optional[str] = None,
        title: Optional[str] = None,
        icons: Optional[list[Icon]] = None,
        website_url: Optional[str] = None,
        protocol_version: Optional[str] = None,
        extensions: Optional[Mapping[str, JsonObject]] = None,
        timeout: Optional[float] = None,
        on_close: Optional[Callable[[JsonObject], Any]] = None,
        middleware: Sequence[Union[Middleware, _Builtin]] = (),
        apps: bool = False,
    ) -> None:
        self._connect = connect
        listeners = _Listeners(
            logging_handler,
            on_resource_updated,
            on_list_changed,
            on_elicitation_complete,
            on_task_status,
            on_notification,
        )
        self._handlers = _handlers(
            sampling_handler, sampling_tools, elicitation_handler, elicitation_modes, roots, listeners
        )
        self._handlers["close"] = None if on_close is None else _map(on_close, lambda _result: None)
        self._handlers["middleware"] = [_middleware._native(m) for m in middleware]
        self._options = optional(
            name=name or "mcpweft-python",
            version=version,
            title=title,
            icons=icons,
            websiteUrl=website_url,
            protocolVersion=protocol_version,
            capabilities=None if extensions is None else {"extensions": dict(extensions)},
            requestTimeoutMs=None if timeout is None else round(timeout * 1000),
            apps=apps or None,
        )
        self._native: Optional[_native.Client] = None
        self._tasks: set[asyncio.Future[Any]] = set()
        #: The lifespan of an in-process server, run while this client is connected to it.
        self._server_lifespan: Optional[Callable[[], AbstractAsyncContextManager[None]]] = None
        self._running = contextlib.AsyncExitStack()

    @classmethod
    def stdio(
        cls,
        command: Sequence[str],
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        **options: Any,
    ) -> Client:
        """A client that spawns ``command`` (program and arguments, with ``env`` added to this
        process's environment, in ``cwd``) and talks to it over stdio."""
        if not command:
            raise ConfigError("the command is empty")
        program, *args = command
        transport = {"type": "stdio", "command": program, "args": args} | optional(
            env=None if env is None else dict(env), cwd=cwd
        )
        return cls(lambda o, h: _native.Client.connect(transport, o, h), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        bearer_token: Optional[str] = None,
        auth: Optional[ClientAuth] = None,
        authorizer: Optional[Authorizer] = None,
        token_store: Optional[TokenStore] = None,
        **options: Any,
    ) -> Client:
        """A client of the Streamable HTTP endpoint at ``url``, sending ``headers`` and
        ``Authorization: Bearer <bearer_token>`` with every request.

        ``auth`` logs in to a protected server with OAuth 2.1 (see ``ClientAuth``) when it
        answers ``401``: ``authorizer(authorization_url)``, a plain or ``async`` function, shows
        the user the URL and returns the URL the authorization server redirected to. A user's
        login needs an ``authorizer``; connecting without one raises ``ConfigError`` (a ``ValueError``).
        ``token_store`` keeps the tokens between runs (in memory by default).
        """
        transport = {"type": "http", "url": url} | optional(
            headers=None if headers is None else dict(headers),
            bearerToken=bearer_token,
            auth=None if auth is None else auth._to_json(),
        )
        client = cls(lambda o, h: _native.Client.connect(transport, o, h), **options)
        client._handlers["authorizer"] = None if authorizer is None else _authorizer(authorizer)
        client._handlers["token_store"] = None if token_store is None else _token_store(token_store)
        return client

    @classmethod
    def memory(cls, server: Any, **options: Any) -> Client:
        """A client of a ``Server`` in this process, over an in-memory transport."""
        native_server = server._native
        client = cls(lambda o, h: _native.Client.connect_memory(native_server, o, h), **options)
        client._server_lifespan = server._lifespan_running
        return client

    async def connect(self) -> Client:
        """Connects and initializes the session; ``async with`` does it for you."""
        if self._native is None:
            _logging.refresh()
            if self._server_lifespan is not None:
                await self._running.enter_async_context(self._server_lifespan())
            try:
                self._native = await self._connect(self._options, self._handlers)
            except BaseException:
                await self._running.aclose()
                raise
        return self

    async def close(self) -> None:
        """Closes the session (over stdio this ends the server process)."""
        native, self._native = self._native, None
        try:
            if native is not None:
                await native.close()
        finally:
            await self._running.aclose()

    async def __aenter__(self) -> Client:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def _session(self) -> _native.Client:
        if self._native is None:
            raise TransportClosed("the client is not connected; use `async with` or `await client.connect()`")
        return self._native

    @property
    def server_info(self) -> InitializeResult:
        """What the server answered to ``initialize``: protocol version, capabilities, info."""
        return cast(InitializeResult, self._session.server)

    @property
    def protocol_version(self) -> str:
        """The protocol version negotiated with the server."""
        return self._session.protocol_version

    async def request(
        self, method: str, params: Optional[JsonObject] = None, *, timeout: Optional[float] = None
    ) -> JsonObject:
        """Sends any request and returns its raw result; ``timeout`` is in seconds."""
        return cast(JsonObject, await self._session.request(method, params, _options(timeout)))

    def notify(self, method: str, params: Optional[JsonObject] = None) -> None:
        """Sends any notification to the server."""
        self._session.notify(method, params)

    async def ping(self, *, timeout: Optional[float] = None) -> None:
        """Checks that the server answers (with a 2026-07-28 server, which has no ``ping``, by
        ``server/discover``)."""
        await self._session.ping(_options(timeout))

    async def list_page(self, kind: ListKind, cursor: Optional[str] = None) -> JsonObject:
        """Lists one page of ``kind`` (``"tools"``, ``"resources"``, ``"resourceTemplates"``,
        ``"prompts"`` or ``"tasks"``) from ``cursor``; the result holds the items under ``kind``
        and ``nextCursor`` when more pages follow."""
        return await self._session.list_page(kind, cursor)

    async def list_tools(self) -> list[Tool]:
        """Lists every tool of the server."""
        return cast(list[Tool], await self._session.list_all("tools"))

    async def call_tool(
        self,
        name: str,
        arguments: Optional[JsonObject] = None,
        *,
        progress: Optional[ProgressCallback] = None,
        timeout: Optional[float] = None,
        meta: Optional[JsonObject] = None,
    ) -> CallToolResult:
        """Calls a tool. ``progress(progress, total, message)`` hears its progress notifications.

        A tool failure comes back as a result with ``isError``; protocol errors raise ``McpError``.
        """
        on_progress = _progress_listener(progress, self._tasks)
        result = await self._session.call_tool(name, arguments, _options(timeout, meta=meta), on_progress)
        return cast(CallToolResult, result)

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Optional[JsonObject] = None,
        *,
        ttl: Optional[float] = None,
        timeout: Optional[float] = None,
    ) -> Task:
        """Calls a tool as a task and returns the task at once (``ttl`` in seconds); follow it
        with ``get_task``, ``task_result`` or ``on_task_status``."""
        task = optional(ttl=None if ttl is None else round(ttl * 1000))
        created = await self._session.call_tool(name, arguments, _options(timeout, task=task))
        return cast(Task, created["task"])

    async def list_skills(self) -> list[JsonObject]:
        """Lists the server's skills (extension ``SKILLS_EXTENSION``), every page, reading no
        skill file: each entry has the ``uri`` of the skill's ``SKILL.md``, its ``frontmatter``
        and its files (``resources``, each with ``uri``, ``digest`` and ``size``). Raises
        ``CapabilityMissing`` when the server does not declare the extension."""
        return await self._session.list_skills()

    async def load_skill(self, entry: JsonObject) -> JsonObject:
        """Loads the skill of ``entry`` (one of ``list_skills``) when it is used: fetches its
        ``SKILL.md`` and returns ``{"entry", "frontmatter", "body"}`` once the file matches the
        entry's size, digest and every frontmatter field; otherwise raises ``ProtocolError``."""
        return await self._session.load_skill(entry)

    async def read_skill_file(self, entry: JsonObject, uri: str) -> bytes:
        """Reads the supporting file ``uri`` of the skill of ``entry``, which must list it, and
        returns its bytes once they match the entry's size and digest; otherwise raises
        ``ProtocolError``."""
        return await self._session.read_skill_file(entry, uri)

    def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resources: Sequence[str] = (),
    ) -> Subscription:
        """Opens a ``subscriptions/listen`` stream of a 2026-07-28 server for changes of the tool,
        prompt or resource lists and updates of the ``resources`` named by URI, once awaited or
        entered with ``async with``; iterate over it for the stream's notifications. An older
        server raises ``CapabilityMissing``: it sends its notifications unasked (subscribe to a
        resource with ``subscribe``)::

            async with client.listen(tools_list_changed=True, resources=["file:///notes"]) as sub:
                async for notification in sub:
                    print(notification["method"], notification["params"])
        """
        filter = SubscriptionFilter(
            toolsListChanged=tools_list_changed,
            promptsListChanged=prompts_list_changed,
            resourcesListChanged=resources_list_changed,
            resourceSubscriptions=list(resources),
        )
        return Subscription(self._session, filter)

    async def get_task(self, task_id: str, *, timeout: Optional[float] = None) -> Task:
        """Returns the current state of a task."""
        return cast(Task, await self._session.get_task(task_id, _options(timeout)))

    async def task_result(self, task_id: str, *, timeout: Optional[float] = None) -> JsonObject:
        """Waits for a task to finish and returns the result of its request (for a tool call, a
        ``CallToolResult``)."""
        return await self._session.task_result(task_id, _options(timeout))

    async def list_tasks(self) -> list[Task]:
        """Lists every task of this client on the server."""
        return cast(list[Task], await self._session.list_all("tasks"))

    async def cancel_task(self, task_id: str, *, timeout: Optional[float] = None) -> Task:
        """Cancels a task and returns its final state."""
        return cast(Task, await self._session.cancel_task(task_id, _options(timeout)))

    async def list_resources(self) -> list[Resource]:
        """Lists every resource of the server."""
        return cast(list[Resource], await self._session.list_all("resources"))

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Lists every resource template of the server."""
        return cast(list[ResourceTemplate], await self._session.list_all("resourceTemplates"))

    async def read_resource(self, uri: str, *, timeout: Optional[float] = None) -> ReadResourceResult:
        """Reads a resource."""
        return cast(ReadResourceResult, await self._session.read_resource(uri, _options(timeout)))

    async def read_app_view(self, uri: str) -> AppView:
        """Reads the HTML view of an app (MCP Apps) at ``uri``, the ``_meta.ui.resourceUri`` of the
        tools bound to it: its ``html`` and its ``meta`` (``csp``, ``permissions``, ``domain``,
        ``prefersBorder``). A resource that is not an app view raises ``ProtocolError``; connect
        with ``apps=True`` so that the server lists its views and app-only tools."""
        return cast(AppView, await self._session.read_app_view(uri))

    async def subscribe(self, uri: str, *, timeout: Optional[float] = None) -> None:
        """Subscribes to updates of a resource; they go to ``on_resource_updated``. With a
        2026-07-28 server the client's ``subscriptions/listen`` stream carries them, and this
        returns once the server acknowledged the resource."""
        await self._session.subscribe(uri, _options(timeout))

    async def unsubscribe(self, uri: str, *, timeout: Optional[float] = None) -> None:
        """Ends a subscription."""
        await self._session.unsubscribe(uri, _options(timeout))

    async def list_prompts(self) -> list[Prompt]:
        """Lists every prompt of the server."""
        return cast(list[Prompt], await self._session.list_all("prompts"))

    async def get_prompt(
        self, name: str, arguments: Optional[dict[str, str]] = None, *, timeout: Optional[float] = None
    ) -> GetPromptResult:
        """Renders a prompt with string arguments."""
        return cast(GetPromptResult, await self._session.get_prompt(name, arguments, _options(timeout)))

    async def complete(
        self,
        ref: JsonObject,
        argument: str,
        value: str,
        *,
        arguments: Optional[dict[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> CompleteResult:
        """Asks for completions of ``argument`` of a prompt or template.

        ``ref`` is ``{"type": "ref/prompt", "name": ...}`` or ``{"type": "ref/resource", "uri": ...}``;
        ``arguments`` are the other arguments already resolved.
        """
        params = {"ref": ref, "argument": {"name": argument, "value": value}} | optional(
            context=None if arguments is None else {"arguments": arguments}
        )
        return cast(CompleteResult, await self._session.complete(params, _options(timeout)))

    async def set_logging_level(self, level: LoggingLevel, *, timeout: Optional[float] = None) -> None:
        """Sets the lowest level of log messages the server sends (with a 2026-07-28 server the
        level goes with every later request); an unknown level raises ``InvalidInputError``."""
        await self._session.set_logging_level(level, _options(timeout))

    def notify_roots_changed(self) -> None:
        """Tells the server that the roots changed."""
        self._session.notify_roots_changed()
