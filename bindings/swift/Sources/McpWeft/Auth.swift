/// Who a request came from on a protected server, as the token verifier saw them.
///
/// A verifier returns one to accept a token, and a handler reads it as `Context.auth`. A
/// non-empty `audience` must hold the server's own resource URL, and a passed `expiresAt`
/// (seconds since the Unix epoch) refuses the token.
public struct AuthInfo: Codable, Sendable, Equatable {
    /// The user (or machine client) the token was issued for.
    public var subject: String?
    /// The OAuth client the token was issued to.
    public var clientId: String?
    /// The authorization server that issued the token.
    public var issuer: String?
    /// The audiences of the token.
    public var audience: [String]?
    /// The scopes granted.
    public var scopes: [String]?
    /// When the token expires, in seconds since the Unix epoch.
    public var expiresAt: UInt64?
    /// The token's other claims.
    public var claims: JSONObject?

    /// Creates an identity.
    public init(
        subject: String? = nil, clientId: String? = nil, issuer: String? = nil, audience: [String]? = nil,
        scopes: [String]? = nil, expiresAt: UInt64? = nil, claims: JSONObject? = nil
    ) {
        self.subject = subject
        self.clientId = clientId
        self.issuer = issuer
        self.audience = audience
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.claims = claims
    }
}

/// The built-in JWT verifier: tokens signed by a key of the JWKS at `jwksUrl` (fetched and
/// cached) or given as `jwks`, issued by `issuer` for `audience` (the server's resource by
/// default), with `requiredScopes`.
public struct JWTSettings: Encodable, Sendable {
    /// The issuer the tokens must name.
    public var issuer: String
    /// The URL of the JWKS, fetched and cached; give this or `jwks`.
    public var jwksUrl: String?
    /// The JWKS document itself.
    public var jwks: JSONValue?
    /// The audience the tokens must name; the server's resource by default.
    public var audience: String?
    /// The scopes every token must grant.
    public var requiredScopes: [String]?
    /// The leeway on expiry times, in milliseconds.
    public var leewayMs: UInt64?
    /// How often an unknown key may make the JWKS be fetched again, in milliseconds.
    public var refreshIntervalMs: UInt64?

    /// Creates the settings; give one of `jwksUrl` and `jwks`.
    public init(
        issuer: String, jwksUrl: String? = nil, jwks: JSONValue? = nil, audience: String? = nil,
        requiredScopes: [String]? = nil, leewayMs: UInt64? = nil, refreshIntervalMs: UInt64? = nil
    ) {
        self.issuer = issuer
        self.jwksUrl = jwksUrl
        self.jwks = jwks
        self.audience = audience
        self.requiredScopes = requiredScopes
        self.leewayMs = leewayMs
        self.refreshIntervalMs = refreshIntervalMs
    }
}

/// How a Streamable HTTP server is protected with OAuth 2.1.
///
/// `resource` is the server's canonical URL; `authorizationServers` are the issuers its
/// Protected Resource Metadata names. Every request needs `requiredScopes`, and
/// `methodScopes` and `toolScopes` add the scopes of a method or a tool. Tokens are checked by
/// `jwt`, or by the verifier given to `Server.serveHTTP`.
public struct ServerAuth: Encodable, Sendable {
    /// The server's canonical URL, such as `https://mcp.example.com/mcp`.
    public var resource: String
    /// The issuers the Protected Resource Metadata names.
    public var authorizationServers: [String]?
    /// The scopes every request needs.
    public var requiredScopes: [String]?
    /// The scopes the Protected Resource Metadata lists.
    public var scopesSupported: [String]?
    /// The scopes each method needs, by method name.
    public var methodScopes: [String: [String]]?
    /// The scopes each tool needs, by tool name.
    public var toolScopes: [String: [String]]?
    /// The server's name in the Protected Resource Metadata.
    public var resourceName: String?
    /// The leeway on expiry times, in milliseconds.
    public var leewayMs: UInt64?
    /// The built-in JWT verifier; without it, the verifier given to `serveHTTP` checks tokens.
    public var jwt: JWTSettings?

