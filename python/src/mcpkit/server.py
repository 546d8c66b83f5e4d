"""The Python face of an MCP server: decorators that register functions with the Rust core."""

from __future__ import annotations

import asyncio
import inspect
import re
import sys
from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar

from . import _convert, _native
from ._schema import Signature, is_primitive, is_structured
from .context import Context
from .errors import McpError
from .types import JsonObject, LoggingLevel, optional

F = TypeVar("F", bound=Callable[..., Any])

_TEMPLATE = re.compile(r"{[^{}]+}")


def ensure_no_running_loop(what: str) -> None:
    """Raises ``RuntimeError`` when a blocking call is made from a thread running an asyncio loop.

    Such a call would block the very loop its own async handlers need, and hang forever.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"{what} blocks until it is done, so it cannot be called from a thread that runs an asyncio "
        "event loop; await the async API instead (for example `await server.serve_stdio()`)"
    )


def _adapt(fn: Callable[..., Any], is_async: bool, finish: Callable[[Any], Any]) -> Callable[..., Any]:
    """Wraps ``fn`` so that ``finish`` converts its result, keeping it sync or async like ``fn``."""
    if is_async:

        async def run_async(*args: Any) -> Any:
            return await finish_async(fn, args, finish)

        return run_async

    def run_sync(*args: Any) -> Any:
        return finish_sync(fn, args, finish)

    return run_sync


async def finish_async(fn: Callable[..., Any], args: tuple[Any, ...], finish: Callable[[Any], Any]) -> Any:
    return finish(await fn(*args))


def finish_sync(fn: Callable[..., Any], args: tuple[Any, ...], finish: Callable[[Any], Any]) -> Any:
    return finish(fn(*args))


class HttpServer:
    """A server running over Streamable HTTP; ``await close()`` stops it."""

    def __init__(self, native: _native.HttpServer) -> None:
        self._native = native

    @property
    def url(self) -> str:
        """The URL of the MCP endpoint."""
        return self._native.url

    async def close(self) -> None:
        """Stops accepting connections and ends every session."""
        await self._native.close()

    async def wait(self) -> None:
        """Waits until the server is closed."""
        await self._native.wait()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Server:
    """An MCP server. Register tools, resources, prompts and completions with decorators."""

    def __init__(self, name: str, version: str = "0.1.0", instructions: Optional[str] = None) -> None:
        self.name = name
        self._native = _native.Server(name, version, instructions)

    @property
    def capabilities(self) -> JsonObject:
        """The capabilities the server declares, derived from its registrations."""
        return self._native.capabilities

    def tool(
        self,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Optional[JsonObject] = None,
        input_schema: Optional[JsonObject] = None,
    ) -> Callable[[F], F]:
        """Registers a function as a tool; its input schema comes from its type hints, unless
        ``input_schema`` gives it (arguments are still passed to the parameters of the same names)."""

        def register(fn: F) -> F:
            self.add_tool(
                fn, name=name, description=description, title=title, annotations=annotations, input_schema=input_schema
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
    ) -> None:
        """Registers a tool without the decorator syntax."""
        sig = Signature(fn, Context)
        output = sig.output_schema()
        structured, wrap = is_structured(sig.returns), is_primitive(sig.returns)
        tool = {
            "name": name or fn.__name__,
            "inputSchema": sig.input_schema() if input_schema is None else input_schema,
            **optional(
                description=description or sig.description,
                title=title,
                annotations=annotations,
                outputSchema=output,
            ),
        }

        def call(arguments: Mapping[str, Any], ctx: _native.Context) -> Any:
            return fn(**sig.bind(arguments, Context(ctx)))

        def finish(value: Any) -> Any:
            return _convert.tool_result(value, structured, wrap)

        def failure(error: Exception) -> Any:
            # A protocol error the handler raised goes back as that JSON-RPC error; any other
            # exception, and local ones such as time-outs, become an isError result.
            if isinstance(error, McpError) and not error.local:
                raise error
            return _convert.error_result(error)

        if sig.is_async:

            async def run_async(arguments: Mapping[str, Any], ctx: _native.Context) -> Any:
                try:
                    return finish(await call(arguments, ctx))
                except Exception as e:
                    return failure(e)

            self._native.add_tool(tool, run_async, True)
        else:

            def run_sync(arguments: Mapping[str, Any], ctx: _native.Context) -> Any:
                try:
                    return finish(call(arguments, ctx))
                except Exception as e:
                    return failure(e)

            self._native.add_tool(tool, run_sync, False)

    def resource(
        self,
        uri: str,
        name: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        title: Optional[str] = None,
    ) -> Callable[[F], F]:
        """Registers a resource; a URI with ``{variables}`` is a template whose variables are
        passed to the function's parameters of the same names."""

        def register(fn: F) -> F:
            sig = Signature(fn, Context)
            entry = optional(
                name=name or fn.__name__,
                title=title,
                description=description or sig.description,
                mimeType=mime_type,
            )

            def call(uri: str, variables: Mapping[str, str], ctx: _native.Context) -> Any:
                return fn(**sig.bind(variables, Context(ctx)))

            is_async = sig.is_async
            if is_async:

                async def read_async(uri: str, variables: Mapping[str, str], ctx: _native.Context) -> Any:
                    return _convert.resource_result(await call(uri, variables, ctx), uri, mime_type)

                handler: Callable[..., Any] = read_async
            else:

                def read_sync(uri: str, variables: Mapping[str, str], ctx: _native.Context) -> Any:
                    return _convert.resource_result(call(uri, variables, ctx), uri, mime_type)

                handler = read_sync
            if _TEMPLATE.search(uri):
                self._native.add_resource_template({"uriTemplate": uri, **entry}, handler, is_async)
            else:
                self._native.add_resource({"uri": uri, **entry}, handler, is_async)
            return fn

        return register

    def prompt(self, name: Optional[str] = None, description: Optional[str] = None) -> Callable[[F], F]:
        """Registers a prompt; its arguments are the function's parameters (strings)."""

        def register(fn: F) -> F:
            sig = Signature(fn, Context)
            text = description or sig.description
            arguments = [
                {"name": p.name, "required": p.default is inspect.Parameter.empty}
                | optional(description=sig.param_docs.get(p.name))
                for p in sig.params
                if not p.is_context
            ]
            prompt = {"name": name or fn.__name__, "arguments": arguments, **optional(description=text)}

            def call(arguments: Mapping[str, str], ctx: _native.Context) -> Any:
                return fn(**sig.bind(arguments, Context(ctx)))

            handler = _adapt(call, sig.is_async, lambda value: _convert.prompt_result(value, text))
            self._native.add_prompt(prompt, handler, sig.is_async)
            return fn

        return register

    def completion(self) -> Callable[[F], F]:
        """Registers the completion handler: ``fn(ref, argument, value)`` returns a list of values.

        ``ref`` is the ``ref/prompt`` or ``ref/resource`` dict; a ``Context`` parameter is filled in.
        """

        def register(fn: F) -> F:
            sig = Signature(fn, Context)
            names = [p.name for p in sig.params if not p.is_context]

            def call(params: Mapping[str, Any], ctx: _native.Context) -> Any:
                positional = dict(zip(names, (params["ref"], params["argument"]["name"], params["argument"]["value"])))
                context = {p.name: Context(ctx) for p in sig.params if p.is_context}
                return fn(**positional, **context)

            handler = _adapt(call, sig.is_async, lambda value: value)
            self._native.set_completion_handler(handler, sig.is_async)
            return fn

        return register

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; connected clients are told the list changed."""
        return self._native.remove_tool(name)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt; connected clients are told the list changed."""
        return self._native.remove_prompt(name)

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource or a resource template by its URI (template)."""
        return self._native.remove_resource(uri) or self._native.remove_resource_template(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tells the clients subscribed to ``uri`` that it changed."""
        self._native.notify_resource_updated(uri)

    def log(self, level: LoggingLevel, data: Any, logger: Optional[str] = None) -> None:
        """Sends a log message to every connected client whose level lets it through."""
        self._native.log(level, data, logger)

    async def serve_stdio(self) -> None:
        """Serves one client over stdin and stdout until it leaves."""
        await self._native.serve_stdio()

    async def serve_http(self, host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp") -> HttpServer:
        """Starts serving Streamable HTTP and returns the running server (``port=0`` picks one)."""
        return HttpServer(await self._native.serve_http(host, port, path))

    def run(self, transport: str = "stdio", *, host: str = "127.0.0.1", port: int = 8000) -> None:
        """Serves until the client leaves (stdio) or the process is interrupted (``"http"``).

        It blocks, so it must not be called from a thread that runs an asyncio loop.
        """
        ensure_no_running_loop("Server.run()")
        if transport not in ("stdio", "http"):
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
        try:
            asyncio.run(self._run(transport, host, port))
        except KeyboardInterrupt:
            pass

    async def _run(self, transport: str, host: str, port: int) -> None:
        if transport == "stdio":
            await self.serve_stdio()
            return
        http = await self.serve_http(host, port)
        print(f"serving MCP at {http.url}", file=sys.stderr)
        try:
            await http.wait()
        finally:
            await http.close()


__all__ = ["Server", "HttpServer", "ensure_no_running_loop"]
