"""The conformance fixture client, written with mcpweft's Python API.

``client.py URL`` runs the client scenario named in ``MCP_CONFORMANCE_SCENARIO`` against the
suite's mock server at ``URL`` over Streamable HTTP, like the Rust fixture client
(``tests/conformance/rust/src/client.rs``). Exits 0 when the scenario's job is done; otherwise
prints why on stderr and exits 1 (2 for a usage error). Gives up after
``MCP_CONFORMANCE_CLIENT_TIMEOUT`` seconds (default 20), before the suite's own time-out.

The client asks for revision 2026-07-28 and falls back to ``initialize`` with an older server.
An ``auth/...`` scenario logs in to the protected mock server with the settings of its context
(``MCP_CONFORMANCE_CONTEXT``): the user's ID token for enterprise-managed authorization, the
workload's JWT for workload identity, client credentials for machine clients, a pre-registered
client when the context names one, and otherwise a user who approves at once. The revision
2026-07-28 scenarios that watch an ordinary exchange list the tools and call them all at once;
the skills scenarios (``sep-2640-client-...``) list the skills, then load the first and read
its files as a host does when the skill is used.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import sys
from typing import Any
from urllib.parse import urlsplit

from mcpweft import Client, ClientAuth, ClientCredentials, IdentityAssertion, McpError, WorkloadIdentity
from mcpweft.client import SKILLS_EXTENSION
from mcpweft.types import CallToolResult, ElicitResult, JsonObject

SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO"
CONTEXT_VARIABLE = "MCP_CONFORMANCE_CONTEXT"
TIMEOUT_VARIABLE = "MCP_CONFORMANCE_CLIENT_TIMEOUT"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
DEFAULT_TIMEOUT = 20.0
USAGE = "usage: MCP_CONFORMANCE_SCENARIO=NAME client.py URL"
PROTOCOL_VERSION = "2026-07-28"
SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation",
)
#: The scenarios that watch an ordinary exchange: list the tools and call each.
EXCHANGES = (
    "request-metadata",
    "http-custom-headers",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
)
SKILLS_PREFIX = "sep-2640-client-"


class ScenarioFailed(Exception):
    """The scenario could not do its job; the message says why."""


def scenario_context() -> JsonObject:
    """The scenario's context, or an empty one."""
    context = json.loads(os.environ.get(CONTEXT_VARIABLE) or "{}")
    return context if isinstance(context, dict) else {}


def text_of(result: CallToolResult) -> str:
    return " ".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def _answer_value(default: Any) -> bool:
    """Whether a schema ``default`` has a form an elicitation answer can take."""
    if isinstance(default, (str, int, float, bool)):
        return True
    return isinstance(default, list) and all(isinstance(v, str) for v in default)


def defaults_of(requested_schema: JsonObject) -> JsonObject:
    """The answer of a user who accepts every proposed value: each property with a ``default``."""
    properties = requested_schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {
        name: schema["default"]
        for name, schema in properties.items()
        if isinstance(schema, dict) and "default" in schema and _answer_value(schema["default"])
    }


def accept_defaults(params: JsonObject) -> ElicitResult:
    """Accepts a form elicitation with the schema's defaults filled in; declines URL mode."""
    if params.get("mode") == "url":
        return {"action": "decline"}
    return {"action": "accept", "content": defaults_of(params.get("requestedSchema") or {})}


async def require_tool(client: Client, name: str) -> None:
    names = [t["name"] for t in await client.list_tools()]
    if name not in names:
        raise ScenarioFailed(f"the server has no tool `{name}` (it lists: {', '.join(names)})")


async def call(client: Client, name: str, arguments: JsonObject) -> str:
    result = await client.call_tool(name, arguments)
    text = text_of(result)
    if result.get("isError"):
        raise ScenarioFailed(f"tool {name} reported an error: {text}")
    return f"{name} answered: {text}"


async def steps(scenario: str, client: Client) -> str:
    if scenario == "initialize":
        info = client.server_info
        server = info.get("serverInfo", {})
        summary = (
            f"initialized with {server.get('name')} {server.get('version')} at protocol {info.get('protocolVersion')}"
        )
        # The suite's mock server declares no capabilities; only list what it offers.
        if "tools" in info.get("capabilities", {}):
            summary += f"; it lists {len(await client.list_tools())} tool(s)"
        return summary
    if scenario == "tools_call":
        await require_tool(client, "add_numbers")
        return await call(client, "add_numbers", {"a": 5, "b": 3})
    if scenario == "elicitation-sep1034-client-defaults":
        await require_tool(client, "test_client_elicitation_defaults")
        return await call(client, "test_client_elicitation_defaults", {})
    if scenario == "sse-retry":
        await require_tool(client, "test_reconnection")
        return await call(client, "test_reconnection", {})
    if scenario == "json-schema-2020-12-preservation":
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        if "json_schema_2020_12_tool" not in tools:
            raise ScenarioFailed("the server lists no json_schema_2020_12_tool")
        schema = tools["json_schema_2020_12_tool"]["inputSchema"]
        return await call(client, "json_schema_echo", {"schema": schema})
    if scenario in EXCHANGES:
        return await exchange(client)
    if scenario.startswith(SKILLS_PREFIX):
        return await use_skill(scenario, client)
    raise ScenarioFailed(f"unsupported scenario `{scenario}`")