    /// Creates the settings.
    public init(
        resource: String, authorizationServers: [String]? = nil, requiredScopes: [String]? = nil,
        scopesSupported: [String]? = nil, methodScopes: [String: [String]]? = nil,
        toolScopes: [String: [String]]? = nil, resourceName: String? = nil, leewayMs: UInt64? = nil,
        jwt: JWTSettings? = nil
    ) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.requiredScopes = requiredScopes
        self.scopesSupported = scopesSupported
        self.methodScopes = methodScopes
        self.toolScopes = toolScopes
        self.resourceName = resourceName
        self.leewayMs = leewayMs
        self.jwt = jwt
    }
}

/// A machine client's credentials for the client credentials grant: a secret, or a private
/// key (PEM) that signs with `algorithm` (`ES256` by default).
public struct ClientCredentials: Encodable, Sendable {
    /// The client's id.
    public var clientId: String
    /// The client's secret.
    public var clientSecret: String?
    /// The client's private key, in PEM, to sign its assertions with.
    public var privateKeyPem: String?
    /// The signing algorithm of the private key, `ES256` by default.
    public var algorithm: String?

    /// Creates the credentials.
    public init(clientId: String, clientSecret: String? = nil, privateKeyPem: String? = nil, algorithm: String? = nil) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.privateKeyPem = privateKeyPem
        self.algorithm = algorithm
    }
}

/// Enterprise-managed authorization (cross-app access): the user's `idToken` from the
/// enterprise identity provider is exchanged at `idpTokenEndpoint` (as `idpClientId` when the
/// provider wants one) for a grant that the MCP server's authorization server trades for an
/// access token, as the client `clientId` (with `clientSecret`).
public struct IdentityAssertion: Encodable, Sendable {
    /// The client's id at the MCP server's authorization server.
    public var clientId: String
    /// The client's secret at the MCP server's authorization server.
    public var clientSecret: String?
    /// The token endpoint of the enterprise identity provider.
    public var idpTokenEndpoint: String
    /// The user's ID token from the enterprise identity provider.
    public var idToken: String
    /// The client's id at the identity provider, when it wants one.
    public var idpClientId: String?

    /// Creates the credentials.
    public init(
        clientId: String, idpTokenEndpoint: String, idToken: String, clientSecret: String? = nil,
        idpClientId: String? = nil
    ) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.idpTokenEndpoint = idpTokenEndpoint
        self.idToken = idToken
        self.idpClientId = idpClientId
    }
}

/// Workload identity federation: `assertion`, the JWT the workload's platform issued to it
/// (its audience the authorization server), is the grant itself, sent as `clientId` when
/// given.
public struct WorkloadIdentity: Encodable, Sendable {
    /// The JWT the workload's platform issued.
    public var assertion: String
    /// The client's id, when the authorization server wants one.
    public var clientId: String?

    /// Creates the credentials.
    public init(assertion: String, clientId: String? = nil) {
        self.assertion = assertion
        self.clientId = clientId
    }
}

/// How a client logs in to a protected server with OAuth 2.1.
///
/// A user logs in through `ClientHandlers.authorizer`, redirected to `redirectUri`; the client
/// registers itself dynamically as `clientName` unless `clientId` (and `clientSecret`) name a
/// pre-registered client or `clientMetadataUrl` a client ID metadata document. `scopes`
/// replaces the scopes the server asks for. A machine client gives `clientCredentials`,
/// `identityAssertion` or `workloadIdentity` and needs no authorizer.
public struct ClientAuth: Encodable, Sendable {
    /// Where the authorization server sends the user back, with the code.
    public var redirectUri: String?
    /// The name the client registers under (`mcpweft` by default).
    public var clientName: String?
    /// The id of a pre-registered client.
    public var clientId: String?
    /// The secret of a pre-registered client.
    public var clientSecret: String?
    /// The URL of the client's ID metadata document.
    public var clientMetadataUrl: String?
    /// The scopes to ask for, in place of those the server asks for.
    public var scopes: [String]?
    /// How many times at most the user logs in again for more scopes (2 by default).
    public var maxStepUps: UInt32?
    /// A machine client's credentials, for the client credentials grant.
    public var clientCredentials: ClientCredentials?
    /// The user's enterprise identity, for enterprise-managed authorization.
    public var identityAssertion: IdentityAssertion?
    /// The workload's identity, for workload identity federation.
    public var workloadIdentity: WorkloadIdentity?

