//! The client side: what `conformance-client` does in each client scenario of the suite.
//!
//! The scenario logic only needs a [`Transport`], so it runs over Streamable HTTP in the
//! binary and over an in-memory transport in this crate's tests.

use std::{fmt, str::FromStr, sync::Arc};

use async_trait::async_trait;
use mcpweft::{
    Client, ClientHandler, ClientOptions, Error, ErrorData,
    auth::{Authorizer, ClientCredentials, OAuthClient, OAuthClientOptions},
    model::{
        CallToolResult, ClientCapabilities, ElicitContentValue, ElicitRequestParams, ElicitResult, IndexMap, JsonObject,
    },
    session::IncomingRequest,
    transport::Transport,
};
use serde_json::{Value, json};

/// The environment variable in which the suite names the scenario.
pub const SCENARIO_VARIABLE: &str = "MCP_CONFORMANCE_SCENARIO";

/// The environment variable in which the suite passes a scenario's context, as JSON.
pub const CONTEXT_VARIABLE: &str = "MCP_CONFORMANCE_CONTEXT";

/// The client id of this client's ID metadata document, the one the suite expects.
pub const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// A client scenario this client knows how to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// `initialize`: connect, initialize and list the tools.
    Initialize,
    /// `tools_call`: call `add_numbers` with two numbers.
    ToolsCall,
    /// `elicitation-sep1034-client-defaults`: answer an elicitation with every default filled in.
    ElicitationDefaults,
    /// `sse-retry`: call `test_reconnection`, whose SSE stream the server closes before the result.
    SseRetry,
    /// `auth/...`: log in to the protected mock server as it asks, then list and call its tools.
    Auth(String),
    /// `json-schema-2020-12-preservation`: send the input schema of `json_schema_2020_12_tool`,
    /// as listed, back through `json_schema_echo`.
    SchemaEcho,
    /// The revision 2026-07-28 scenarios that watch an ordinary exchange (see
    /// [`Scenario::EXCHANGES`]): list the tools and call each, all at once, answering the rounds
    /// of input they ask for.
    Exchange(String),
    /// `sep-2640-client-...`: the skills extension. `sep-2640-client-no-prefetch` lists the
    /// skills and uses none; the others load the first skill and read its supporting files, as
    /// a host does when the skill is used, which refuses a file that fails verification.
    Skills(String),
}

impl Scenario {
    /// Every scenario, in the order the harness runs them.
    pub const ALL: [Scenario; 4] =
        [Scenario::Initialize, Scenario::ToolsCall, Scenario::ElicitationDefaults, Scenario::SseRetry];

    /// The scenarios run as [`Scenario::Exchange`].
    pub const EXCHANGES: [&str; 6] = [
        "request-metadata",
        "http-custom-headers",
        "sep-2322-client-request-state",
        "http-standard-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
    ];

    /// Returns the suite's name of the scenario.
    pub fn name(&self) -> &str {
        match self {
            Scenario::Auth(name) | Scenario::Exchange(name) | Scenario::Skills(name) => name,
            Scenario::SchemaEcho => "json-schema-2020-12-preservation",
            Scenario::Initialize => "initialize",
            Scenario::ToolsCall => "tools_call",
            Scenario::ElicitationDefaults => "elicitation-sep1034-client-defaults",
            Scenario::SseRetry => "sse-retry",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.starts_with("auth/") {
            return Ok(Scenario::Auth(s.to_owned()));
        }
        if s.starts_with("sep-2640-client-") {
            return Ok(Scenario::Skills(s.to_owned()));
        }
        if Scenario::EXCHANGES.contains(&s) {
            return Ok(Scenario::Exchange(s.to_owned()));
        }
        if s == Scenario::SchemaEcho.name() {
            return Ok(Scenario::SchemaEcho);
        }
        Scenario::ALL.into_iter().find(|scenario| scenario.name() == s).ok_or_else(|| {
            let known: Vec<&str> = Scenario::ALL.iter().map(|s| s.name()).collect();
            let exchanges = Scenario::EXCHANGES.join(", ");
            format!(
                "unsupported scenario `{s}` (supported: {}, {exchanges}, auth/..., sep-2640-client-...)",
                known.join(", ")
            )
        })
    }
}

/// Converts a schema `default` into an elicitation answer value, if it has a form that one
/// can take (string, number, boolean or array of strings).
fn content_value(default: &Value) -> Option<ElicitContentValue> {
    match default {
        Value::String(s) => Some(ElicitContentValue::String(s.clone())),
        Value::Number(n) => Some(ElicitContentValue::Number(n.clone())),
        Value::Bool(b) => Some(ElicitContentValue::Boolean(*b)),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(ElicitContentValue::StringArray),
        _ => None,
    }
}

/// Returns the answer a user who accepts every proposed value gives to a form: each property
/// of `requested_schema` that has a `default`, set to that default.
pub fn defaults_of(requested_schema: &JsonObject) -> IndexMap<String, ElicitContentValue> {
    let Some(Value::Object(properties)) = requested_schema.get("properties") else { return IndexMap::new() };
    properties
        .iter()
        .filter_map(|(name, schema)| Some((name.clone(), content_value(schema.get("default")?)?)))
        .collect()
}

/// Answers form elicitations by accepting them with the schema's defaults filled in, and
/// refuses URL-mode ones.
#[derive(Clone, Copy, Debug, Default)]
pub struct AcceptDefaults;

#[async_trait]
impl ClientHandler for AcceptDefaults {
    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        match params {
            ElicitRequestParams::Form(form) => Ok(ElicitResult::accept(defaults_of(&form.requested_schema))),
            ElicitRequestParams::Url(_) => Ok(ElicitResult::decline()),
        }
    }
}

