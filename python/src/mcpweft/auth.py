"""Authorization (OAuth 2.1) settings: protecting a Streamable HTTP server and logging a client in.

The settings only describe what the core does: it checks bearer tokens, serves the Protected
Resource Metadata and answers ``401``/``403``; and on the client side it discovers the
authorization server, registers, runs the authorization code flow with PKCE, refreshes and
steps up. This module turns the settings and the callbacks into what the native module takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol, TypedDict, Union

from .types import JsonObject, optional


class AuthInfo(TypedDict, total=False):
    """Who a request came from on a protected server, as the token verifier saw them.

    A verifier returns one (any subset of the keys) to accept a token, and a handler reads it
    as ``ctx.auth``. A non-empty ``audience`` must hold the server's own resource URL, and a
    passed ``expiresAt`` (seconds since the Unix epoch) refuses the token.
    """

    subject: str
    clientId: str
    issuer: str
    audience: list[str]
    scopes: list[str]
    expiresAt: int
    claims: JsonObject


class StoredTokens(TypedDict, total=False):
    """The tokens and client registration a client keeps for one server."""

    accessToken: str
    refreshToken: str
    expiresAt: int
    scopes: list[str]
    clientId: str
    clientSecret: str


#: Checks a bearer token: returns the caller's identity, or ``None`` (or raises) to refuse it.
Verifier = Callable[[str], Union[Optional[AuthInfo], Awaitable[Optional[AuthInfo]]]]
#: Shows the user the authorization URL and returns the URL the authorization server
#: redirected to (with ``code`` and ``state``).
Authorizer = Callable[[str], Union[str, Awaitable[str]]]


class TokenStore(Protocol):
    """Keeps a client's tokens between runs, by the server's resource URL; each method may be
    a plain or an ``async`` method."""

    def load(self, resource: str) -> Any:
        """Returns the ``StoredTokens`` kept for ``resource``, or ``None``."""
        ...

    def save(self, resource: str, tokens: StoredTokens) -> Any:
        """Keeps ``tokens`` for ``resource``."""
        ...


def _millis(seconds: Optional[float]) -> Optional[int]:
    return None if seconds is None else round(seconds * 1000)


def _scopes(scopes: Optional[Mapping[str, Sequence[str]]]) -> Optional[dict[str, list[str]]]:
    return None if scopes is None else {key: list(value) for key, value in scopes.items()}


def _list(items: Optional[Sequence[str]]) -> Optional[list[str]]:
    return None if items is None else list(items)


@dataclass(frozen=True)
class JwtSettings:
    """The built-in JWT verifier: tokens signed by a key of the JWKS at ``jwks_url`` (fetched and
    cached) or given as ``jwks``, issued by ``issuer`` for ``audience`` (the server's
    ``resource`` by default), with ``required_scopes``. ``leeway`` and ``refresh_interval`` are
    in seconds."""

    issuer: str
    jwks_url: Optional[str] = None
    jwks: Optional[JsonObject] = None
    audience: Optional[str] = None
    required_scopes: Optional[Sequence[str]] = None
    leeway: Optional[float] = None
    refresh_interval: Optional[float] = None

    def _to_json(self) -> JsonObject:
        return {"issuer": self.issuer} | optional(
            jwksUrl=self.jwks_url,
            jwks=self.jwks,
            audience=self.audience,
            requiredScopes=_list(self.required_scopes),
            leewayMs=_millis(self.leeway),
            refreshIntervalMs=_millis(self.refresh_interval),
        )


@dataclass(frozen=True)
class ServerAuth:
    """How a Streamable HTTP server is protected.

    ``resource`` is the server's canonical URL (such as ``https://mcp.example.com/mcp``);
    ``authorization_servers`` are the issuers the Protected Resource Metadata names. Every
    request needs ``required_scopes``; ``method_scopes`` and ``tool_scopes`` map a method or a
    tool name to the scopes it needs too. ``scopes_supported`` and ``resource_name`` go into the
    metadata, and ``leeway`` (seconds) applies to expiry times. Tokens are checked by ``jwt``,
    or by the ``verifier`` given to ``serve_http``.
    """

    resource: str
    authorization_servers: Optional[Sequence[str]] = None
    required_scopes: Optional[Sequence[str]] = None
    scopes_supported: Optional[Sequence[str]] = None
    method_scopes: Optional[Mapping[str, Sequence[str]]] = None
    tool_scopes: Optional[Mapping[str, Sequence[str]]] = None
    resource_name: Optional[str] = None
    leeway: Optional[float] = None
    jwt: Optional[JwtSettings] = None

    def _to_json(self) -> JsonObject:
        return {"resource": self.resource} | optional(
            authorizationServers=_list(self.authorization_servers),
            requiredScopes=_list(self.required_scopes),
            scopesSupported=_list(self.scopes_supported),
            methodScopes=_scopes(self.method_scopes),
            toolScopes=_scopes(self.tool_scopes),
            resourceName=self.resource_name,
            leewayMs=_millis(self.leeway),
            jwt=None if self.jwt is None else self.jwt._to_json(),
        )


@dataclass(frozen=True)
class ClientCredentials:
    """A machine client's credentials for the client credentials grant: ``client_secret``, or
    ``private_key_pem`` signed with ``algorithm`` (``ES256`` by default)."""

    client_id: str
    client_secret: Optional[str] = None
    private_key_pem: Optional[str] = None
    algorithm: Optional[str] = None

    def _to_json(self) -> JsonObject:
        return {"clientId": self.client_id} | optional(
            clientSecret=self.client_secret, privateKeyPem=self.private_key_pem, algorithm=self.algorithm
        )


@dataclass(frozen=True)
class IdentityAssertion:
    """Enterprise-managed authorization (cross-app access): the user's ``id_token`` from the
    enterprise identity provider is exchanged at ``idp_token_endpoint`` (as ``idp_client_id``
    when it wants one) for a grant that the MCP server's authorization server trades for an
    access token, as the client ``client_id`` (with ``client_secret``)."""

    client_id: str
    idp_token_endpoint: str
    id_token: str
    client_secret: Optional[str] = None
    idp_client_id: Optional[str] = None

    def _to_json(self) -> JsonObject:
        return {"clientId": self.client_id, "idpTokenEndpoint": self.idp_token_endpoint, "idToken": self.id_token} | (
            optional(clientSecret=self.client_secret, idpClientId=self.idp_client_id)
        )


@dataclass(frozen=True)
class WorkloadIdentity:
    """Workload identity federation: ``assertion``, the JWT the workload's platform issued to
    it (its audience the authorization server), is the grant itself, sent as ``client_id``
    when given."""

    assertion: str
    client_id: Optional[str] = None

    def _to_json(self) -> JsonObject:
        return {"assertion": self.assertion} | optional(clientId=self.client_id)


@dataclass(frozen=True)
class ClientAuth:
    """How a client logs in to a protected server.

    A user logs in through the ``authorizer`` given to ``Client.http``, which gets the
    authorization URL and returns the one the authorization server redirected to
    ``redirect_uri``. The client registers itself dynamically as ``client_name``, unless
    ``client_id`` (and ``client_secret``) name a pre-registered client or
    ``client_metadata_url`` a client ID metadata document. ``scopes`` replaces the scopes the
    server asks for, and ``max_step_ups`` bounds the logins for more scopes. A machine client
    gives ``client_credentials``, ``identity_assertion`` or ``workload_identity`` instead and
    needs no authorizer.
    """

    redirect_uri: Optional[str] = None
    client_name: Optional[str] = None
    client_id: Optional[str] = None
    client_secret: Optional[str] = None
    client_metadata_url: Optional[str] = None
    scopes: Optional[Sequence[str]] = None
    max_step_ups: Optional[int] = None
    client_credentials: Optional[ClientCredentials] = None
    identity_assertion: Optional[IdentityAssertion] = None
    workload_identity: Optional[WorkloadIdentity] = None

    def _to_json(self) -> JsonObject:
        credentials = self.client_credentials
        assertion = self.identity_assertion
        workload = self.workload_identity
        return optional(
            redirectUri=self.redirect_uri,
            clientName=self.client_name,
            clientId=self.client_id,
            clientSecret=self.client_secret,
            clientMetadataUrl=self.client_metadata_url,
            scopes=_list(self.scopes),
            maxStepUps=self.max_step_ups,
            clientCredentials=None if credentials is None else credentials._to_json(),
            identityAssertion=None if assertion is None else assertion._to_json(),
            workloadIdentity=None if workload is None else workload._to_json(),
        )


def _verifier(verify: Verifier) -> tuple[Callable[..., Any], bool]:
    """Wraps ``verify(token)`` as the native verifier ``({"token"}, ctx)``."""
    if inspect.iscoroutinefunction(verify):

        async def check(payload: JsonObject, _ctx: Any) -> Any:
            return await verify(payload["token"])

        return check, True

    def check_sync(payload: JsonObject, _ctx: Any) -> Any:
        return verify(payload["token"])

    return check_sync, False


def _authorizer(authorize: Authorizer) -> tuple[Callable[..., Any], bool]:
    """Wraps ``authorize(url)`` as the native authorizer ``({"authorizationUrl"}, ctx)``."""
    if inspect.iscoroutinefunction(authorize):

        async def run(payload: JsonObject, _ctx: Any) -> Any:
            return await authorize(payload["authorizationUrl"])

        return run, True

    def run_sync(payload: JsonObject, _ctx: Any) -> Any:
        return authorize(payload["authorizationUrl"])

    return run_sync, False


def _token_store(store: TokenStore) -> tuple[Callable[..., Any], bool]:
    """Wraps ``store.load`` and ``store.save`` as the native token store ``({"op", ...}, ctx)``."""

    def call(payload: JsonObject) -> Any:
        if payload["op"] == "load":
            return store.load(payload["resource"])
        return store.save(payload["resource"], payload["tokens"])

    if inspect.iscoroutinefunction(store.load) or inspect.iscoroutinefunction(store.save):

        async def run(payload: JsonObject, _ctx: Any) -> Any:
            outcome = call(payload)
            return await outcome if inspect.isawaitable(outcome) else outcome

        return run, True

    def run_sync(payload: JsonObject, _ctx: Any) -> Any:
        return call(payload)

    return run_sync, False


__all__ = [
    "AuthInfo",
    "Authorizer",
    "ClientAuth",
    "ClientCredentials",
    "IdentityAssertion",
    "JwtSettings",
    "ServerAuth",
    "StoredTokens",
    "TokenStore",
    "Verifier",
    "WorkloadIdentity",
]
