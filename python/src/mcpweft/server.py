"""The Python face of an MCP server: decorators that register functions with the native bridge.

A handler's return value is turned into JSON here (``_convert``); the bridge then applies the
result rules shared by every language, and the error policy: a non-local ``McpError`` answers
with that JSON-RPC error, and any other exception from a tool is an ``isError`` result.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import sys
import typing
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Callable, Optional, TypedDict, TypeVar, Union, overload

from . import _convert, _logging, _native
from . import middleware as _middleware
from .middleware import Middleware, _Builtin

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .asgi import AsgiApp
    from .auth import ServerAuth, Verifier
from ._schema import Signature
from .context import Context
from .errors import ConfigError
from .types import AppCsp, Icon, JsonObject, LoggingLevel, TaskSupport, Visibility, optional

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=Middleware)

_TEMPLATE = re.compile(r"{[^{}]+}")


def ensure_no_running_loop(what: str) -> None:
    """Raises ``ConfigError`` when a blocking call is made from a thread running an asyncio loop.

    Such a call would block the very loop its own async handlers need, and hang forever.
    """
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:  # No loop runs before asyncio is imported, and importing it costs memory.
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise ConfigError(
        f"{what} blocks until it is done, so it cannot be called from a thread that runs an asyncio "
        "event loop; await the async API instead (for example `await server.serve_stdio()`)"
    )


def _millis(seconds: Optional[float]) -> Optional[int]:
    return None if seconds is None else round(seconds * 1000)


def _adapt(fn: Callable[..., Any], is_async: bool, finish: Callable[[Any], Any]) -> Callable[..., Any]:
    """Wraps ``fn`` so that ``finish`` converts its result, keeping it sync or async like ``fn``."""
    if is_async:

        async def run_async(payload: Any, ctx: _native.Context) -> Any:
            return finish(await fn(payload, ctx))

        return run_async

    def run_sync(payload: Any, ctx: _native.Context) -> Any:
        return finish(fn(payload, ctx))

    return run_sync


def _context_kwargs(sig: Signature, ctx: _native.Context, server: Server) -> dict[str, Context]:
    return {p.name: Context(ctx, server) for p in sig.params if p.is_context}


class EndpointOptions(TypedDict, total=False):
    """The settings of a Streamable HTTP endpoint, as keyword arguments (times in seconds)."""

    allowed_hosts: list[str]
    allowed_origins: list[str]
    json_response: bool
    stateful: bool
    session_idle_timeout: float
    max_body_size: int
    max_buffered_body_bytes: int
    sse_retry: float
    keep_alive: float
    event_store_capacity: int
    max_queued_events: int
    require_negotiated_version: bool


class _ClusterUrl(TypedDict):
    """The one required cluster setting (a base class, as ``Required`` needs Python 3.11)."""

    url: str


class ClusterOptions(_ClusterUrl, total=False):
    """Cluster mode: the sessions of a Streamable HTTP server shared through Redis, so that any
    number of processes behind a load balancer without session affinity serve them.

    ``url`` (required) names the Redis server, such as ``"redis://127.0.0.1:6379/0"``;
    ``prefix`` starts every key of this cluster; ``max_events_per_stream`` bounds the events
    kept for resumption in each SSE stream; ``liveness_ttl`` (seconds) is how long a silent
    process counts as alive; ``command_timeout`` (seconds) bounds each Redis command.
    """

    prefix: str
    max_events_per_stream: int
    liveness_ttl: float
    command_timeout: float


class HttpOptions(EndpointOptions, total=False):
    """The settings of a Streamable HTTP server on its own port: those of its endpoint, those
    of its connections (times in seconds), and cluster mode."""

    header_read_timeout: float
    body_read_timeout: float
    max_connections: int
    allow_remote_without_auth: bool
    cluster: ClusterOptions


#: Each keyword setting's key in the bridge's HTTP options, and whether it is in seconds.
_HTTP_KEYS: dict[str, tuple[str, bool]] = {
    "allowed_hosts": ("allowedHosts", False),
    "allowed_origins": ("allowedOrigins", False),
    "json_response": ("jsonResponse", False),
    "stateful": ("stateful", False),
    "session_idle_timeout": ("sessionIdleTimeoutMs", True),
    "max_body_size": ("maxBodySize", False),
    "max_buffered_body_bytes": ("maxBufferedBodyBytes", False),
    "sse_retry": ("sseRetryMs", True),
    "keep_alive": ("keepAliveMs", True),
    "event_store_capacity": ("eventStoreCapacity", False),
    "max_queued_events": ("maxQueuedEvents", False),
    "require_negotiated_version": ("requireNegotiatedVersion", False),
    "header_read_timeout": ("headerReadTimeoutMs", True),
    "body_read_timeout": ("bodyReadTimeoutMs", True),
    "max_connections": ("maxConnections", False),
    "allow_remote_without_auth": ("allowRemoteWithoutAuth", False),
}

#: Each cluster setting's key in the bridge's ``cluster`` option, and whether it is in seconds.
_CLUSTER_KEYS: dict[str, tuple[str, bool]] = {
    "url": ("url", False),
    "prefix": ("prefix", False),
    "max_events_per_stream": ("maxEventsPerStream", False),
    "liveness_ttl": ("livenessTtlMs", True),
    "command_timeout": ("commandTimeoutMs", True),
}


def _cluster_options(cluster: Mapping[str, Any]) -> JsonObject:
    """The bridge's ``cluster`` option for the ``ClusterOptions`` mapping ``cluster``."""
    if not isinstance(cluster, Mapping):
        raise TypeError(f"cluster takes a mapping such as {{'url': 'redis://...'}}, not {cluster!r}")
    unknown = sorted(set(cluster) - _CLUSTER_KEYS.keys())
    if unknown:
        raise TypeError(f"unknown cluster settings {unknown}; the settings are {sorted(_CLUSTER_KEYS)}")
    if "url" not in cluster:
        raise TypeError("cluster needs the Redis server's url, such as {'url': 'redis://127.0.0.1:6379/0'}")
    converted: JsonObject = {}
    for name, value in cluster.items():
        if value is None:
            continue
        key, in_seconds = _CLUSTER_KEYS[name]
        converted[key] = _millis(value) if in_seconds else value
    return converted