/// The options the client connects with: its name and version, form-mode elicitation, the
/// skills extension, and revision 2026-07-28 first (falling back to `initialize` with an older
/// server).
pub fn options() -> ClientOptions {
    ClientOptions::new("mcpweft-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_capabilities(
            ClientCapabilities::default()
                .with_elicitation(false)
                .with_extension(mcpweft::skills::SKILLS_EXTENSION, JsonObject::new()),
        )
        .with_protocol_version(mcpweft::model::STATELESS_PROTOCOL_VERSION)
}

fn text_of(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).collect();
    texts.join(" ")
}

/// Lists the tools and fails unless `name` is among them.
async fn require_tool(client: &Client, name: &str) -> Result<(), String> {
    let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
    if tools.iter().any(|t| t.name == name) {
        Ok(())
    } else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        Err(format!("the server has no tool `{name}` (it lists: {})", names.join(", ")))
    }
}

/// Calls a tool and fails when the call fails or the tool reports an error.
async fn call(client: &Client, name: &str, arguments: Value) -> Result<String, String> {
    let result = client.call_tool(name, arguments).await.map_err(|e| format!("tools/call {name} failed: {e}"))?;
    let text = text_of(&result);
    if result.is_error() {
        return Err(format!("tool {name} reported an error: {text}"));
    }
    Ok(format!("{name} answered: {text}"))
}

async fn steps(scenario: Scenario, client: &Client) -> Result<String, String> {
    match scenario {
        Scenario::Initialize => {
            let server = client.server();
            let mut summary = format!(
                "initialized with {} {} at protocol {}",
                server.server_info.name,
                server.server_info.version,
                client.protocol_version()
            );
            // The suite's mock server declares no capabilities; only list what it offers.
            if server.capabilities.tools.is_some() {
                let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
                summary.push_str(&format!("; it lists {} tool(s)", tools.len()));
            }
            Ok(summary)
        }
        Scenario::ToolsCall => {
            require_tool(client, "add_numbers").await?;
            call(client, "add_numbers", json!({ "a": 5, "b": 3 })).await
        }
        Scenario::ElicitationDefaults => {
            require_tool(client, "test_client_elicitation_defaults").await?;
            call(client, "test_client_elicitation_defaults", json!({})).await
        }
        Scenario::SseRetry => {
            require_tool(client, "test_reconnection").await?;
            call(client, "test_reconnection", json!({})).await
        }
        Scenario::SchemaEcho => {
            let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            let schema = Value::Object(focal.input_schema.clone());
            call(client, "json_schema_echo", json!({ "schema": schema })).await
        }
        Scenario::Exchange(_) => {
            if client.server().capabilities.tools.is_none() {
                return Ok(format!("discovered a server without tools at protocol {}", client.protocol_version()));
            }
            let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
            // The calls the scenario's context names (`toolCalls`), else every tool without arguments.
            let context: Value =
                std::env::var(CONTEXT_VARIABLE).ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default();
            let named: Vec<(String, Value)> = context["toolCalls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| Some((c["name"].as_str()?.to_owned(), c["arguments"].clone())))
                .collect();
            let planned =
                if named.is_empty() { tools.iter().map(|t| (t.name.clone(), json!({}))).collect() } else { named };
            let calls = planned.into_iter().map(|(name, arguments)| async move {
                match client.call_tool(&name, arguments).await {
                    Ok(result) => format!("{name}: {}", text_of(&result)),
                    Err(e) => format!("{name}: {e}"),
                }
            });
            let answers = futures::future::join_all(calls).await;
            Ok(format!("at protocol {}: {}", client.protocol_version(), answers.join("; ")))
        }
        Scenario::Skills(name) => {
            let skills = client.list_skills().await.map_err(|e| format!("skills/list failed: {e}"))?;
            let mut summary = format!("the server lists {} skill(s)", skills.len());
            let Some(entry) = skills.first() else { return Ok(summary) };
            if name == "sep-2640-client-no-prefetch" {
                return Ok(summary);
            }
            let skill = match client.load_skill(entry).await {
                Ok(skill) => skill,
                Err(e) => return Ok(format!("{summary}; refused {}: {e}", entry.uri)),
            };
            summary.push_str(&format!("; loaded {}", skill.name().unwrap_or(&entry.uri)));
            for file in entry.resources.iter().filter(|f| f.uri != entry.uri) {
                match client.read_skill_file(entry, &file.uri).await {
                    Ok(bytes) => summary.push_str(&format!("; read {} ({} bytes)", file.uri, bytes.len())),
                    Err(e) => return Ok(format!("{summary}; refused {}: {e}", file.uri)),
                }
            }
            Ok(summary)
        }
        Scenario::Auth(_) => {
            let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
            let mut summary = format!("logged in; the server lists {} tool(s)", tools.len());
            if let Some(tool) = tools.iter().find(|t| t.name == "test-tool").or(tools.first()) {
                summary.push_str("; ");
                summary.push_str(&call(client, &tool.name, json!({})).await?);
            }
            Ok(summary)
        }
    }
}

/// Approves every authorization at once, as the suite's authorization server does: follows
/// the authorization URL without its redirect and returns where it points.
#[derive(Debug)]
pub struct AutoApprove(reqwest::Client);

impl AutoApprove {
    /// Creates the approver.
    pub fn new() -> Result<Self, String> {
        mcpweft::install_crypto_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("no HTTP client: {e}"))?;
        Ok(AutoApprove(http))
    }
}

