//! The client side: what `conformance-client` does in each client scenario of the suite.
//!
//! The scenario logic only needs a [`Transport`], so it runs over Streamable HTTP in the
//! binary and over an in-memory transport in this crate's tests.

use std::{fmt, str::FromStr};

use async_trait::async_trait;
use mcpkit::{
    Client, ClientHandler, ClientOptions, ErrorData,
    model::{
        CallToolResult, ClientCapabilities, ElicitContentValue, ElicitRequestParams, ElicitResult, IndexMap, JsonObject,
    },
    session::IncomingRequest,
    transport::Transport,
};
use serde_json::{Value, json};

/// The environment variable in which the suite names the scenario.
pub const SCENARIO_VARIABLE: &str = "MCP_CONFORMANCE_SCENARIO";

/// A client scenario this client knows how to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// `initialize`: connect, initialize and list the tools.
    Initialize,
    /// `tools_call`: call `add_numbers` with two numbers.
    ToolsCall,
    /// `elicitation-sep1034-client-defaults`: answer an elicitation with every default filled in.
    ElicitationDefaults,
    /// `sse-retry`: call `test_reconnection`, whose SSE stream the server closes before the result.
    SseRetry,
}

impl Scenario {
    /// Every scenario, in the order the harness runs them.
    pub const ALL: [Scenario; 4] =
        [Scenario::Initialize, Scenario::ToolsCall, Scenario::ElicitationDefaults, Scenario::SseRetry];

    /// Returns the suite's name of the scenario.
    pub fn name(self) -> &'static str {
        match self {
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
        Scenario::ALL.into_iter().find(|scenario| scenario.name() == s).ok_or_else(|| {
            let known: Vec<&str> = Scenario::ALL.iter().map(|s| s.name()).collect();
            format!("unsupported scenario `{s}` (supported: {})", known.join(", "))
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

/// The options the client connects with: its name and version, and form-mode elicitation.
pub fn options() -> ClientOptions {
    ClientOptions::new("mcpkit-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_capabilities(ClientCapabilities::default().with_elicitation(false))
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
    }
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
