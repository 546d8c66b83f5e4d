//! A small calculator MCP server over stdio: tools, a resource, a template and a prompt.
//!
//! Run it under any MCP client, for example `cargo run --example calculator_client`, or serve
//! it over Streamable HTTP with `calculator_server --http 8080` (at `http://127.0.0.1:8080/mcp`).

use std::time::Duration;

use mcpweft::{
    ErrorData, Server,
    model::*,
    server::{Json, ResourceRequest},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Two operands.
#[derive(Deserialize, JsonSchema)]
struct Operands {
    /// The first operand.
    a: f64,
    /// The second operand.
    b: f64,
}

/// The result of an addition.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum of the operands.
    sum: f64,
}

/// The result of a division.
#[derive(Serialize, JsonSchema)]
struct Quotient {
    /// The quotient of the operands.
    quotient: f64,
}

/// How far to count.
#[derive(Deserialize, JsonSchema)]
struct Count {
    /// The number to count to.
    n: u32,
}

const CONSTANTS: &[(&str, f64)] = &[("pi", std::f64::consts::PI), ("e", std::f64::consts::E)];

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcpweft::Error> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    let server = Server::builder(Implementation::new("calculator", env!("CARGO_PKG_VERSION")))
        .instructions("A calculator: use add and divide for arithmetic, count to see progress.")
        .typed_tool("add", "Adds two numbers.", |o: Operands, _ctx| async move { Json(Sum { sum: o.a + o.b }) })
        .typed_tool("divide", "Divides a by b.", |o: Operands, _ctx| async move {
            if o.b == 0.0 { Err("division by zero") } else { Ok(Json(Quotient { quotient: o.a / o.b })) }
        })
        .typed_tool("count", "Counts to n, reporting progress and logging each step.", |c: Count, ctx| async move {
            let total = f64::from(c.n);
            for i in 1..=c.n {
                tokio::time::sleep(Duration::from_millis(10)).await;
                ctx.log(LoggingLevel::Info, Some("calculator"), format!("step {i} of {}", c.n))
                    .map_err(|e| e.to_string())?;
                ctx.report_progress(f64::from(i), Some(total), None).map_err(|e| e.to_string())?;
            }
            Ok::<_, String>(format!("counted to {}", c.n))
        })
        .resource(
            Resource::new("calc://constants", "constants")
                .with_mime_type("application/json")
                .with_description("Known constants."),
            |req: ResourceRequest, _ctx| async move {
                let map: serde_json::Map<_, _> =
                    CONSTANTS.iter().map(|(k, v)| ((*k).to_owned(), (*v).into())).collect();
                let text = serde_json::Value::Object(map).to_string();
                let contents = vec![ResourceContents::text(req.uri, text).with_mime_type("application/json")];
                Ok(ReadResourceResult::new(contents))
            },
        )
        .resource_template(
            ResourceTemplate::new("calc://constants/{name}", "constant"),
            |req: ResourceRequest, _ctx| async move {
                let name = req.variables.get("name").map(String::as_str).unwrap_or_default();
                match CONSTANTS.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, v.to_string())])),
                    None => Err(ErrorData::resource_not_found(&req.uri)),
                }
            },
        )
        .prompt(
            Prompt::new("explain")
                .with_description("Asks the model to explain a calculation.")
                .with_argument(PromptArgument::new("expression", true).with_description("What to compute.")),
            |args: std::collections::HashMap<String, String>, _ctx| async move {
                let text = format!("Explain step by step how to compute {}.", args["expression"]);
                Ok(GetPromptResult::new(vec![PromptMessage::user_text(text)]))
            },
        )
        .completion(|params: CompleteRequestParams, _ctx| async move {
            let names = CONSTANTS.iter().map(|(k, _)| (*k).to_owned());
            Ok(CompleteResult::new(names.filter(|n| n.starts_with(&params.argument.value)).collect()))
        })
        .build()?;
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--http") {
        Some(i) => {
            let port: u16 = args.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(8080);
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            let options = mcpweft::http::HttpServerOptions::default();
            let bound = mcpweft::http::StreamableHttpServer::bind(server, addr, options).await?;
            eprintln!("serving MCP at {}", bound.url());
            bound.wait().await;
            Ok(())
        }
        None => server.serve_stdio().await,
    }
}
