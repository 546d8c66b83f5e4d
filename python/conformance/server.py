"""The conformance fixture server, written with mcpweft's Python API.

Exposes exactly what the official MCP conformance suite's server scenarios call, with the
names and payloads of the Rust reference fixture (``tests/conformance/rust/src/fixture.rs``).

Usage: ``server.py PORT`` serves Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` until
killed; ``server.py --stdio`` serves one session over stdin and stdout.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from typing import Any, Optional

import revision_2026

from mcpweft import Context, McpError, Server, __version__
from mcpweft.types import CallToolResult, ContentBlock, JsonObject, PromptMessage

# A 1x1 PNG image, base64-encoded.
PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
# A WAV file of eight silent 16-bit samples at 8 kHz, base64-encoded.
WAV_BASE64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"
# The pause between the steps of the logging and progress tools, in seconds.
STEP_DELAY = 0.05
RECONNECTION_TEXT = "Reconnection test completed"
# Values offered by completion/complete, filtered by the prefix the client typed.
COMPLETIONS = ["testValue1", "testValue2", "test-data", "example"]

JSON_SCHEMA_2020_12: JsonObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

SEP1034_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}

SEP1330_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Untitled single-select enum",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Titled single-select enum",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Legacy titled enum",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Untitled multi-select enum",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Titled multi-select enum",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
    "required": [],
}

ELICITATION_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


def text_result(text: str) -> CallToolResult:
    return {"content": [{"type": "text", "text": text}]}


def error_result(text: str) -> CallToolResult:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def content_result(*blocks: ContentBlock) -> CallToolResult:
    return {"content": list(blocks)}


def image() -> ContentBlock:
    return {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}


def embedded(uri: str, mime_type: str, text: str) -> ContentBlock:
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime_type, "text": text}}


def compact(value: Any) -> str:
    """JSON without spaces, as serde_json writes it."""
    return json.dumps(value, separators=(",", ":"))


async def elicit(ctx: Context, message: str, schema: JsonObject, prefix: str) -> CallToolResult:
    """Sends a form elicitation and reports the answer as ``<prefix>: action=…, content=…``."""
    try:
        result = await ctx.elicit(message, schema)
    except McpError as e:
        return error_result(f"Elicitation failed: {e}")
    return text_result(f"{prefix}: action={result.get('action', '')}, content={compact(result.get('content'))}")


def fixture() -> Server:
    """Builds the complete conformance fixture server."""
    server = Server(
        "mcpweft-conformance-server",
        version=__version__,
        instructions="The mcpweft fixture for the official MCP conformance suite.",
        tasks=True,
    )
    revision_2026.register(server)

    @server.tool(name="test_simple_text", description="Returns a simple text response.")
    def simple_text() -> CallToolResult:
        return text_result("This is a simple text response for testing.")

    @server.tool(name="test_image_content", description="Returns a 1x1 PNG image.")
    def image_content() -> CallToolResult:
        return content_result(image())

    @server.tool(name="test_audio_content", description="Returns a short WAV clip.")
    def audio_content() -> CallToolResult:
        return content_result({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"})

    @server.tool(name="test_embedded_resource", description="Returns an embedded text resource.")
    def embedded_resource() -> CallToolResult:
        text = "This is an embedded resource content."
        return content_result(embedded("test://embedded-resource", "text/plain", text))

    @server.tool(name="test_multiple_content_types", description="Returns text, an image and an embedded resource.")
    def multiple_content_types() -> CallToolResult:
        return content_result(
            {"type": "text", "text": "Multiple content types test:"},
            image(),
            embedded("test://mixed-content-resource", "application/json", compact({"test": "data", "value": 123})),
        )

    @server.tool(name="test_tool_with_logging", description="Sends three log messages while it runs.")
    async def tool_with_logging(ctx: Context) -> CallToolResult:
        steps = ["Tool execution started", "Tool processing data", "Tool execution completed"]
        for i, step in enumerate(steps):
            if i > 0:
                await asyncio.sleep(STEP_DELAY)
            ctx.info(step, logger="conformance")
        return text_result("Tool with logging executed successfully")

    @server.tool(name="test_tool_with_progress", description="Reports progress 0, 50 and 100 of 100 while it runs.")
    async def tool_with_progress(ctx: Context) -> CallToolResult:
        for i, progress in enumerate([0.0, 50.0, 100.0]):
            if i > 0:
                await asyncio.sleep(STEP_DELAY)
            ctx.report_progress(progress, 100.0)
        # Leaves the last notification time to arrive before the result.
        await asyncio.sleep(STEP_DELAY)
        return text_result("Tool with progress executed successfully")

    @server.tool(name="test_error_handling", description="Always fails with a tool error.")
    def error_handling() -> CallToolResult:
        return error_result("This tool intentionally returns an error for testing")

    @server.tool(name="test_sampling", description="Asks the client's model to answer a prompt.")
    async def sampling(prompt: str, ctx: Context) -> CallToolResult:
        """Asks the client's model to answer a prompt.

        Args:
            prompt: The prompt to send to the model
        """
        try:
            result = await ctx.sample(prompt, max_tokens=100)
        except McpError as e:
            return error_result(f"Sampling failed: {e}")
        content = result.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        return text_result(f"LLM response: {''.join(texts)}")

    @server.tool(name="test_elicitation", description="Asks the user for a username and an e-mail address.")
    async def elicitation(message: str, ctx: Context) -> CallToolResult:
        """Asks the user for a username and an e-mail address.

        Args:
            message: The message to show the user
        """
        return await elicit(ctx, message, ELICITATION_SCHEMA, "User response")

    @server.tool(
        name="test_elicitation_sep1034_defaults",
        description="Elicits one field of each type, each with a default.",
    )
    async def elicitation_sep1034_defaults(ctx: Context) -> CallToolResult:
        message = "Please review and update the form fields with defaults"
        return await elicit(ctx, message, SEP1034_SCHEMA, "Elicitation completed")

    @server.tool(name="test_elicitation_sep1330_enums", description="Elicits the five enum shapes of SEP-1330.")
    async def elicitation_sep1330_enums(ctx: Context) -> CallToolResult:
        message = "Please select options from the enum fields"
        return await elicit(ctx, message, SEP1330_SCHEMA, "Elicitation completed")

    @server.tool(
        name="json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        input_schema=JSON_SCHEMA_2020_12,
    )
    def json_schema_2020_12_tool(name: Optional[str] = None, address: Optional[JsonObject] = None) -> CallToolResult:
        arguments = {k: v for k, v in (("name", name), ("address", address)) if v is not None}
        return text_result(f"JSON Schema 2020-12 tool called with: {compact(arguments)}")

    @server.tool(name="test_reconnection", description="Closes its SSE stream, then answers on the resumed stream.")
    async def reconnection(ctx: Context) -> CallToolResult:
        ctx.close_sse_stream()
        await asyncio.sleep(0.1)
        return text_result(RECONNECTION_TEXT)

    @server.resource(
        "test://static-text", name="static-text", description="A static text resource.", mime_type="text/plain"
    )
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource(
        "test://static-binary",
        name="static-binary",
        description="A static binary resource (a 1x1 PNG).",
        mime_type="image/png",
    )
    def static_binary() -> bytes:
        return base64.b64decode(PNG_BASE64)

    @server.resource(
        "test://watched-resource",
        name="watched-resource",
        description="A resource clients can subscribe to.",
        mime_type="text/plain",
    )
    def watched_resource() -> str:
        return "Watched resource content"

    @server.resource(
        "test://template/{id}/data",
        name="template-data",
        description="A resource whose content depends on an id.",
        mime_type="application/json",
    )
    def template_data(id: str) -> str:
        return compact({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    @server.prompt(name="test_simple_prompt", description="A simple prompt without arguments.")
    def simple_prompt() -> str:
        return "This is a simple prompt for testing."

    @server.prompt(name="test_prompt_with_arguments", description="A prompt with two required arguments.")
    def prompt_with_arguments(arg1: str, arg2: str) -> str:
        """A prompt with two required arguments.

        Args:
            arg1: First test argument
            arg2: Second test argument
        """
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.prompt(name="test_prompt_with_embedded_resource", description="A prompt that embeds a resource.")
    def prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
        """A prompt that embeds a resource.

        Args:
            resourceUri: URI of the resource to embed
        """
        return [
            {"role": "user", "content": embedded(resourceUri, "text/plain", "Embedded resource content for testing.")},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ]

    @server.prompt(name="test_prompt_with_image", description="A prompt that includes an image.")
    def prompt_with_image() -> list[PromptMessage]:
        return [
            {"role": "user", "content": image()},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ]

    @server.completion()
    def complete(ref: dict[str, str], argument: str, value: str) -> list[str]:
        known = ref.get("name") == "test_prompt_with_arguments" or ref.get("uri") == "test://template/{id}/data"
        return [v for v in COMPLETIONS if v.startswith(value)] if known else []

    return server


async def serve_http(port: int) -> None:
    # The pinned suite sends a stale MCP-Protocol-Version header in two scenarios.
    http = await fixture().serve_http("127.0.0.1", port, "/mcp", require_negotiated_version=False)
    print(f"conformance-server: serving {http.url}", file=sys.stderr, flush=True)
    try:
        await http.wait()
    finally:
        await http.close()


def main(argv: list[str]) -> int:
    if argv == ["--stdio"]:
        fixture().run()
        return 0
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: server.py PORT | server.py --stdio", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve_http(int(argv[0])))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