#[async_trait]
impl Authorizer for AutoApprove {
    async fn authorize(&self, authorization_url: String) -> Result<String, Error> {
        let response = self.0.get(&authorization_url).send().await.map_err(|e| Error::Auth(e.to_string()))?;
        let location = response.headers().get("location").and_then(|l| l.to_str().ok());
        location.map(str::to_owned).ok_or_else(|| {
            Error::Auth(format!("the authorization endpoint answered {} without a redirect", response.status()))
        })
    }
}

/// Builds the OAuth client of an `auth/...` scenario for the server at `url`, from the
/// scenario's context: the user's ID token for enterprise-managed authorization, client
/// credentials for machine clients, a pre-registered client when
/// the context names one, and otherwise a user who approves at once, registering with this
/// client's ID metadata document or dynamically.
pub fn oauth_client(url: &str, context: &Value) -> Result<OAuthClient, String> {
    let text = |name: &str| context.get(name).and_then(Value::as_str).map(str::to_owned);
    let scenario = text("name").unwrap_or_default();
    let options = if scenario.starts_with("auth/cross-app-access")
        || scenario == "auth/enterprise-managed-authorization"
    {
        OAuthClientOptions::machine(ClientCredentials::IdentityAssertion {
            client_id: text("client_id").ok_or("the context has no client_id")?,
            client_secret: text("client_secret"),
            idp_token_endpoint: text("idp_token_endpoint").ok_or("the context has no idp_token_endpoint")?,
            id_token: text("idp_id_token").ok_or("the context has no idp_id_token")?,
            idp_client_id: text("idp_client_id"),
        })
    } else if scenario == "auth/wif-jwt-bearer" {
        OAuthClientOptions::machine(ClientCredentials::WorkloadIdentity {
            client_id: text("client_id"),
            assertion: text("valid_jwt").ok_or("the context has no valid_jwt")?,
        })
    } else if scenario.starts_with("auth/client-credentials") {
        let client_id = text("client_id").ok_or("the context has no client_id")?;
        let credentials = match (text("private_key_pem"), text("client_secret")) {
            (Some(private_key_pem), _) => ClientCredentials::PrivateKeyJwt {
                client_id,
                private_key_pem,
                algorithm: text("signing_algorithm").unwrap_or_else(|| "ES256".to_owned()),
            },
            (None, Some(client_secret)) => ClientCredentials::Secret { client_id, client_secret },
            (None, None) => return Err("the context has neither a private key nor a secret".to_owned()),
        };
        OAuthClientOptions::machine(credentials)
    } else {
        let approve = Arc::new(AutoApprove::new()?);
        let options = OAuthClientOptions::new("mcpweft-conformance-client", "http://localhost:3000/callback", approve)
            .with_client_metadata_url(CLIENT_METADATA_URL);
        match text("client_id") {
            Some(id) => options.with_client(id, text("client_secret")),
            None => options,
        }
    };
    OAuthClient::new(url, options).map_err(|e| format!("bad server URL {url}: {e}"))
}

/// Runs `scenario` over `transport`: connects and initializes, does the scenario's job and
/// closes the connection. Returns a summary of what happened, or what went wrong.
pub async fn run(scenario: Scenario, transport: impl Transport) -> Result<String, String> {
    let client = Client::connect_with_handler(transport, options(), AcceptDefaults)
        .await
        .map_err(|e| format!("connecting failed: {e}"))?;
    let outcome = steps(scenario, &client).await;
    client.close().await;
    outcome
}