def _http_options(options: Mapping[str, Any], accepted: type) -> JsonObject:
    """The bridge's HTTP options for keyword ``options`` of the ``TypedDict`` ``accepted``."""
    allowed = typing.get_type_hints(accepted).keys()
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"unknown HTTP settings {unknown}; the settings are {sorted(allowed)}")
    converted: JsonObject = {}
    for name, value in options.items():
        if value is None:
            continue
        if name == "cluster":
            converted["cluster"] = _cluster_options(value)
            continue
        key, in_seconds = _HTTP_KEYS[name]
        converted[key] = _millis(value) if in_seconds else value
    return converted


def _decorated(fn: Any, what: str) -> None:
    """Raises when a decorator is given something other than a function."""
    if not callable(fn):
        raise TypeError(f"{what} decorates a function, not {type(fn).__name__} {fn!r}")


def _template_variables(uri: str) -> list[str]:
    """The variable names of a URI template, such as ``["owner", "path"]`` for
    ``repo://{owner}/{+path}``."""
    names: list[str] = []
    for expression in _TEMPLATE.findall(uri):
        body = expression[1:-1].lstrip("+#./;?&")
        names += [part.split(":")[0].rstrip("*") for part in body.split(",") if part]
    return names


def _check_template(uri: str, sig: Signature, fn: Callable[..., Any]) -> None:
    """Raises unless the template's variables are parameters of ``fn`` and its required
    parameters are variables of the template."""
    variables = set(_template_variables(uri))
    params = {p.name: p for p in sig.params if not p.is_context}
    unknown = sorted(variables - params.keys())
    if unknown:
        raise ConfigError(f"{fn.__name__}() has no parameter for the variables {unknown} of {uri!r}")
    missing = sorted(n for n, p in params.items() if n not in variables and p.default is inspect.Parameter.empty)
    if missing:
        raise ConfigError(f"the required parameters {missing} of {fn.__name__}() are not variables of {uri!r}")


