import Foundation
import McpWeft
import XCTest

/// A free loopback port, so that a server's resource URL can name it before it binds.
private func freePort() -> Int {
    let (fd, port) = listeningSocket()
    _ = closeSocket(fd)
    return port
}

/// The server of the tests: `whoami` answers the caller's subject and scopes.
private func protectedServer() throws -> Server {
    let server = try Server(name: "protected", version: "1")
    try server.addTool("whoami") { (_: JSONValue, ctx: Context) -> JSONValue in
        let auth = ctx.auth
        return .string("\(auth?.subject ?? "nobody") \((auth?.scopes ?? []).joined(separator: " "))")
    }
    return server
}

/// The token requests a test's authorization server received, in order.
private final class Forms: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []

    func add(_ form: String) {
        lock.withLock { received.append(form) }
    }

    var items: [String] { lock.withLock { received } }
}

/// A token store that keeps what it is given in memory.
private actor MemoryStore: TokenStore {
    var tokens: [String: StoredTokens] = [:]

    func load(resource: String) async throws -> StoredTokens? { tokens[resource] }

    func save(resource: String, tokens: StoredTokens) async throws { self.tokens[resource] = tokens }
}

/// A small authorization server: metadata, dynamic registration, and a token endpoint that
/// gives out `token` for any code.
private func tinyIssuer(token: String) -> TinyHTTPServer {
    TinyHTTPServer { port, method, path, _ in
        let base = "http://127.0.0.1:\(port)"
        switch (method, path) {
        case ("GET", "/.well-known/oauth-authorization-server"):
            let metadata: JSONValue = [
                "issuer": .string(base), "authorization_endpoint": .string("\(base)/authorize"),
                "token_endpoint": .string("\(base)/token"), "registration_endpoint": .string("\(base)/register"),
                "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            ]
            return (200, metadata.jsonText, [:])
        case ("POST", "/register"):
            return (201, #"{"client_id":"registered","client_secret":"secret"}"#, [:])
        case ("POST", "/token"):
            let answer: JSONValue = ["access_token": .string(token), "token_type": "Bearer", "expires_in": 3600]
            return (200, answer.jsonText, [:])
        default:
            return (404, "{}", [:])
        }
    }
}

/// An authorizer whose user agrees at once: it records the authorization URL in `opened` and
/// returns the redirect with a code and the URL's state.
private func approving(recordedIn opened: Recorder<String>) -> Authorizer {
    { url in
        await opened.add(url)
        let query = URLComponents(string: url)?.queryItems ?? []
        let redirect = query.first { $0.name == "redirect_uri" }?.value ?? ""
        let state = query.first { $0.name == "state" }?.value ?? ""
        return "\(redirect)?code=the-code&state=\(state)"
    }
}

/// Authorization: a server protected by a verifier, the identity in the handler's context, and
/// a client that logs in through its authorizer against a small authorization server.
final class AuthTests: XCTestCase {
    func testAVerifierProtectsTheServerAndTheHandlerSeesTheIdentity() async throws {
        let auth = ServerAuth(
            resource: "http://127.0.0.1/mcp", authorizationServers: ["http://127.0.0.1:1"], requiredScopes: ["mcp:read"])
        let http = try await protectedServer().serveHTTP(port: 0, auth: auth) { token in
            if token == "good" { return AuthInfo(subject: "alice", clientId: "app", scopes: ["mcp:read"]) }
            if token == "refused" { return nil }
            throw MCPError(kind: .handler, message: "unknown token")
        }
        let client = try await Client.http(url: http.url, headers: ["Authorization": "Bearer good"])
        let answer = try await client.callTool(name: "whoami")
        XCTAssertEqual(answer.text, "alice mcp:read")
        await client.close()
        let refusals = [
            "": "a bearer token is required", "refused": "the verifier refused the token",
            "bogus": "invalid_token: unknown token",
        ]
        for (token, reason) in refusals {
            let headers = token.isEmpty ? [:] : ["Authorization": "Bearer \(token)"]
            do {
                _ = try await Client.http(url: http.url, headers: headers)
                XCTFail("the token \(token) was accepted")
            } catch let error as MCPError {
                XCTAssertTrue(error.message.contains(reason), error.message)
            }
        }
        try await http.close()
    }

    func testABearerTokenGoesWithEveryRequest() async throws {
        let auth = ServerAuth(resource: "http://127.0.0.1/mcp", authorizationServers: ["http://127.0.0.1:1"])
        let http = try await protectedServer().serveHTTP(port: 0, auth: auth) { token in
            token == "static-token" ? AuthInfo(subject: "robot", scopes: ["mcp:read"]) : nil
        }
        let client = try await Client.http(url: http.url, bearerToken: "static-token")
        let answer = try await client.callTool(name: "whoami")
        XCTAssertEqual(answer.text, "robot mcp:read")
        await client.close()
        do {
            _ = try await Client.http(url: http.url, bearerToken: "other-token")
            XCTFail("a refused bearer token connected")
        } catch let error as MCPError {
            XCTAssertTrue(error.message.contains("the verifier refused the token"), error.message)
        }
        try await http.close()
    }

    /// Enterprise-managed authorization and workload identity federation: the client trades
    /// the credentials in `ClientAuth` for an access token, with no authorizer.
    func testMachineCredentialsLogInWithoutAnAuthorizer() async throws {
        let forms = Forms()
        let issuer = TinyHTTPServer { port, method, path, body in
            let base = "http://127.0.0.1:\(port)"
            let record = { forms.add("\(path) \(body)") }
            switch (method, path) {
            case ("GET", "/.well-known/oauth-authorization-server"):
                let metadata: JSONValue = [
                    "issuer": .string(base), "authorization_endpoint": .string("\(base)/authorize"),
                    "token_endpoint": .string("\(base)/token"), "response_types_supported": ["code"],
                    "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                ]
                return (200, metadata.jsonText, [:])
            case ("POST", "/idp/token") where body.contains("subject_token=employee-id-token"):
                record()
                let grant: JSONValue = [
                    "access_token": "id-jag-grant", "token_type": "N_A",
                    "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                ]
                return (200, grant.jsonText, [:])
            case ("POST", "/token") where body.contains("assertion=id-jag-grant"):
                record()
                return (200, #"{"access_token":"enterprise-token","token_type":"Bearer","expires_in":3600}"#, [:])
            case ("POST", "/token") where body.contains("assertion=workload-jwt"):
                record()
                return (200, #"{"access_token":"workload-token","token_type":"Bearer","expires_in":3600}"#, [:])
            case ("POST", _):
                return (400, #"{"error":"invalid_grant"}"#, [:])
            default:
                return (404, "{}", [:])
            }
        }
        defer { issuer.stop() }
        let base = "http://127.0.0.1:\(issuer.port)"
        let port = freePort()
        let auth = ServerAuth(resource: "http://127.0.0.1:\(port)/mcp", authorizationServers: [base])
        let http = try await protectedServer().serveHTTP(port: port, auth: auth) { token in
            switch token {
            case "enterprise-token": return AuthInfo(subject: "employee")
            case "workload-token": return AuthInfo(subject: "workload")
            default: return nil
            }
        }
        let logins: [(ClientAuth, String)] = [
            (ClientAuth(identityAssertion: IdentityAssertion(
                clientId: "mcp-client", idpTokenEndpoint: "\(base)/idp/token", idToken: "employee-id-token",
                clientSecret: "mcp-secret", idpClientId: "idp-client")), "employee "),
            (ClientAuth(workloadIdentity: WorkloadIdentity(assertion: "workload-jwt", clientId: "svc")), "workload "),
        ]
        for (login, who) in logins {
            let client = try await Client.http(url: http.url, auth: login)
            let answer = try await client.callTool(name: "whoami")
            XCTAssertEqual(answer.text, who)
            await client.close()
        }
        let requests = forms.items
        XCTAssertEqual(requests.count, 3, "\(requests)")
        guard requests.count == 3 else { return }
        XCTAssertTrue(requests[0].hasPrefix("/idp/token ") && requests[0].contains("client_id=idp-client"), requests[0])
        XCTAssertTrue(requests[1].hasPrefix("/token ") && requests[1].contains("jwt-bearer"), requests[1])
        XCTAssertTrue(requests[2].hasPrefix("/token ") && requests[2].contains("client_id=svc"), requests[2])
        try await http.close()
    }

    func testALoginWithoutAnAuthorizerIsAClearError() async throws {
        do {
            _ = try await Client.http(
                url: "http://127.0.0.1:\(freePort())/mcp", auth: ClientAuth(redirectUri: "http://127.0.0.1:1/callback"))
            XCTFail("connected without an authorizer")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .invalidInput)
            XCTAssertTrue(error.message.contains("authorizer"), error.message)
        }
    }

    func testEverySettingReachesTheCore() async throws {
        let port = freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let jwt = JWTSettings(
            issuer: "http://127.0.0.1:1/issuer", jwks: ["keys": []], audience: resource,
            requiredScopes: ["mcp:read"], leewayMs: 1000, refreshIntervalMs: 1000)
        let auth = ServerAuth(
            resource: resource, authorizationServers: ["http://127.0.0.1:1"], requiredScopes: ["mcp:read"],
            scopesSupported: ["mcp:read"], methodScopes: ["tools/list": ["mcp:read"]],
            toolScopes: ["whoami": ["mcp:whoami"]], resourceName: "settings", leewayMs: 1000, jwt: jwt)
        let http = try await protectedServer().serveHTTP(port: port, auth: auth)
        let login = ClientAuth(
            redirectUri: "http://127.0.0.1:1/callback", clientName: "settings", clientId: "pre-registered",
            clientSecret: "secret", clientMetadataUrl: "https://client.example.com/metadata.json", scopes: ["mcp:read"],
            maxStepUps: 1, clientCredentials: ClientCredentials(clientId: "machine", clientSecret: "machine-secret"))
        do {
            _ = try await Client.http(url: http.url, auth: login)
            XCTFail("a machine client logged in without an authorization server")
        } catch let error as MCPError {
            XCTAssertTrue(error.message.contains("the token request failed"), error.message)
        }
        try await http.close()
    }

    func testAClientLogsInThroughItsAuthorizer() async throws {
        let issuer = tinyIssuer(token: "swift-token")
        defer { issuer.stop() }
        let base = "http://127.0.0.1:\(issuer.port)"
        let port = freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ServerAuth(resource: resource, authorizationServers: [base], requiredScopes: ["mcp:read"])
        let http = try await protectedServer().serveHTTP(port: port, auth: auth) { token in
            token == "swift-token" ? AuthInfo(subject: "user-1", scopes: ["mcp:read"]) : nil
        }
        let opened = Recorder<String>()
        let store = MemoryStore()
        let handlers = ClientHandlers(
            authorizer: approving(recordedIn: opened), tokenStore: store)
        let login = ClientAuth(redirectUri: "http://127.0.0.1:1/callback", clientName: "swift-test")
        let client = try await Client.http(url: http.url, auth: login, handlers: handlers)
        let answer = try await client.callTool(name: "whoami")
        XCTAssertEqual(answer.text, "user-1 mcp:read")
        await client.close()
        let urls = await opened.items
        XCTAssertEqual(urls.count, 1)
        XCTAssertTrue(urls.first?.hasPrefix("\(base)/authorize?") ?? false, urls.first ?? "")
        let saved = await store.tokens[resource]
        XCTAssertEqual(saved?.accessToken, "swift-token")
        try await http.close()
    }

    func testAHostLogsInToItsOAuthServersThroughItsAuthorizer() async throws {
        let issuer = tinyIssuer(token: "host-token")
        defer { issuer.stop() }
        let port = freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ServerAuth(
            resource: resource, authorizationServers: ["http://127.0.0.1:\(issuer.port)"], requiredScopes: ["mcp:read"])
        let http = try await protectedServer().serveHTTP(port: port, auth: auth) { token in
            token == "host-token" ? AuthInfo(subject: "user-1", scopes: ["mcp:read"]) : nil
        }
        let opened = Recorder<String>()
        let store = MemoryStore()
        let handlers = HostHandlers(
            authorizer: approving(recordedIn: opened), tokenStore: store)
        let config: JSONValue = [
            "mcpServers": ["notes": ["type": "http", "url": .string(resource), "oauth": ["scopes": "mcp:read"]]]
        ]
        let options: JSONObject = ["redirectUri": "http://127.0.0.1:1/callback"]
        let host = try await MCPHost.connect(config, options: options, handlers: handlers)
        XCTAssertEqual(try host.state("notes"), .ready)
        let answer = try await host.callTool("notes__whoami")
        XCTAssertEqual(answer.text, "user-1 mcp:read")
        await host.close()
        let urls = await opened.items
        XCTAssertEqual(urls.count, 1)
        let saved = await store.tokens[resource]
        XCTAssertEqual(saved?.accessToken, "host-token")

        // Without the redirect URI, a host with an authorizer is refused before it connects.
        do {
            _ = try await MCPHost.connect(config, handlers: handlers)
            XCTFail("a host with an authorizer but no redirectUri connected")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .invalidInput)
        }
        try await http.close()
    }
}
