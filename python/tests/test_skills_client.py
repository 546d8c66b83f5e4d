"""The skills extension on the client: declaring it, and loading a skill's files only once they
match the skill's entry (size, digest, frontmatter)."""

from __future__ import annotations

import hashlib

import pytest

from mcpweft import CapabilityMissing, Client, Context, IdentityAssertion, Server, WorkloadIdentity
from mcpweft.auth import ClientAuth
from mcpweft.client import SKILLS_EXTENSION
from mcpweft.errors import ProtocolError
from mcpweft.types import JsonObject

SKILL_URI = "skill://pdf/SKILL.md"
NOTES_URI = "skill://pdf/notes.txt"
SKILL_MD = "---\nname: pdf\ndescription: Extract PDF text\n---\n\nUse the notes.\n"
NOTES = "Read page by page.\n"


def entry_of(files: dict[str, str], frontmatter: JsonObject) -> JsonObject:
    """The skills/list entry of a skill whose files are ``files``, as a server lists it."""
    resources = [
        {"uri": uri, "digest": "sha256:" + hashlib.sha256(text.encode()).hexdigest(), "size": len(text.encode())}
        for uri, text in files.items()
    ]
    return {"uri": SKILL_URI, "frontmatter": frontmatter, "resources": resources}


def skill_server() -> Server:
    server = Server("skills")

    @server.resource(SKILL_URI)
    def skill_md() -> str:
        return SKILL_MD

    @server.resource(NOTES_URI)
    def notes() -> str:
        return NOTES

    return server


async def test_load_skill_and_read_file_verified() -> None:
    entry = entry_of({SKILL_URI: SKILL_MD, NOTES_URI: NOTES}, {"name": "pdf", "description": "Extract PDF text"})
    async with Client.memory(skill_server()) as client:
        skill = await client.load_skill(entry)
        assert skill["frontmatter"] == {"name": "pdf", "description": "Extract PDF text"}
        assert skill["body"].strip() == "Use the notes."
        assert skill["entry"]["uri"] == SKILL_URI
        assert await client.read_skill_file(entry, NOTES_URI) == NOTES.encode()


async def test_files_that_fail_verification_are_refused() -> None:
    frontmatter = {"name": "pdf", "description": "Extract PDF text"}
    async with Client.memory(skill_server()) as client:
        wrong_digest = entry_of({SKILL_URI: SKILL_MD, NOTES_URI: NOTES.upper()}, frontmatter)
        with pytest.raises(ProtocolError, match="digest"):
            await client.read_skill_file(wrong_digest, NOTES_URI)
        wrong_size = entry_of({SKILL_URI: SKILL_MD + "\n"}, frontmatter)
        with pytest.raises(ProtocolError, match="bytes"):
            await client.load_skill(wrong_size)
        other_frontmatter = entry_of({SKILL_URI: SKILL_MD}, {"name": "pdf", "description": "Something else"})
        with pytest.raises(ProtocolError, match="description"):
            await client.load_skill(other_frontmatter)
        with pytest.raises(ProtocolError, match="not a file of the skill"):
            await client.read_skill_file(entry_of({SKILL_URI: SKILL_MD}, frontmatter), NOTES_URI)


async def test_list_skills_needs_the_extension_and_extensions_are_declared() -> None:
    server = skill_server()

    @server.tool()
    def declared(ctx: Context) -> list[str]:
        return sorted(ctx.client_capabilities.get("extensions", {}))

    async with Client.memory(server, extensions={SKILLS_EXTENSION: {}}) as client:
        with pytest.raises(CapabilityMissing):
            await client.list_skills()
        result = await client.call_tool("declared")
        assert SKILLS_EXTENSION in result["content"][0]["text"]


def test_machine_logins_as_settings() -> None:
    assertion = IdentityAssertion(client_id="app", idp_token_endpoint="http://127.0.0.1:1/token", id_token="id")
    assert ClientAuth(identity_assertion=assertion)._to_json() == {
        "identityAssertion": {"clientId": "app", "idpTokenEndpoint": "http://127.0.0.1:1/token", "idToken": "id"}
    }
    workload = WorkloadIdentity(assertion="jwt", client_id="svc")
    assert ClientAuth(workload_identity=workload)._to_json() == {
        "workloadIdentity": {"assertion": "jwt", "clientId": "svc"}
    }