async def exchange(client: Client) -> str:
    """Lists the tools and makes the calls the context names (``toolCalls``), else calls every
    tool without arguments, all at once."""
    if "tools" not in client.server_info.get("capabilities", {}):
        return f"discovered a server without tools at protocol {client.protocol_version}"
    tools = await client.list_tools()
    named = [
        (c["name"], c.get("arguments") or {})
        for c in scenario_context().get("toolCalls") or []
        if isinstance(c, dict) and isinstance(c.get("name"), str)
    ]
    planned = named or [(tool["name"], {}) for tool in tools]

    async def one(name: str, arguments: JsonObject) -> str:
        try:
            return f"{name}: {text_of(await client.call_tool(name, arguments))}"
        except McpError as e:
            return f"{name}: {e}"

    answers = await asyncio.gather(*(one(name, arguments) for name, arguments in planned))
    return f"at protocol {client.protocol_version}: {'; '.join(answers)}"


async def use_skill(scenario: str, client: Client) -> str:
    """Lists the skills; unless the scenario only lists them, loads the first and reads its
    supporting files, stopping at the first file that fails verification."""
    skills = await client.list_skills()
    summary = f"the server lists {len(skills)} skill(s)"
    if not skills or scenario == f"{SKILLS_PREFIX}no-prefetch":
        return summary
    entry = skills[0]
    try:
        skill = await client.load_skill(entry)
    except McpError as e:
        return f"{summary}; refused {entry['uri']}: {e}"
    summary += f"; loaded {skill['frontmatter'].get('name', entry['uri'])}"
    for file in entry.get("resources", []):
        if file["uri"] == entry["uri"]:
            continue
        try:
            data = await client.read_skill_file(entry, file["uri"])
        except McpError as e:
            return f"{summary}; refused {file['uri']}: {e}"
        summary += f"; read {file['uri']} ({len(data)} bytes)"
    return summary


def approve(authorization_url: str) -> str:
    """Approves at once, as the suite's authorization server does: follows the authorization URL
    without its redirect and returns where it points."""
    url = urlsplit(authorization_url)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    try:
        connection.request("GET", f"{url.path}?{url.query}")
        response = connection.getresponse()
        response.read()
        location = response.getheader("Location")
        if location is None:
            raise ScenarioFailed(f"the authorization endpoint answered {response.status} without a redirect")
        return location
    finally:
        connection.close()


def login(scenario: str, context: JsonObject) -> ClientAuth:
    """The login settings of an ``auth/...`` scenario, from its context."""
    if scenario.startswith("auth/cross-app-access") or scenario == "auth/enterprise-managed-authorization":
        assertion = IdentityAssertion(
            client_id=context["client_id"],
            client_secret=context.get("client_secret"),
            idp_token_endpoint=context["idp_token_endpoint"],
            id_token=context["idp_id_token"],
            idp_client_id=context.get("idp_client_id"),
        )
        return ClientAuth(identity_assertion=assertion)
    if scenario == "auth/wif-jwt-bearer":
        workload = WorkloadIdentity(assertion=context["valid_jwt"], client_id=context.get("client_id"))
        return ClientAuth(workload_identity=workload)
    if scenario.startswith("auth/client-credentials"):
        credentials = ClientCredentials(
            client_id=context["client_id"],
            client_secret=context.get("client_secret"),
            private_key_pem=context.get("private_key_pem"),
            algorithm=context.get("signing_algorithm"),
        )
        return ClientAuth(client_credentials=credentials)
    return ClientAuth(
        client_name="mcpweft-conformance-client",
        redirect_uri="http://localhost:3000/callback",
        client_metadata_url=CLIENT_METADATA_URL,
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
    )


async def logged_in(client: Client) -> str:
    """Lists the protected server's tools and calls one."""
    tools = await client.list_tools()
    summary = f"logged in; the server lists {len(tools)} tool(s)"
    names = [tool["name"] for tool in tools]
    name = "test-tool" if "test-tool" in names else (names[0] if names else None)
    if name is not None:
        summary += "; " + await call(client, name, {})
    return summary


async def run(scenario: str, url: str) -> str:
    """Connects, does the scenario's job and closes the connection; returns a summary."""
    options: dict[str, Any] = {
        "name": "mcpweft-conformance-client",
        "protocol_version": PROTOCOL_VERSION,
        "extensions": {SKILLS_EXTENSION: {}},
    }
    if scenario.startswith("auth/"):
        login_settings = login(scenario, scenario_context())
        async with Client.http(url, auth=login_settings, authorizer=approve, **options) as client:
            return await logged_in(client)
    if scenario not in SCENARIOS + EXCHANGES and not scenario.startswith(SKILLS_PREFIX):
        supported = ", ".join(SCENARIOS + EXCHANGES)
        raise ScenarioFailed(
            f"unsupported scenario `{scenario}` (supported: {supported}, auth/..., {SKILLS_PREFIX}...)"
        )
    async with Client.http(url, elicitation_handler=accept_defaults, **options) as client:
        return await steps(scenario, client)


def main(argv: list[str]) -> int:
    scenario = os.environ.get(SCENARIO_VARIABLE)
    if len(argv) != 1 or scenario is None:
        print(f"client.py: {USAGE}", file=sys.stderr)
        return 2
    try:
        limit = float(os.environ.get(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT))
    except ValueError:
        print(f"client.py: {TIMEOUT_VARIABLE} is not a number of seconds", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(asyncio.wait_for(run(scenario, argv[0]), timeout=limit))
    except asyncio.TimeoutError:
        print(f"client.py: {scenario}: gave up after {limit:g} s", file=sys.stderr)
        return 1
    except KeyError as e:
        print(f"client.py: {scenario}: the context has no {e}", file=sys.stderr)
        return 1
    except (ScenarioFailed, McpError, OSError) as e:
        print(f"client.py: {scenario}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"client.py: {scenario}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
