"""What a FastMCP user expects: decorators with and without parentheses, clear registration
errors, constraints and rich parameter types in schemas, wrapped structured output, awaitable
context methods, typed elicitation and media from files."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import datetime
import decimal
import json
import pathlib
import re
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Union

import pydantic
import pytest
from pydantic import Field

from mcpweft import Audio, Client, ConfigError, Context, File, Image, Server


def test_decorators_work_with_and_without_parentheses() -> None:
    server = Server("decorated")

    @server.tool
    def bare(x: int) -> int:
        """A tool registered without parentheses."""
        return x

    @server.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    assert bare(2) == 2, "the decorator returns the function itself"
    assert greet("a") == "Hello a"
    assert "tools" in server.capabilities and "prompts" in server.capabilities


def test_misuse_raises_at_decoration_time() -> None:
    server = Server("misused")
    with pytest.raises(TypeError, match="needs the resource's URI"):
        server.resource(lambda: "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="decorates a function"):
        server.tool()(42)  # type: ignore[type-var]
    with pytest.raises(ValueError, match="tool name"):

        @server.tool(name="has spaces")
        def spaced() -> str:
            return ""

    @server.tool()
    def once() -> str:
        return "first"

    with pytest.raises(ConfigError, match='the tool "once" is already registered; register it with replace'):

        @server.tool(name="once")
        def twice() -> str:
            return "second"

    @server.tool(name="once", replace=True)
    def replaced() -> str:
        return "second"

    with pytest.raises(ValueError, match=r"no parameter for the variables \['b'\]"):

        @server.resource("x://{a}/{b}")
        def partial(a: str) -> str:
            return a

    with pytest.raises(ValueError, match=r"required parameters \['c'\]"):

        @server.resource("x://{a}")
        def extra(a: str, c: str) -> str:
            return a

    @server.resource("x://{a}/{+rest}{?q}")
    def matched(a: str, rest: str, ctx: Context, q: str = "") -> str:
        return a

    with pytest.raises(ConfigError, match='the resource "x://fixed" is already registered'):
        for _ in range(2):
            server.resource("x://fixed")(lambda: "x")
    server.resource("x://fixed", replace=True)(lambda: "y")

    with pytest.raises(ConfigError, match=re.escape('the resource template "x://{a}/{+rest}{?q}" is already')):
        server.resource("x://{a}/{+rest}{?q}")(matched)
    server.resource("x://{a}/{+rest}{?q}", replace=True)(matched)

    @server.prompt()
    def hello() -> str:
        return "hello"

    with pytest.raises(ConfigError, match='the prompt "hello" is already registered'):
        server.prompt(name="hello")(hello)
    server.prompt(name="hello", replace=True)(hello)

    skill_md = "---\nname: forms\ndescription: Fills forms.\n---\n"
    server.add_skill(skill_md)
    with pytest.raises(ConfigError, match='the skill "forms" is already registered'):
        server.add_skill(skill_md)
    server.add_skill(skill_md, {"more.md": "More."}, replace=True)


@dataclasses.dataclass
class Booking:
    guests: int
    note: str = ""


class Person(pydantic.BaseModel):
    name: str
    age: int


def rich_server() -> Server:
    server = Server("rich")

    @server.tool()
    def constrained(
        n: Annotated[int, Field(ge=1, le=10, description="How many")],
        code: Annotated[str, Field(pattern="^[A-Z]{3}$", min_length=3)],
        tags: Annotated[list[str], Field(max_length=2)] = [],  # noqa: B006 - never mutated
        ratio: float = Field(0.5, gt=0, lt=1, description="A share"),
    ) -> list[int]:
        return list(range(n))

    @server.tool()
    def typed(
        when: datetime.datetime, day: datetime.date, ident: uuid.UUID, amount: decimal.Decimal, where: pathlib.Path
    ) -> dict[str, Any]:
        return {
            "when": when + datetime.timedelta(days=1),
            "day": day,
            "ident": ident,
            "amount": amount * 2,
            "where": where / "x",
            "kinds": [type(v).__name__ for v in (when, day, ident, amount)],
        }

    @server.tool()
    def either(flag: bool) -> Union[int, str]:
        return 1 if flag else "one"

    @server.tool()
    def plain() -> dict:  # type: ignore[type-arg]
        return {"b": 1, "a": 2}

    @server.tool()
    def ordered(zeta: int, alpha: int, mid: int) -> dict[str, int]:
        return {"zeta": zeta, "alpha": alpha, "mid": mid}

    @server.tool()
    def nothing() -> None:
        return None

    return server


async def test_constraints_go_into_the_schema_and_are_enforced() -> None:
    async with Client.memory(rich_server()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        props = tools["constrained"]["inputSchema"]["properties"]
        assert props["n"] == {"type": "integer", "description": "How many", "minimum": 1, "maximum": 10}
        assert props["code"] == {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3}
        assert props["tags"]["maxItems"] == 2
        assert props["ratio"] == {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "description": "A share",
            "default": 0.5,
        }
        assert tools["constrained"]["inputSchema"]["required"] == ["n", "code"]
        ok = await client.call_tool("constrained", {"n": 3, "code": "ABC"})
        assert ok["structuredContent"] == {"result": [0, 1, 2]}
        for bad in ({"n": 11, "code": "ABC"}, {"n": 1, "code": "abc"}, {"n": 1, "code": "ABC", "ratio": 1}):
            refused = await client.call_tool("constrained", bad)
            assert refused["isError"] is True, bad


async def test_omitted_field_arguments_get_the_fields_defaults() -> None:
    server = Server("defaults")
    seen: list[list[str]] = []

    @server.tool()
    def scale(
        x: float,
        factor: float = Field(2.0, ge=0, le=10),
        tags: list[str] = Field(default_factory=list),  # noqa: B008 - FastMCP's spelling, under test
        label: Annotated[str, Field(min_length=1)] = "plain",
    ) -> dict[str, Any]:
        tags.append("seen")
        seen.append(tags)
        return {"value": x * factor, "tags": tags, "label": label}

    async with Client.memory(server) as client:
        props = (await client.list_tools())[0]["inputSchema"]["properties"]
        assert props["factor"] == {"type": "number", "minimum": 0, "maximum": 10, "default": 2.0}
        assert props["tags"]["default"] == []
        omitted = (await client.call_tool("scale", {"x": 3}))["structuredContent"]
        assert omitted == {"value": 6.0, "tags": ["seen"], "label": "plain"}
        # Each call gets a new list from the factory, not the one the last call changed.
        again = (await client.call_tool("scale", {"x": 1}))["structuredContent"]
        assert again == {"value": 2.0, "tags": ["seen"], "label": "plain"}
        assert seen[0] is not seen[1]
        given = (await client.call_tool("scale", {"x": 1, "factor": 0.5, "tags": ["a"]}))["structuredContent"]
        assert given == {"value": 0.5, "tags": ["a", "seen"], "label": "plain"}
        refused = await client.call_tool("scale", {"x": 1, "factor": 11})
        assert refused["isError"] is True

    @server.prompt()
    def brief(topic: str, words: int = Field(50, gt=0)) -> str:
        return f"{topic} in {words} words"

    async with Client.memory(server) as client:
        prompt = await client.get_prompt("brief", {"topic": "tides"})
        assert prompt["messages"][0]["content"] == {"type": "text", "text": "tides in 50 words"}


async def test_rich_types_are_parsed_and_returned_values_serialise() -> None:
    ident = uuid.uuid4()
    async with Client.memory(rich_server()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        props = tools["typed"]["inputSchema"]["properties"]
        assert props["when"]["format"] == "date-time" and props["ident"]["format"] == "uuid"
        arguments = {
            "when": "2026-01-02T03:04:05Z",
            "day": "2026-01-02",
            "ident": str(ident),
            "amount": "1.25",
            "where": "/tmp",
        }
        result = (await client.call_tool("typed", arguments))["structuredContent"]
        assert result == {
            "when": "2026-01-03T03:04:05+00:00",
            "day": "2026-01-02",
            "ident": str(ident),
            "amount": "2.50",
            "where": "/tmp/x",
            "kinds": ["datetime", "date", "UUID", "Decimal"],
        }


async def test_return_annotations_give_output_schemas_and_wrapped_structured_content() -> None:
    async with Client.memory(rich_server()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["constrained"]["outputSchema"]["properties"]["result"] == {
            "type": "array",
            "items": {"type": "integer"},
        }
        assert tools["either"]["outputSchema"]["properties"]["result"] == {
            "anyOf": [{"type": "integer"}, {"type": "string"}]
        }
        assert tools["plain"]["outputSchema"] == {"type": "object"}
        assert "outputSchema" not in tools["nothing"]
        either = await client.call_tool("either", {"flag": False})
        assert either["structuredContent"] == {"result": "one"}
        assert either["content"] == [{"type": "text", "text": "one"}]
        plain = await client.call_tool("plain")
        assert plain["structuredContent"] == {"b": 1, "a": 2}
        ordered = await client.call_tool("ordered", {"mid": 3, "alpha": 2, "zeta": 1})
        assert list(tools["ordered"]["inputSchema"]["properties"]) == ["zeta", "alpha", "mid"]
        assert list(ordered["structuredContent"]) == ["zeta", "alpha", "mid"]
        assert json.loads(ordered["content"][0]["text"]) == {"zeta": 1, "alpha": 2, "mid": 3}


async def test_context_methods_work_awaited_or_not() -> None:
    server = Server("ctx")
    logs: list[Any] = []

    @server.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.info("awaited")
        ctx.debug("not awaited")
        await ctx.warning("warned", logger="x")
        await ctx.error("failed")
        await ctx.report_progress(1, 2)
        ctx.report_progress(2, 2)
        await ctx.log("notice", {"k": 1})
        return "done"

    async with Client.memory(server, logging_handler=logs.append) as client:
        await client.set_logging_level("debug")
        progress: list[float] = []
        result = await client.call_tool("chatty", progress=lambda p, total, message: progress.append(p))
        assert result["content"][0]["text"] == "done"
        for _ in range(500):
            if len(logs) == 5:
                break
            await asyncio.sleep(0.01)
    assert [entry["data"] for entry in logs] == ["awaited", "not awaited", "warned", "failed", {"k": 1}]
    assert progress == [1, 2]


async def test_elicit_takes_a_response_type() -> None:
    server = Server("asker")

    @server.tool()
    async def book(ctx: Context) -> str:
        answer = await ctx.elicit("How many guests?", Booking)
        person = await ctx.elicit("Who?", response_type=Person)
        count = await ctx.elicit("Count?", int)
        assert answer.action == "accept" and isinstance(answer.data, Booking)
        assert isinstance(person.data, Person) and count.data == 7
        return f"{answer.data.guests} for {person.data.name}, {count.data}"

    seen: list[Any] = []

    def reply(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params["requestedSchema"])
        props = params["requestedSchema"]["properties"]
        if "guests" in props:
            return {"action": "accept", "content": {"guests": 3}}
        if "name" in props:
            return {"action": "accept", "content": {"name": "Ada", "age": 36}}
        return {"action": "accept", "content": {"value": 7}}

    async with Client.memory(server, elicitation_handler=reply) as client:
        result = await client.call_tool("book")
        assert result["content"][0]["text"] == "3 for Ada, 7"
    assert seen[0]["properties"]["guests"] == {"type": "integer"}
    assert seen[2] == {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]}


async def test_media_from_files(tmp_path: pathlib.Path) -> None:
    png, wav, pdf = tmp_path / "chart.png", tmp_path / "clip.wav", tmp_path / "report.pdf"
    for path, data in ((png, b"\x89PNG"), (wav, b"RIFF"), (pdf, b"%PDF")):
        path.write_bytes(data)
    server = Server("media")

    @server.tool()
    def media() -> list[Any]:
        return [Image(path=png), Audio(path=wav), File(path=pdf)]

    with pytest.raises(TypeError, match="either data or path"):
        Image()
    async with Client.memory(server) as client:
        blocks = (await client.call_tool("media"))["content"]
    assert [b["type"] for b in blocks] == ["image", "audio", "resource"]
    assert blocks[0]["mimeType"] == "image/png" and base64.b64decode(blocks[0]["data"]) == b"\x89PNG"
    assert blocks[1]["mimeType"] in ("audio/wav", "audio/x-wav")
    resource = blocks[2]["resource"]
    assert resource["uri"] == "file:///report.pdf" and resource["mimeType"] == "application/pdf"
    assert base64.b64decode(resource["blob"]) == b"%PDF"


async def test_lifespan_runs_around_serving_and_reaches_handlers(free_port: int) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        events.append(f"start {server.name}")
        yield {"db": "connected"}
        events.append("stop")

    server = Server("with-lifespan", lifespan=lifespan)

    @server.tool()
    def db(ctx: Context) -> str:
        return str(ctx.lifespan_context["db"])

    async with Client.memory(server) as client:
        assert (await client.call_tool("db"))["structuredContent"] == {"result": "connected"}
        assert events == ["start with-lifespan"]
    assert events == ["start with-lifespan", "stop"]
    http = await server.serve_http(port=free_port)
    async with Client.http(http.url) as client:
        assert (await client.call_tool("db"))["structuredContent"] == {"result": "connected"}
    await http.close()
    assert events == ["start with-lifespan", "stop", "start with-lifespan", "stop"]


async def test_request_context_has_the_lifespan_context_as_in_fastmcp() -> None:
    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        yield {"db": "connected"}

    server = Server("request-context", lifespan=lifespan)

    @server.tool()
    def inspect_request(ctx: Context) -> dict[str, Any]:
        request = ctx.request_context
        return {
            "db": request.lifespan_context["db"],
            "same": request.lifespan_context is ctx.lifespan_context,
            "id": request.request_id == ctx.request_id,
            "meta": request.meta,
        }

    async with Client.memory(server) as client:
        result = await client.call_tool("inspect_request", {}, meta={"trace": "t1"})
        assert result["structuredContent"] == {"db": "connected", "same": True, "id": True, "meta": {"trace": "t1"}}

    # Without a lifespan there is nothing in it.
    plain = Server("no-lifespan")

    @plain.tool()
    def lifespan_value(ctx: Context) -> str:
        return repr(ctx.request_context.lifespan_context)

    async with Client.memory(plain) as client:
        assert (await client.call_tool("lifespan_value"))["structuredContent"] == {"result": "None"}


async def test_a_handler_reads_the_servers_own_resources() -> None:
    server = Server("self-reader")

    @server.resource("config://{key}")
    def config(key: str) -> str:
        return f"value of {key}"

    @server.tool()
    async def lookup(key: str, ctx: Context) -> str:
        read = await ctx.read_resource(f"config://{key}")
        return str(read["contents"][0]["text"])

    async with Client.memory(server) as client:
        assert (await client.call_tool("lookup", {"key": "color"}))["structuredContent"] == {"result": "value of color"}