class HttpServer:
    """A server running over Streamable HTTP; ``await close()`` stops it."""

    def __init__(self, native: _native.HttpServer, running: contextlib.AsyncExitStack) -> None:
        self._native = native
        self._running = running

    @property
    def url(self) -> str:
        """The URL of the MCP endpoint."""
        return self._native.url

    async def close(self) -> None:
        """Stops accepting connections and ends every session, then the server's lifespan."""
        try:
            await self._native.close()
        finally:
            await self._running.aclose()

    async def wait(self) -> None:
        """Waits until the server is closed."""
        await self._native.wait()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Server:
    """An MCP server. Register tools, resources, prompts and completions with decorators.

    Beside ``name``, ``version`` and ``instructions``, the keyword arguments describe the server
    (``title``, ``description``, ``icons``, ``website_url``) and set it up: ``page_size`` of
    list results, ``log_level`` in force until a client sets one, ``resource_subscriptions``,
    ``request_timeout`` (seconds) of requests to the client, ``tasks`` (``True``, or a dict
    with ``maxTtlMs``, ``defaultTtlMs``, ``pollIntervalMs`` and ``maxTasks``) to let tools
    declared with ``task_support`` run as tasks, ``capabilities`` declared beyond what the
    registrations imply, and the limits ``max_uri_length`` (bytes), ``max_in_flight_requests``
    (per session), ``max_queued_messages`` and ``max_queued_bytes`` (per stdio session) and
    ``max_subscriptions`` (per session).

    ``lifespan``, as in FastMCP, is ``lifespan(server)`` returning an async context manager
    (an ``@asynccontextmanager`` function): it is entered when serving starts (``run``,
    ``serve_stdio``, ``serve_http``, an ASGI server's start-up) and exited when serving ends; the
    value it gives is ``ctx.lifespan_context`` in handlers.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        instructions: Optional[str] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        icons: Optional[list[Icon]] = None,
        website_url: Optional[str] = None,
        page_size: Optional[int] = None,
        log_level: Optional[LoggingLevel] = None,
        resource_subscriptions: Optional[bool] = None,
        request_timeout: Optional[float] = None,
        tasks: Union[bool, JsonObject, None] = None,
        capabilities: Optional[JsonObject] = None,
        max_uri_length: Optional[int] = None,
        max_in_flight_requests: Optional[int] = None,
        max_queued_messages: Optional[int] = None,
        max_queued_bytes: Optional[int] = None,
        max_subscriptions: Optional[int] = None,
        lifespan: Optional[Callable[[Server], AbstractAsyncContextManager[Any]]] = None,
    ) -> None:
        self.name = name
        self._lifespan = lifespan
        #: What the lifespan's context manager gave while it runs, and how many serve calls use it.
        self._lifespan_state: Any = None
        self._lifespan_users = 0
        self._tasks = tasks is not None and tasks is not False
        #: Whether a coroutine function was registered as a handler: without one, and without a
        #: lifespan, ``run()`` serves stdio without asyncio.
        self._any_async = False
        spec = {"name": name, "version": version} | optional(
            title=title,
            description=description,
            icons=icons,
            websiteUrl=website_url,
            instructions=instructions,
            pageSize=page_size,
            logLevel=log_level,
            resourceSubscriptions=resource_subscriptions,
            requestTimeoutMs=_millis(request_timeout),
            tasks=tasks,
            capabilities=capabilities,
            maxUriLength=max_uri_length,
            maxInFlightRequests=max_in_flight_requests,
            maxQueuedMessages=max_queued_messages,
            maxQueuedBytes=max_queued_bytes,
            maxSubscriptions=max_subscriptions,
        )
        self._native = _native.Server(spec)

    @property
    def capabilities(self) -> JsonObject:
        """The capabilities the server declares, derived from its registrations."""
        return self._native.capabilities

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(
        self,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Optional[JsonObject] = None,
        input_schema: Optional[JsonObject] = None,
        *,
        icons: Optional[list[Icon]] = None,
        task_support: Optional[TaskSupport] = None,
        meta: Optional[JsonObject] = None,
        app: Optional[str] = None,
        visibility: Optional[Sequence[Visibility]] = None,
        replace: bool = False,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        name: Union[str, F, None] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Optional[JsonObject] = None,
        input_schema: Optional[JsonObject] = None,
        *,
        icons: Optional[list[Icon]] = None,
        task_support: Optional[TaskSupport] = None,
        meta: Optional[JsonObject] = None,
        app: Optional[str] = None,
        visibility: Optional[Sequence[Visibility]] = None,
        replace: bool = False,
    ) -> Any:
        """Registers a function as a tool, used as ``@server.tool`` or ``@server.tool(...)``; its
        input schema comes from its type hints, unless ``input_schema`` gives it (arguments are
        still passed to the parameters of the same names).

        ``task_support`` (``"optional"`` or ``"required"``) lets clients call the tool as a task,
        on a server made with ``tasks``. ``app`` binds the tool to an app view served with
        ``app_view`` (MCP Apps): hosts that render apps show its results there; ``visibility``
        (``["model", "app"]`` by default) says who may call it, ``["app"]`` hiding it from the
        model. A second tool of the same name raises, unless ``replace=True``.
        """
        if callable(name):
            self.add_tool(name, replace=replace)
            return name

        def register(fn: F) -> F:
            _decorated(fn, "server.tool()")
            self.add_tool(
                fn,
                name=name,
                description=description,
                title=title,
                annotations=annotations,
                input_schema=input_schema,
                icons=icons,
                task_support=task_support,
                meta=meta,
                app=app,
                visibility=visibility,
                replace=replace,
            )
            return fn

        return register

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Optional[JsonObject] = None,
        input_schema: Optional[JsonObject] = None,
        *,
        icons: Optional[list[Icon]] = None,
        task_support: Optional[TaskSupport] = None,
        meta: Optional[JsonObject] = None,
        app: Optional[str] = None,
        visibility: Optional[Sequence[Visibility]] = None,
        replace: bool = False,
    ) -> None:
        """Registers a tool without the decorator syntax.

        A failure the handler raises goes back as that JSON-RPC error when it is an ``McpError``
        (not a local one); any other exception becomes an ``isError`` result.
        """
        if task_support not in (None, "forbidden") and not self._tasks:
            raise ConfigError(f"tool {name or fn.__name__!r} declares task support, but the server has no tasks=")
        sig = Signature(fn, Context)
        self._any_async |= sig.is_async
        tool_name = name or fn.__name__
        tool = {
            "name": tool_name,
            "inputSchema": sig.input_schema() if input_schema is None else input_schema,
            **optional(
                description=description or sig.description,
                title=title,
                icons=icons,
                annotations=annotations,
                outputSchema=sig.output_schema(),
                execution=None if task_support is None else {"taskSupport": task_support},
                _meta=meta,
                app=app,
                visibility=None if visibility is None else list(visibility),
            ),
        }
        tool_value = _convert.tool_value
        if sig.is_async:

            async def run_async(arguments: Mapping[str, Any], ctx: _native.Context) -> Any:
                return tool_value(await fn(**sig.bind(arguments, ctx, self)))

            self._native.add("tool", tool, run_async, True, replace)
        else:

            def run_sync(arguments: Mapping[str, Any], ctx: _native.Context) -> Any:
                return tool_value(fn(**sig.bind(arguments, ctx, self)))

            self._native.add("tool", tool, run_sync, False, replace)

    def resource(
        self,
        uri: str,
        name: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        title: Optional[str] = None,
        *,
        icons: Optional[list[Icon]] = None,
        annotations: Optional[JsonObject] = None,
        size: Optional[int] = None,
        replace: bool = False,
    ) -> Callable[[F], F]:
        """Registers a resource; a URI with ``{variables}`` is a template whose variables are
        passed to the function's parameters of the same names.

        A template's variables must be parameters of the function, and the function's required
        parameters must be variables of the template; a second resource at the same URI raises
        unless ``replace=True``.
        """
        if not isinstance(uri, str):
            raise TypeError('server.resource needs the resource\'s URI: @server.resource("scheme://path")')

        def register(fn: F) -> F:
            _decorated(fn, "server.resource()")
            sig = Signature(fn, Context)
            self._any_async |= sig.is_async
            if _TEMPLATE.search(uri):
                _check_template(uri, sig, fn)
            entry = optional(
                name=name or fn.__name__,
                title=title,
                description=description or sig.description,
                mimeType=mime_type,
                icons=icons,
                annotations=annotations,
            )

            def call(payload: Mapping[str, Any], ctx: _native.Context) -> Any:
                return fn(**sig.bind(payload["variables"], ctx, self))

            handler = _adapt(call, sig.is_async, lambda value: _convert.resource_value(value, mime_type))
            if _TEMPLATE.search(uri):
                template = {"uriTemplate": uri, **entry}
                self._native.add("resource_template", template, handler, sig.is_async, replace)
            else:
                resource = {"uri": uri, **entry, **optional(size=size)}
                self._native.add("resource", resource, handler, sig.is_async, replace)
            return fn

        return register

    @overload
    def prompt(self, name: F, /) -> F: ...

    @overload
    def prompt(
        self,
        name: Optional[str] = None,
        description: Optional[str] = None,
        *,
        title: Optional[str] = None,
        icons: Optional[list[Icon]] = None,
        replace: bool = False,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        name: Union[str, F, None] = None,
        description: Optional[str] = None,
        *,
        title: Optional[str] = None,
        icons: Optional[list[Icon]] = None,
        replace: bool = False,
    ) -> Any:
        """Registers a prompt, used as ``@server.prompt`` or ``@server.prompt(...)``; its
        arguments are the function's parameters (strings).

        It returns a string (a user message), a ``(role, content)`` tuple, a message dict, a
        list of those, or a whole ``GetPromptResult``. A second prompt of the same name raises,
        unless ``replace=True``.
        """
        if callable(name):
            fn, name = name, None
            self.prompt(replace=replace)(fn)
            return fn

        def register(fn: F) -> F:
            _decorated(fn, "server.prompt()")
            sig = Signature(fn, Context)
            self._any_async |= sig.is_async
            arguments = [
                {"name": p.name, "required": p.default is inspect.Parameter.empty}
                | optional(description=sig.param_docs.get(p.name))
                for p in sig.params
                if not p.is_context
            ]
            prompt = {
                "name": name or fn.__name__,
                "arguments": arguments,
                **optional(title=title, description=description or sig.description, icons=icons),
            }

            def call(arguments: Mapping[str, str], ctx: _native.Context) -> Any:
                return fn(**sig.bind(arguments, ctx, self))

            handler = _adapt(call, sig.is_async, _convert.prompt_value)
            self._native.add("prompt", prompt, handler, sig.is_async, replace)
            return fn

        return register

    def completion(self) -> Callable[[F], F]:
        """Registers the completion handler: ``fn(ref, argument, value)`` returns a list of values.

        ``ref`` is the ``ref/prompt`` or ``ref/resource`` dict. A fourth parameter, when there is
        one, gets the arguments the client already resolved (``context.arguments``, a dict that
        may be empty); a ``Context`` parameter is filled in.
        """

        def register(fn: F) -> F:
            sig = Signature(fn, Context)
            self._any_async |= sig.is_async
            names = [p.name for p in sig.params if not p.is_context]

            def call(params: Mapping[str, Any], ctx: _native.Context) -> Any:
                resolved = (params.get("context") or {}).get("arguments") or {}
                values = (params["ref"], params["argument"]["name"], params["argument"]["value"], resolved)
                return fn(**dict(zip(names, values)), **_context_kwargs(sig, ctx, self))

            self._native.set_completion(_adapt(call, sig.is_async, lambda value: value), sig.is_async)
            return fn

        return register

    def on_roots_changed(self) -> Callable[[F], F]:
        """Registers ``fn(ctx)``, called when a client says its roots changed; ``await
        ctx.list_roots()`` asks that client for them. It can be registered once."""

        def register(fn: F) -> F:
            sig = Signature(fn, Context)
            self._any_async |= sig.is_async

            def call(_payload: Any, ctx: _native.Context) -> Any:
                return fn(**_context_kwargs(sig, ctx, self))

            self._native.on_roots_changed(_adapt(call, sig.is_async, lambda value: None), sig.is_async)
            return fn

        return register

    def app_view(
        self,
        uri: str,
        html: str,
        *,
        name: Optional[str] = None,
        csp: Optional[AppCsp] = None,
        permissions: Optional[JsonObject] = None,
        domain: Optional[str] = None,
        prefers_border: Optional[bool] = None,
    ) -> None:
        """Serves the HTML view of an app (MCP Apps) at ``uri``, a ``ui://`` URI, which hosts that
        render apps show in a sandboxed frame; bind tools to it with ``@server.tool(app=uri)``.

        ``csp`` lists the origins the view may reach (``connectDomains``, ``resourceDomains``,
        ``frameDomains``, ``baseUriDomains``), ``permissions`` the browser features it asks for
        (``camera``, ``microphone``, ``geolocation``, ``clipboardWrite``, each ``{}``), ``domain`` a
        dedicated origin in the host's format and ``prefers_border`` whether the host draws a
        border. The server then declares the Apps extension; clients without it see neither the
        view nor the tools only a view may call.
        """
        self._native.add_app_view(
            {"uri": uri, "name": name or uri, "html": html}
            | optional(csp=csp, permissions=permissions, domain=domain, prefersBorder=prefers_border)
        )

    def add_middleware(self, middleware: Union[Middleware, _Builtin]) -> None:
        """Adds ``middleware`` around every message of the sessions started from now on, inside
        those already added: an ``async def middleware(message, call_next)`` or a built-in one
        (``Timing()``, ``RateLimit(...)``, ``Cache(...)`` of ``mcpweft.middleware``)."""
        builtin, native = _middleware._native(middleware)
        if builtin:
            self._native.add_builtin_middleware(native)
        else:
            self._any_async = True
            self._native.add_middleware(native)

    def middleware(self, fn: M) -> M:
        """Registers the decorated ``async def middleware(message, call_next)`` with
        ``add_middleware``."""
        self.add_middleware(fn)
        return fn

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; connected clients are told the list changed."""
        return self._native.remove("tool", name)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt; connected clients are told the list changed."""
        return self._native.remove("prompt", name)

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource or a resource template by its URI (template)."""
        return self._native.remove("resource", uri) or self._native.remove("resource_template", uri)

    def add_skill(self, skill_md: str, files: Optional[Mapping[str, str]] = None, *, replace: bool = False) -> None:
        """Serves a skill of the skills extension (``io.modelcontextprotocol/skills``).

        ``skill_md`` is the text of its ``SKILL.md``, whose YAML frontmatter gives its ``name``
        (lowercase letters, digits and single hyphens) and ``description``; ``files`` maps each
        supporting file's path within the skill (such as ``"references/FORMS.md"``) to its
        text. Every file is served as a resource under ``skill://<name>/`` and listed with its
        digest in ``skills/list``. A skill of the same name raises ``ConfigError`` unless
        ``replace=True``, which also stops serving the old skill's files the new one lacks. A bad
        name, frontmatter or path raises ``ConfigError`` (a ``ValueError``).
        """
        self._native.add_skill({"skillMd": skill_md, "files": dict(files or {})}, replace)

    def notify_resource_updated(self, uri: str) -> None:
        """Tells the clients subscribed to ``uri`` that it changed."""
        self._native.notify_resource_updated(uri)

    def log(self, level: LoggingLevel, data: Any, logger: Optional[str] = None) -> None:
        """Sends a log message to every connected client whose level lets it through."""
        self._native.log(level, data, logger)

    @contextlib.asynccontextmanager
    async def _lifespan_running(self) -> AsyncIterator[None]:
        """Runs the lifespan while at least one serve call is under way."""
        _logging.refresh()
        if self._lifespan is None or self._lifespan_users > 0:
            self._lifespan_users += 1
            try:
                yield
            finally:
                self._lifespan_users -= 1
            return
        async with self._lifespan(self) as state:
            self._lifespan_state, self._lifespan_users = state, 1
            try:
                yield
            finally:
                self._lifespan_state, self._lifespan_users = None, 0

    async def serve_stdio(self) -> None:
        """Serves one client over stdin and stdout until it leaves.

        Meanwhile ``print()`` and anything else written to ``sys.stdout`` goes to stderr: stdout
        carries the protocol only.
        """
        async with self._lifespan_running():
            with contextlib.redirect_stdout(sys.stderr):
                await self._native.serve_stdio()

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        path: str = "/mcp",
        *,
        auth: Optional[ServerAuth] = None,
        verifier: Optional[Verifier] = None,
        **options: Unpack[HttpOptions],
    ) -> HttpServer:
        """Starts serving Streamable HTTP and returns the running server (``port=0`` picks one).

        ``allowed_hosts`` and ``allowed_origins`` replace the default loopback names on any port
        (so a reverse proxy on the same machine reaches the server); ``json_response=False``
        answers with SSE streams; ``stateful=False`` keeps no sessions; ``session_idle_timeout``,
        ``sse_retry`` and ``keep_alive`` are in seconds (``keep_alive=0`` sends no keep-alive
        comments); ``max_body_size`` is in bytes, and
        ``max_buffered_body_bytes`` the bytes of request bodies still arriving held at once;
        ``event_store_capacity`` is how many events each session keeps for resumption;
        ``header_read_timeout`` and ``body_read_timeout`` (seconds) bound slow clients,
        ``max_connections`` caps open connections, ``max_queued_events`` bounds each SSE
        stream's queue, and ``require_negotiated_version=False`` accepts a stale
        ``MCP-Protocol-Version`` header.

        ``cluster`` (see ``ClusterOptions``) shares the sessions through Redis, so that several
        processes behind a load balancer without session affinity serve them:
        ``cluster={"url": "redis://127.0.0.1:6379/0"}``.

        ``auth`` protects the server with OAuth 2.1 (see ``ServerAuth``): every request needs a
        bearer token, checked by ``auth.jwt`` or by ``verifier(token)``, a plain or ``async``
        function that returns the caller's ``AuthInfo``, or ``None`` (or raises) to refuse the
        token. Handlers read the identity as ``ctx.auth``.

        A ``host`` beyond loopback (such as ``"0.0.0.0"`` in a container) needs
        ``allowed_hosts`` (the names clients reach the server by) and, without authorization,
        ``allow_remote_without_auth=True``; otherwise it is refused with a ``ConfigError`` (a
        ``ValueError``) that says so.
        """
        settings = {"host": host, "port": port, "path": path} | _http_options(options, HttpOptions)
        if auth is not None:
            settings["auth"] = auth._to_json()
        running = contextlib.AsyncExitStack()
        await running.enter_async_context(self._lifespan_running())
        try:
            checker = None
            if verifier is not None:
                from .auth import _verifier  # Imported on use, like the rest of authorization.

                checker = _verifier(verifier)
            return HttpServer(await self._native.serve_http(settings, checker), running)
        except BaseException:
            await running.aclose()
            raise

    def asgi_app(
        self,
        path: str = "/mcp",
        *,
        auth: Optional[ServerAuth] = None,
        verifier: Optional[Verifier] = None,
        **options: Unpack[EndpointOptions],
    ) -> AsgiApp:
        """Returns an ASGI application serving the Streamable HTTP endpoint at ``path`` (below
        where it is mounted), for uvicorn or any ASGI server, or to mount in Starlette and
        FastAPI. The keyword arguments are those of ``serve_http``; the ASGI server owns the
        connections, so their limits and time-outs are its own. ``allowed_hosts`` and
        ``allowed_origins`` default to the loopback names on any port: set them to the names
        the app is reached by when it is deployed.

        ``auth`` protects the endpoint as it does ``serve_http``: a request without a valid
        bearer token, checked by ``auth.jwt`` or by ``verifier(token)``, is answered ``401``.
        """
        from .asgi import AsgiApp  # Imported on use: a server that is not mounted never needs it.

        settings = _http_options(options, EndpointOptions)
        if auth is not None:
            settings["auth"] = auth._to_json()
        checker = None
        if verifier is not None:
            from .auth import _verifier  # Imported on use, like the rest of authorization.

            checker = _verifier(verifier)
        return AsgiApp(self._native, path, settings, self._lifespan_running, checker)

    def run(self, transport: str = "stdio", *, host: str = "127.0.0.1", port: int = 8000, **http: Any) -> None:
        """Serves until the client leaves (stdio) or the process is interrupted (``"http"``, also
        spelled ``"streamable-http"``, with the keyword arguments of ``serve_http``).

        It blocks, so it must not be called from a thread that runs an asyncio loop. A stdio
        server whose handlers are all plain functions and that has no lifespan is served without
        asyncio, which it then never imports (a smaller process); a coroutine handler registered
        while it serves fails its calls.
        """
        ensure_no_running_loop("Server.run()")
        if transport == "streamable-http":
            transport = "http"
        if transport not in ("stdio", "http"):
            raise ConfigError(f"unknown transport {transport!r}; use 'stdio' or 'http' ('streamable-http')")
        try:
            if transport == "stdio" and not self._any_async and self._lifespan is None:
                _logging.refresh()
                with contextlib.redirect_stdout(sys.stderr):
                    self._native.serve_stdio_blocking()
                return
            import asyncio  # Imported here: a plain stdio server never needs it.

            asyncio.run(self._run(transport, host, port, http))
        except KeyboardInterrupt:
            pass

    async def _run(self, transport: str, host: str, port: int, options: dict[str, Any]) -> None:
        if transport == "stdio":
            await self.serve_stdio()
            return
        http = await self.serve_http(host, port, **options)
        print(f"serving MCP at {http.url}", file=sys.stderr)
        try:
            await http.wait()
        finally:
            await http.close()


__all__ = ["ClusterOptions", "EndpointOptions", "HttpOptions", "HttpServer", "Server", "ensure_no_running_loop"]
