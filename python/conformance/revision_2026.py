"""The tools and prompt of suite 0.2.0-alpha.12's revision 2026-07-28 scenarios: requests for
input across rounds, the stateless checks, the tasks extension, ``subscriptions/listen`` and
custom headers, with the names and payloads of the Rust fixture
(``tests/conformance/rust/src/fixture.rs`` and ``tasks.rs``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from mcpweft import Context, McpError, Server
from mcpweft.types import CallToolResult, JsonObject

# Longer than the server's immediate window (100 ms): a call that waits this long before asking
# for input or answering becomes a task.
PAST_THE_WINDOW = 0.3


def text(value: str) -> CallToolResult:
    return {"content": [{"type": "text", "text": value}]}


def form(message: str, prop: str, kind: str) -> JsonObject:
    """The form a scenario asks its question with."""
    return {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {prop: {"type": kind}}, "required": [prop]},
    }


def sampling(prompt: str, max_tokens: int) -> JsonObject:
    return {"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": max_tokens}


async def ask_name(ctx: Context) -> Any:
    return await ctx.ask("user_name", "elicitation/create", form("What is your name?", "name", "string"))


def greeting(answer: Any) -> CallToolResult:
    return text(f"Hello, {answer.get('content', {}).get('name', 'stranger')}!")


async def gather_all(*asks: Awaitable[Any]) -> list[Any]:
    """Awaits every request for input (so that all of them join one round), then raises the
    first failure, if any."""
    answers = await asyncio.gather(*asks, return_exceptions=True)
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer
    return answers


def register(server: Server) -> None:
    """Adds the 2026-07-28 registrations to the fixture ``server`` (made with ``tasks=True``)."""
    # The skill the skills scenarios (SEP-2640) find: a SKILL.md and one reference file.
    server.add_skill(
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n"
        "Read references/FORMS.md before filling a form.\n",
        files={"references/FORMS.md": "Forms have fields; fill each one.\n"},
    )

    @server.tool(name="test_input_required_result_elicitation", description="Asks for the user's name.")
    async def input_elicitation(ctx: Context) -> CallToolResult:
        return greeting(await ask_name(ctx))

    @server.tool(name="test_input_required_result_tampered_state", description="Asks for confirmation.")
    async def input_tampered_state(ctx: Context) -> CallToolResult:
        ctx.set_state({"asked": True})
        await ctx.ask("confirm", "elicitation/create", form("Please confirm", "ok", "boolean"))
        return text("confirmed")

    @server.tool(name="test_input_required_result_sampling", description="Asks the model a question.")
    async def input_sampling(ctx: Context) -> CallToolResult:
        answer = await ctx.ask(
            "capital_question", "sampling/createMessage", sampling("What is the capital of France?", 100)
        )
        return text(answer.get("content", {}).get("text", ""))

    @server.tool(name="test_input_required_result_list_roots", description="Asks for the client's roots.")
    async def input_list_roots(ctx: Context) -> CallToolResult:
        answer = await ctx.ask("client_roots", "roots/list", {})
        return text("Roots: " + ", ".join(r.get("uri", "") for r in answer.get("roots", [])))

    @server.tool(name="test_input_required_result_request_state", description="Asks for confirmation, keeping state.")
    async def input_request_state(ctx: Context) -> CallToolResult:
        resumed = isinstance(ctx.state, dict) and ctx.state.get("step") == "confirm"
        ctx.set_state({"step": "confirm"})
        await ctx.ask("confirm", "elicitation/create", form("Please confirm", "ok", "boolean"))
        return text("state-ok: confirmed" if resumed else "confirmed without state")

    @server.tool(name="test_input_required_result_multiple_inputs", description="Asks for three inputs at once.")
    async def input_multiple(ctx: Context) -> CallToolResult:
        ctx.set_state({"step": "all"})
        # Asked together: every unanswered request goes into one round.
        name, *_rest = await gather_all(
            ask_name(ctx),
            ctx.ask("greeting", "sampling/createMessage", sampling("Generate a greeting", 50)),
            ctx.ask("client_roots", "roots/list", {}),
        )
        return text(f"All inputs received for {name.get('content', {}).get('name', 'someone')}")

    @server.tool(name="test_input_required_result_multi_round", description="Asks two questions, one round each.")
    async def input_multi_round(ctx: Context) -> CallToolResult:
        # The first answer is kept in the state, since the client sends only the latest.
        state = ctx.state if isinstance(ctx.state, dict) else {}
        name = state.get("name")
        if name is None:
            answer = await ctx.ask("step1", "elicitation/create", form("Step 1: What is your name?", "name", "string"))
            name = answer.get("content", {}).get("name", "someone")
        ctx.set_state({"name": name})
        color = await ctx.ask(
            "step2", "elicitation/create", form("Step 2: What is your favorite color?", "color", "string")
        )
        return text(f"{name} likes {color.get('content', {}).get('color', 'no color')}")

    @server.tool(name="test_input_required_result_capabilities", description="Asks only for what the client can give.")
    async def input_capabilities(ctx: Context) -> CallToolResult:
        caps = ctx.client_capabilities
        asks = []
        if "sampling" in caps:
            asks.append(ctx.ask("question", "sampling/createMessage", sampling("Say hello", 20)))
        if "elicitation" in caps:
            asks.append(ask_name(ctx))
        if "roots" in caps:
            asks.append(ctx.ask("client_roots", "roots/list", {}))
        await gather_all(*asks)
        return text("asked only for what the client declared")

    @server.tool(name="test_missing_capability", description="Needs sampling, which the client must declare.")
    async def missing_capability(ctx: Context) -> CallToolResult:
        await ctx.ask("question", "sampling/createMessage", sampling("Say hello", 20))
        return text("sampled")

    @server.tool(name="test_streaming_elicitation", description="Asks for the user's name while it streams.")
    async def streaming_elicitation(ctx: Context) -> CallToolResult:
        ctx.report_progress(0, 1)
        return greeting(await ask_name(ctx))

    @server.tool(name="test_logging_tool", description="Logs, for the clients that asked for logs.")
    def logging_tool(ctx: Context) -> CallToolResult:
        ctx.info("a log message", "fixture")
        return text("logged")

    @server.prompt(name="test_input_required_result_prompt", description="A prompt that asks for its context.")
    async def input_prompt(ctx: Context) -> str:
        answer = await ctx.ask(
            "user_context", "elicitation/create", form("What context should the prompt use?", "context", "string")
        )
        return f"Use this context: {answer.get('content', {}).get('context', '')}"

    @server.tool(name="greet", description="Greets someone by name.")
    def greet(name: str = "stranger") -> CallToolResult:
        return text(f"Hello, {name}!")

    @server.tool(
        name="slow_compute", description="Sleeps for the given seconds, then answers.", task_support="optional"
    )
    async def slow_compute(seconds: float = 1.0, label: str = "computation") -> CallToolResult:
        seconds = min(max(seconds, 0.0), 600.0)
        await asyncio.sleep(seconds)
        return text(f"{label}: done after {seconds} s")

    @server.tool(name="failing_job", description="Fails with a tool error after a second.", task_support="required")
    async def failing_job() -> CallToolResult:
        await asyncio.sleep(1)
        return {"content": [{"type": "text", "text": "the job failed"}], "isError": True}

    @server.tool(name="protocol_error_job", description="Fails with a protocol error.", task_support="optional")
    async def protocol_error_job() -> CallToolResult:
        await asyncio.sleep(PAST_THE_WINDOW)
        raise McpError(-32603, "the job broke down")

    @server.tool(
        name="confirm_delete", description="Asks for confirmation, then deletes a file.", task_support="optional"
    )
    async def confirm_delete(ctx: Context, filename: str = "the file") -> CallToolResult:
        await asyncio.sleep(PAST_THE_WINDOW)
        answer = await ctx.ask("confirm", "elicitation/create", form(f"Delete {filename}?", "confirm", "boolean"))
        accepted = answer.get("action") == "accept" and answer.get("content", {}).get("confirm") is not False
        return text(f"Deleted {filename}" if accepted else "Kept")

    @server.tool(name="multi_input", description="Asks two questions at once.", task_support="optional")
    async def multi_input(ctx: Context) -> CallToolResult:
        await asyncio.sleep(PAST_THE_WINDOW)
        first, second = await asyncio.gather(
            ctx.ask("first", "elicitation/create", form("First name?", "name", "string")),
            ctx.ask("second", "elicitation/create", form("Second name?", "name", "string")),
        )
        return text(f"{first.get('content', {}).get('name', '?')} and {second.get('content', {}).get('name', '?')}")

    @server.tool(
        name="test_tool_with_task",
        description="Asks for the user's name, then greets them from a task.",
        task_support="required",
    )
    async def tool_with_task(ctx: Context) -> CallToolResult:
        answer = await ask_name(ctx)
        await asyncio.sleep(PAST_THE_WINDOW)
        return greeting(answer)

    @server.tool(
        name="test_header_param",
        description="Echoes a region that is mirrored into the Mcp-Param-Region header.",
        input_schema={"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
    )
    def header_param(region: str = "nowhere") -> CallToolResult:
        return text(f"region: {region}")

    @server.tool(name="test_trigger_tool_change", description="Adds or removes a tool.")
    def trigger_tool_change() -> CallToolResult:
        if not server.remove_tool("dynamic_tool"):
            server.add_tool(lambda: text("dynamic"), name="dynamic_tool", description="Appears and disappears.")
        return text("the tool list changed")

    @server.tool(name="test_trigger_prompt_change", description="Adds or removes a prompt.")
    def trigger_prompt_change() -> CallToolResult:
        if not server.remove_prompt("dynamic_prompt"):
            server.prompt(name="dynamic_prompt", description="Appears and disappears.")(lambda: "dynamic")
        return text("the prompt list changed")
