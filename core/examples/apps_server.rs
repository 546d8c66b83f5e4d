//! A calculator MCP App served over Streamable HTTP: the HTML view `ui://calculator/view` and the
//! tool `add`, bound to it, which the model and the view may both call.
//!
//! `apps_server --view FILE [--http PORT]` serves the HTML in FILE as the view, at
//! `http://127.0.0.1:PORT/mcp` (PORT 8080 by default; 0 picks a free port), and prints that URL
//! on stderr. A host that declares the Apps extension renders the view and forwards its tool calls;
//! a client without Apps still gets the sum as text. `tests/apps` runs it under headless Chromium.

use mcpweft::{
    Error, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::{
        apps::{AppToolMeta, AppViewMeta, Visibility},
        *,
    },
};
use serde_json::{Value, json};

/// The URI of the calculator's view.
const VIEW: &str = "ui://calculator/view";

/// The port served when `--http` names none.
const DEFAULT_PORT: u16 = 8080;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1));
    let view =
        value_of("--view").ok_or_else(|| Error::Config("usage: apps_server --view FILE [--http PORT]".into()))?;
    let html = std::fs::read_to_string(view).map_err(|e| Error::Config(format!("cannot read the view {view}: {e}")))?;
    let port = match value_of("--http") {
        Some(port) => port.parse().map_err(|_| Error::Config(format!("--http takes a port, not {port:?}")))?,
        None => DEFAULT_PORT,
    };

    let mut view_meta = AppViewMeta::default();
    view_meta.prefers_border = Some(true);
    let input_schema = object(json!({
        "type": "object",
        "properties": {
            "a": { "type": "number", "description": "The first operand." },
            "b": { "type": "number", "description": "The second operand." }
        },
        "required": ["a", "b"]
    }));
    let mut add = Tool::new("add", "Adds two numbers and shows the sum in the calculator's view.", input_schema)
        .with_output_schema(object(json!({
            "type": "object",
            "properties": { "sum": { "type": "number", "description": "a + b" } },
            "required": ["sum"]
        })));
    AppToolMeta::new(VIEW).with_visibility([Visibility::Model, Visibility::App]).apply(&mut add);

    let server = Server::builder(Implementation::new("calculator-app", env!("CARGO_PKG_VERSION")))
        .instructions("A calculator with a view: call add, and hosts that render MCP Apps show the sum.")
        .app_view(VIEW, "Calculator", html, view_meta)
        .tool(add, |args: JsonObject, _ctx| async move {
            // The server validated the arguments against the input schema: both are numbers.
            let operand = |name: &str| args.get(name).and_then(Value::as_f64).unwrap_or_default();
            let (a, b) = (operand("a"), operand("b"));
            let mut result = CallToolResult::text(format!("{a} + {b} = {}", a + b));
            result.structured_content = Some(object(json!({ "sum": a + b })));
            Ok(result)
        })
        .build()?;

    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let bound = StreamableHttpServer::bind(server, addr, HttpServerOptions::default()).await?;
    eprintln!("serving MCP at {}", bound.url());
    bound.wait().await;
    Ok(())
}

/// The JSON object `value` is (every value this example passes is one).
fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}