    /// Creates the settings.
    public init(
        redirectUri: String? = nil, clientName: String? = nil, clientId: String? = nil, clientSecret: String? = nil,
        clientMetadataUrl: String? = nil, scopes: [String]? = nil, maxStepUps: UInt32? = nil,
        clientCredentials: ClientCredentials? = nil, identityAssertion: IdentityAssertion? = nil,
        workloadIdentity: WorkloadIdentity? = nil
    ) {
        self.redirectUri = redirectUri
        self.clientName = clientName
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.clientMetadataUrl = clientMetadataUrl
        self.scopes = scopes
        self.maxStepUps = maxStepUps
        self.clientCredentials = clientCredentials
        self.identityAssertion = identityAssertion
        self.workloadIdentity = workloadIdentity
    }
}

/// The tokens and client registration a client keeps for one server.
public struct StoredTokens: Codable, Sendable, Equatable {
    /// The access token.
    public var accessToken: String?
    /// The refresh token, if the authorization server gave one.
    public var refreshToken: String?
    /// When the access token expires, in seconds since the Unix epoch.
    public var expiresAt: UInt64?
    /// The scopes asked for.
    public var scopes: [String]?
    /// The client id this client is registered under.
    public var clientId: String?
    /// The client secret, for confidential clients.
    public var clientSecret: String?
}

/// Keeps a client's tokens between runs, by the server's resource URL.
public protocol TokenStore: Sendable {
    /// Returns what was kept for `resource`.
    func load(resource: String) async throws -> StoredTokens?
    /// Keeps `tokens` for `resource`.
    func save(resource: String, tokens: StoredTokens) async throws
}

/// Checks a bearer token: returns the caller's identity, or `nil` (or throws) to refuse it.
public typealias TokenVerifier = @Sendable (String) async throws -> AuthInfo?

/// Shows the user the authorization URL and returns the URL the authorization server
/// redirected to.
public typealias Authorizer = @Sendable (String) async throws -> String

extension Optional where Wrapped: Encodable {
    /// The JSON value of the settings, or `nil`.
    func json() throws -> JSONValue? {
        try map { try JSONValue(encoding: $0) }
    }
}

/// The verifier as the core's handler: `{"token"}` in, the identity or `null` out.
func verifierBox(_ verify: @escaping TokenVerifier) -> HandlerBox {
    HandlerBox { payload, _ in
        guard let info = try await verify(payload["token"]?.stringValue ?? "") else { return .null }
        return try JSONValue(encoding: info)
    }
}

/// The authorizer as the core's handler: `{"authorizationUrl"}` in, the redirect URL out.
func authorizerBox(_ authorize: @escaping Authorizer) -> HandlerBox {
    HandlerBox { payload, _ in .string(try await authorize(payload["authorizationUrl"]?.stringValue ?? "")) }
}

/// The token store as the core's handler: `{"op": "load", "resource"}` or `{"op": "save",
/// "resource", "tokens"}` in, the stored tokens or `null` out.
func tokenStoreBox(_ store: any TokenStore) -> HandlerBox {
    HandlerBox { payload, _ in
        let resource = payload["resource"]?.stringValue ?? ""
        if payload["op"] == "load" {
            return try await store.load(resource: resource).map { try JSONValue(encoding: $0) } ?? .null
        }
        try await store.save(resource: resource, tokens: (payload["tokens"] ?? [:]).decode(StoredTokens.self))
        return .null
    }
}
