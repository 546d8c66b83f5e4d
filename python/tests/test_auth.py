"""Authorization: a server protected by a verifier, the identity in the handler's context, and
a client that logs in through its authorizer against a small authorization server."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.client
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from mcpweft import (
    AuthInfo,
    Client,
    ClientAuth,
    ClientCredentials,
    Context,
    Host,
    HttpServer,
    InvalidInputError,
    JwtSettings,
    McpError,
    Server,
    ServerAuth,
    StoredTokens,
)


def protected_server() -> Server:
    server = Server("protected")

    @server.tool()
    def whoami(ctx: Context) -> str:
        """Says who calls."""
        auth = ctx.auth
        assert auth is not None
        return f"{auth.get('subject')} {' '.join(auth.get('scopes', []))}"

    return server


def check_token(token: str) -> Optional[AuthInfo]:
    """Accepts ``good`` as alice, refuses ``refused`` quietly and any other token loudly."""
    if token == "good":
        return {"subject": "alice", "clientId": "app", "scopes": ["mcp:read"]}
    if token == "refused":
        return None
    raise ValueError("unknown token")


async def check_token_async(token: str) -> Optional[AuthInfo]:
    return check_token(token)


@pytest.fixture(params=["sync", "async"])
async def protected(request: pytest.FixtureRequest, free_port: int) -> AsyncIterator[HttpServer]:
    verifier = check_token if request.param == "sync" else check_token_async
    auth = ServerAuth(
        resource=f"http://127.0.0.1:{free_port}/mcp",
        authorization_servers=["http://127.0.0.1:1"],
        required_scopes=["mcp:read"],
    )
    async with await protected_server().serve_http(port=free_port, auth=auth, verifier=verifier) as http:
        yield http


async def test_a_verifier_protects_the_server_and_the_handler_sees_the_identity(protected: HttpServer) -> None:
    async with Client.http(protected.url, bearer_token="good") as client:
        result = await client.call_tool("whoami")
        assert result["content"][0]["text"] == "alice mcp:read"
    refusals = {
        None: "a bearer token is required",
        "refused": "the verifier refused the token",
        "bogus": "invalid_token: unknown token",
    }
    for token, reason in refusals.items():
        with pytest.raises(McpError, match=reason):
            await Client.http(protected.url, bearer_token=token).connect()


async def test_auth_settings_and_callbacks_are_checked(free_port: int) -> None:
    server = protected_server()
    auth = ServerAuth(resource=f"http://127.0.0.1:{free_port}/mcp")
    with pytest.raises(ValueError, match="verifier"):
        await server.serve_http(port=free_port, auth=auth)
    login = ClientAuth(redirect_uri="http://127.0.0.1:1/callback")
    with pytest.raises(ValueError, match="authorizer"):
        await Client.http(f"http://127.0.0.1:{free_port}/mcp", auth=login).connect()


async def test_the_built_in_jwt_verifier_checks_tokens_against_an_inline_jwks(free_port: int) -> None:
    jwt = pytest.importorskip("jwt")
    ec = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ec")
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key())) | {"kid": "k1", "alg": "ES256"}
    resource, issuer, now = f"http://127.0.0.1:{free_port}/mcp", "http://127.0.0.1:1/issuer", int(time.time())

    def token(scope: str, audience: str = resource) -> str:
        claims = {"iss": issuer, "sub": "bob", "aud": audience, "scope": scope, "iat": now, "exp": now + 600}
        return str(jwt.encode(claims, key, algorithm="ES256", headers={"kid": "k1"}))

    auth = ServerAuth(
        resource=resource,
        authorization_servers=[issuer],
        required_scopes=["mcp:read"],
        scopes_supported=["mcp:read", "mcp:whoami"],
        method_scopes={"tools/list": ["mcp:read"]},
        tool_scopes={"whoami": ["mcp:whoami"]},
        resource_name="JWT test",
        leeway=30,
        jwt=JwtSettings(
            issuer=issuer, jwks={"keys": [jwk]}, audience=resource, required_scopes=["mcp:read"], refresh_interval=60
        ),
    )
    async with await protected_server().serve_http(port=free_port, auth=auth) as http:
        async with Client.http(http.url, bearer_token=token("mcp:read mcp:whoami")) as client:
            result = await client.call_tool("whoami")
            assert result["content"][0]["text"] == "bob mcp:read mcp:whoami"
        async with Client.http(http.url, bearer_token=token("mcp:read")) as client:
            with pytest.raises(McpError, match="insufficient_scope"):
                await client.call_tool("whoami")
        with pytest.raises(McpError, match="invalid_token"):
            await Client.http(http.url, bearer_token=token("mcp:read", "http://elsewhere/mcp")).connect()


async def test_every_login_setting_reaches_the_core(protected: HttpServer) -> None:
    login = ClientAuth(
        redirect_uri="http://127.0.0.1:1/callback",
        client_name="settings",
        client_id="pre-registered",
        client_secret="secret",
        client_metadata_url="https://client.example.com/metadata.json",
        scopes=["mcp:read"],
        max_step_ups=1,
        client_credentials=ClientCredentials(client_id="machine", client_secret="machine-secret"),
    )
    # The settings parse, and the machine login fails at the unreachable authorization server.
    with pytest.raises(McpError, match="the token request failed"):
        await Client.http(protected.url, auth=login).connect()


class AuthorizationServer(BaseHTTPRequestHandler):
    """A small OAuth authorization server: metadata, dynamic registration, an authorization
    endpoint that approves at once, and a token endpoint that checks PKCE."""

    issuer = ""
    codes: dict[str, tuple[str, str]] = {}
    tokens: set[str] = set()
    registrations = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, status: int, body: Any = None, headers: Optional[dict[str, str]] = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/.well-known/oauth-authorization-server":
            issuer = type(self).issuer
            self.reply(
                200,
                {
                    "issuer": issuer,
                    "authorization_endpoint": f"{issuer}/authorize",
                    "token_endpoint": f"{issuer}/token",
                    "registration_endpoint": f"{issuer}/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["client_secret_post"],
                },
            )
        elif url.path == "/authorize":
            query = {key: values[0] for key, values in parse_qs(url.query).items()}
            code = f"code-{len(type(self).codes)}"
            type(self).codes[code] = (query["code_challenge"], query.get("scope", ""))
            location = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
            self.reply(302, headers={"Location": location})
        else:
            self.reply(404)

    def do_POST(self) -> None:
        if self.path == "/register":
            type(self).registrations += 1
            request = json.loads(self.body())
            body = {"client_id": "registered", "client_secret": "secret", "redirect_uris": request["redirect_uris"]}
            self.reply(201, body)
            return
        form = {key: values[0] for key, values in parse_qs(self.body().decode()).items()}
        challenge, scope = type(self).codes.pop(form.get("code", ""), ("", ""))
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        if form.get("grant_type") != "authorization_code" or base64.urlsafe_b64encode(digest).rstrip(b"=") != (
            challenge.encode()
        ):
            self.reply(400, {"error": "invalid_grant"})
            return
        token = f"token-{len(type(self).tokens)}"
        type(self).tokens.add(token)
        self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": scope})


@pytest.fixture
def authorization_server() -> Iterator[type[AuthorizationServer]]:
    handler = type("Issuer", (AuthorizationServer,), {"codes": {}, "tokens": set(), "registrations": 0})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.issuer = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield handler
    httpd.shutdown()
    httpd.server_close()


def follow(authorization_url: str) -> str:
    """Opens the authorization URL like a browser whose user agrees at once, and returns the URL
    the authorization server redirected to."""
    url = urlsplit(authorization_url)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    try:
        connection.request("GET", f"{url.path}?{url.query}")
        response = connection.getresponse()
        response.read()
        assert response.status == 302
        return str(response.getheader("Location"))
    finally:
        connection.close()


class MemoryStore:
    """A token store that keeps what it is given in a dict."""

    def __init__(self) -> None:
        self.tokens: dict[str, StoredTokens] = {}

    async def load(self, resource: str) -> Optional[StoredTokens]:
        return self.tokens.get(resource)

    def save(self, resource: str, tokens: StoredTokens) -> None:
        self.tokens[resource] = tokens


class UserLogin:
    """A protected server's settings on ``port``, trusting ``issuer``'s tokens, and an authorizer
    whose user agrees at once, recording the authorization URLs it opens."""

    def __init__(self, issuer: type[AuthorizationServer], port: int) -> None:
        self.issuer = issuer
        self.resource = f"http://127.0.0.1:{port}/mcp"
        self.auth = ServerAuth(
            resource=self.resource,
            authorization_servers=[issuer.issuer],
            required_scopes=["mcp:read"],
            scopes_supported=["mcp:read"],
        )
        self.opened: list[str] = []

    def verify(self, token: str) -> Optional[AuthInfo]:
        return {"subject": "user-1", "scopes": ["mcp:read"]} if token in self.issuer.tokens else None

    async def authorizer(self, url: str) -> str:
        self.opened.append(url)
        return follow(url)


async def test_a_client_logs_in_through_its_authorizer(
    authorization_server: type[AuthorizationServer], free_port: int
) -> None:
    user = UserLogin(authorization_server, free_port)
    resource, auth, verify, opened, authorizer = user.resource, user.auth, user.verify, user.opened, user.authorizer
    store = MemoryStore()
    login = ClientAuth(redirect_uri="http://127.0.0.1:1/callback", client_name="auth-test")
    async with await protected_server().serve_http(port=free_port, auth=auth, verifier=verify) as http:
        async with Client.http(http.url, auth=login, authorizer=authorizer, token_store=store) as client:
            result = await client.call_tool("whoami")
            assert result["content"][0]["text"] == "user-1 mcp:read"
        assert len(opened) == 1
        query = parse_qs(urlsplit(opened[0]).query)
        assert query["resource"] == [resource]
        assert query["client_id"] == ["registered"]
        assert authorization_server.registrations == 1
        assert store.tokens[resource]["accessToken"] in authorization_server.tokens

        # A later run finds the tokens in the store and never asks the user again.
        async with Client.http(http.url, auth=login, authorizer=authorizer, token_store=store) as client:
            result = await client.call_tool("whoami")
            assert result["content"][0]["text"] == "user-1 mcp:read"
        assert len(opened) == 1


async def test_a_host_logs_in_to_its_oauth_servers_through_its_authorizer(
    authorization_server: type[AuthorizationServer], free_port: int
) -> None:
    user = UserLogin(authorization_server, free_port)
    resource, auth, verify, opened, authorizer = user.resource, user.auth, user.verify, user.opened, user.authorizer
    store = MemoryStore()
    config = {"mcpServers": {"notes": {"type": "http", "url": resource, "oauth": {"scopes": "mcp:read"}}}}
    login = {"authorizer": authorizer, "token_store": store, "redirect_uri": "http://127.0.0.1:1/callback"}
    async with await protected_server().serve_http(port=free_port, auth=auth, verifier=verify):
        async with Host.connect(config, **login) as host:
            assert host.state("notes") == {"state": "ready"}
            result = await host.call_tool("notes__whoami")
            assert result["content"][0]["text"] == "user-1 mcp:read"
        assert len(opened) == 1
        assert store.tokens[resource]["accessToken"] in authorization_server.tokens

        # A second host finds the tokens in the store and never asks the user again.
        async with Host.connect(config, **login) as host:
            result = await host.call_tool("notes__whoami")
            assert result["content"][0]["text"] == "user-1 mcp:read"
        assert len(opened) == 1

    with pytest.raises(InvalidInputError, match="redirectUri"):
        await Host.connect(config, authorizer=authorizer)


async def asgi_exchange(app: Any, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """Sends one POST to the ASGI ``app`` as an ASGI server would; returns the status, the
    headers and the body of its answer."""
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # the client stays until the answer is sent
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    base = {
        "host": "127.0.0.1:8000",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in (base | headers).items()],
    }
    await asyncio.wait_for(app(scope, receive, send), 10)
    start = sent[0]
    reply_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], reply_headers, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.parametrize("verifier", [check_token, check_token_async], ids=["sync", "async"])
async def test_a_verifier_protects_the_asgi_app(verifier: Any) -> None:
    auth = ServerAuth(
        resource="http://127.0.0.1:8000/mcp",
        authorization_servers=["http://127.0.0.1:1"],
        required_scopes=["mcp:read"],
    )
    app = protected_server().asgi_app(auth=auth, verifier=verifier)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    for refused in ({}, {"authorization": "Bearer refused"}, {"authorization": "Bearer bogus"}):
        status, headers, _ = await asgi_exchange(app, initialize, refused)
        assert status == 401, refused
        assert headers["www-authenticate"].startswith("Bearer"), headers
    status, headers, body = await asgi_exchange(app, initialize, {"authorization": "Bearer good"})
    assert status == 200, body
    assert json.loads(body)["result"]["serverInfo"]["name"] == "protected"
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    session = {
        "authorization": "Bearer good",
        "mcp-session-id": headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await asgi_exchange(app, initialized, session))[0] == 202
    status, _, body = await asgi_exchange(app, call, session)
    assert status == 200, body
    assert json.loads(body)["result"]["content"][0]["text"] == "alice mcp:read"
