//! The inspection commands against the core's calculator example over stdio, a server of this
//! process over Streamable HTTP, and servers that cannot be reached: text and `--json` output,
//! and exit codes.

use mcpweft::{
    ErrorData, RequestContext, Server,
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::{CallToolResult, Implementation, JsonObject, Tool},
};
use serde_json::json;

use crate::common::{TempFile, calculator_server, run};

/// Runs `mcpweft <command…> -- <calculator>`.
async fn against_calculator(command: &[&str]) -> crate::common::Run {
    let calculator = calculator_server().await;
    let mut args = command.to_vec();
    args.extend(["--", calculator.as_str()]);
    run(&args, None).await
}

#[tokio::test]
async fn tools_prints_each_tool_with_its_description() {
    let out = against_calculator(&["tools"]).await;
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "add     Adds two numbers.\n\
         divide  Divides a by b.\n\
         count   Counts to n, reporting progress and logging each step.\n"
    );
}

#[tokio::test]
async fn tools_json_prints_the_tools_as_the_server_lists_them() {
    let out = against_calculator(&["tools", "--json"]).await;
    out.expect_code(0);
    let json = out.json();
    let names: Vec<_> = json["tools"].as_array().expect("tools").iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, ["add", "divide", "count"]);
    assert_eq!(json["tools"][0]["description"], "Adds two numbers.");
    assert_eq!(json["tools"][0]["inputSchema"]["required"], json!(["a", "b"]));
    assert!(json["tools"][0]["outputSchema"]["properties"]["sum"].is_object(), "{json}");
}

#[tokio::test]
async fn call_prints_the_structured_content_once() {
    let out = against_calculator(&["call", "add", r#"{"a": 2, "b": 3}"#]).await;
    out.expect_code(0);
    // The text block only repeats the structured content, so it is left out.
    assert_eq!(out.stdout, "{\n  \"sum\": 5.0\n}\n");
}

#[tokio::test]
async fn call_json_prints_the_exact_result() {
    let out = against_calculator(&["call", "add", r#"{"a": 2, "b": 3}"#, "--json"]).await;
    out.expect_code(0);
    assert_eq!(
        out.json(),
        json!({ "content": [{ "type": "text", "text": "{\"sum\":5.0}" }], "structuredContent": { "sum": 5.0 } })
    );
}

#[tokio::test]
async fn call_reads_its_arguments_from_stdin() {
    let calculator = calculator_server().await;
    let out = run(&["call", "add", "-", "--", &calculator], Some(r#"{"a": 1.5, "b": 1}"#)).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "{\n  \"sum\": 2.5\n}\n");
}

#[tokio::test]
async fn a_tool_error_exits_with_1_and_its_text_on_stderr() {
    let out = against_calculator(&["call", "divide", r#"{"a": 1, "b": 0}"#]).await;
    out.expect_code(1);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("division by zero"), "{}", out.stderr);

    let out = against_calculator(&["call", "divide", r#"{"a": 1, "b": 0}"#, "--json"]).await;
    out.expect_code(1);
    let json = out.json();
    assert_eq!(json["isError"], true);
    assert_eq!(json["content"][0]["text"], "division by zero");
}

#[tokio::test]
async fn an_unknown_tool_exits_with_1_and_the_servers_error() {
    let out = against_calculator(&["call", "multiply", "{}"]).await;
    out.expect_code(1);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("mcpweft: Unknown tool: multiply"), "{}", out.stderr);
}

#[tokio::test]
async fn call_shows_progress_on_stderr_when_asked() {
    let out = against_calculator(&["call", "count", r#"{"n": 3}"#, "--progress"]).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "counted to 3\n");
    let progress: Vec<_> = out.stderr.lines().filter(|l| l.starts_with("progress: ")).collect();
    assert_eq!(progress, ["progress: 1/3", "progress: 2/3", "progress: 3/3"], "{}", out.stderr);

    // Without --progress and without a terminal, stderr stays quiet.
    let out = against_calculator(&["call", "count", r#"{"n": 2}"#]).await;
    out.expect_code(0);
    assert!(!out.stderr.contains("progress"), "{}", out.stderr);
}

#[tokio::test]
async fn arguments_that_are_not_a_json_object_are_a_usage_error() {
    for arguments in ["[1, 2]", "{not json"] {
        let out = against_calculator(&["call", "add", arguments]).await;
        out.expect_code(2);
        assert!(out.stderr.contains("mcpweft: the arguments"), "{}", out.stderr);
    }
}

#[tokio::test]
async fn resources_lists_resources_and_templates() {
    let out = against_calculator(&["resources"]).await;
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "calc://constants  constants: Known constants. (application/json)\n\
         \n\
         Resource templates:\n  calc://constants/{name}  constant\n"
    );

    let out = against_calculator(&["resources", "--json"]).await;
    out.expect_code(0);
    let json = out.json();
    assert_eq!(json["resources"][0]["uri"], "calc://constants");
    assert_eq!(json["resources"][0]["mimeType"], "application/json");
    assert_eq!(json["resourceTemplates"][0]["uriTemplate"], "calc://constants/{name}");
}

#[tokio::test]
async fn read_prints_text_contents() {
    let out = against_calculator(&["read", "calc://constants/pi"]).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "3.141592653589793\n");

    let out = against_calculator(&["read", "calc://constants", "--json"]).await;
    out.expect_code(0);
    let json = out.json();
    assert_eq!(json["contents"][0]["uri"], "calc://constants");
    assert_eq!(json["contents"][0]["mimeType"], "application/json");
    let constants: serde_json::Value =
        serde_json::from_str(json["contents"][0]["text"].as_str().expect("text contents")).expect("JSON text");
    assert_eq!(constants["e"], std::f64::consts::E);
}

#[tokio::test]
async fn reading_an_unknown_resource_exits_with_1() {
    let out = against_calculator(&["read", "calc://constants/tau"]).await;
    out.expect_code(1);
    assert!(out.stderr.contains("calc://constants/tau"), "{}", out.stderr);
}

#[tokio::test]
async fn prompts_lists_prompts_with_their_arguments() {
    let out = against_calculator(&["prompts"]).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "explain(expression)  Asks the model to explain a calculation.\n");

    let out = against_calculator(&["prompts", "--json"]).await;
    out.expect_code(0);
    let json = out.json();
    assert_eq!(json["prompts"][0]["name"], "explain");
    assert_eq!(
        json["prompts"][0]["arguments"][0],
        json!({ "name": "expression", "description": "What to compute.", "required": true })
    );
}

#[tokio::test]
async fn get_prints_the_prompts_messages() {
    let out = against_calculator(&["get", "explain", r#"{"expression": "2 + 3"}"#]).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "user: Explain step by step how to compute 2 + 3.\n");

    // Numbers are written as text, since prompt arguments are strings.
    let out = against_calculator(&["get", "explain", r#"{"expression": 7}"#, "--json"]).await;
    out.expect_code(0);
    assert_eq!(
        out.json(),
        json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "Explain step by step how to compute 7." } }] })
    );
}

#[tokio::test]
async fn inspect_prints_everything_the_server_offers() {
    let out = against_calculator(&["inspect"]).await;
    out.expect_code(0);
    let expected = format!(
        "calculator {version}\n\
         protocol: 2025-11-25\n\
         capabilities: logging, completions, prompts, resources, tools\n\
         instructions: A calculator: use add and divide for arithmetic, count to see progress.\n\
         \n\
         tools (3):\n\
         \x20 add(a, b)     Adds two numbers.\n\
         \x20 divide(a, b)  Divides a by b.\n\
         \x20 count(n)      Counts to n, reporting progress and logging each step.\n\
         \n\
         resources (1):\n\
         \x20 calc://constants  constants: Known constants. (application/json)\n\
         \n\
         resource templates (1):\n\
         \x20 calc://constants/{{name}}  constant\n\
         \n\
         prompts (1):\n\
         \x20 explain(expression)  Asks the model to explain a calculation.\n",
        version = env!("CARGO_PKG_VERSION")
    );
    assert_eq!(out.stdout, expected);

    let out = against_calculator(&["inspect", "--json"]).await;
    out.expect_code(0);
    let json = out.json();
    assert_eq!(json["protocolVersion"], "2025-11-25");
    assert_eq!(json["serverInfo"]["name"], "calculator");
    assert!(json["capabilities"]["tools"].is_object(), "{json}");
    assert!(json["instructions"].as_str().is_some_and(|i| i.starts_with("A calculator")), "{json}");
    let lengths: Vec<_> = ["tools", "resources", "resourceTemplates", "prompts"]
        .iter()
        .map(|key| json[key].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(lengths, [3, 1, 1, 1]);
}

#[tokio::test]
async fn a_server_that_exits_at_once_is_exit_3_with_its_stderr_once() {
    let out = run(&["tools", "--", "sh", "-c", "echo 'no API key given' >&2; exit 2"], None).await;
    out.expect_code(3);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("mcpweft: cannot connect to sh: the server process exited with code 2"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.matches("no API key given").count(), 1, "the server's stderr once: {}", out.stderr);
}

#[tokio::test]
async fn a_program_that_cannot_start_is_exit_3() {
    let out = run(&["inspect", "--", "/nonexistent/mcp-server"], None).await;
    out.expect_code(3);
    assert!(out.stderr.contains("could not start /nonexistent/mcp-server"), "{}", out.stderr);
}

#[tokio::test]
async fn an_http_server_that_does_not_answer_is_exit_3() {
    // A port that was free a moment ago: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = run(&["tools", "--url", &url], None).await;
    out.expect_code(3);
    assert!(out.stderr.contains(&format!("could not connect to {url}")), "{}", out.stderr);
}

#[tokio::test]
async fn usage_mistakes_exit_with_2() {
    let cases: [&[&str]; 5] = [
        &["tools"],
        &["tools", "--header", "X-A: b", "--", "true"],
        &["tools", "--server", "calc", "--", "true"],
        &["tools", "--url", "ftp://127.0.0.1/mcp"],
        &["tools", "--url", "http://127.0.0.1:9/mcp", "--bearer-env", "MCPWEFT_CLI_TEST_UNSET"],
    ];
    for args in cases {
        let out = run(args, None).await;
        out.expect_code(2);
        assert!(!out.stderr.is_empty(), "{args:?} said nothing");
    }
}

#[tokio::test]
async fn every_command_has_help() {
    for command in ["tools", "call", "resources", "read", "prompts", "get", "inspect"] {
        let out = run(&[command, "--help"], None).await;
        out.expect_code(0);
        assert!(out.stdout.contains("Examples:\n  mcpweft "), "{command}: {}", out.stdout);
        assert!(out.stdout.contains("--json"), "{command}: {}", out.stdout);
    }
}

#[tokio::test]
async fn a_configured_server_is_used_with_its_expansion_and_tool_lists() {
    let calculator = calculator_server().await;
    let config = TempFile::new(
        "config",
        &json!({ "mcpServers": {
            "calc": { "command": "${MCPWEFT_CLI_TEST_CALCULATOR}", "deniedTools": ["divide"], "disabled": true },
            "elsewhere": { "url": "http://127.0.0.1:9/mcp" },
        } })
        .to_string(),
    );
    let mut command = tokio::process::Command::new(crate::common::mcpweft());
    command
        .args(["tools", "--config", config.path(), "--server", "calc"])
        .env("MCPWEFT_CLI_TEST_CALCULATOR", &calculator)
        .kill_on_drop(true);
    let output =
        tokio::time::timeout(crate::common::RUN_LIMIT, command.output()).await.expect("in time").expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // The server is used although it is disabled, since the command names it; divide is denied.
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "add    Adds two numbers.\ncount  Counts to n, reporting progress and logging each step.\n"
    );

    let out = run(&["tools", "--config", config.path()], None).await;
    out.expect_code(2);
    assert!(out.stderr.contains("has 2 servers: name one with --server (calc, elsewhere)"), "{}", out.stderr);

    let out = run(&["tools", "--config", config.path(), "--server", "calc"], None).await;
    out.expect_code(2);
    assert!(out.stderr.contains("MCPWEFT_CLI_TEST_CALCULATOR is not set"), "{}", out.stderr);
}

/// A greeter served over Streamable HTTP by this process.
async fn greeter() -> BoundHttpServer {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
    let server = Server::builder(Implementation::new("greeter", "1.0.0"))
        .tool(
            Tool::new("greet", "Greets someone.", serde_json::from_value(schema).expect("a schema")),
            |args: JsonObject, _ctx: RequestContext| async move {
                let name = args.get("name").and_then(|v| v.as_str()).unwrap_or("world");
                Ok::<_, ErrorData>(CallToolResult::text(format!("Hello, {name}!")))
            },
        )
        .build()
        .expect("a server");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    StreamableHttpServer::bind(server, addr, HttpServerOptions::default()).await.expect("bound")
}

#[tokio::test]
async fn a_server_at_a_url_is_listed_and_called() {
    let server = greeter().await;
    let url = server.url();
    let out = run(&["tools", "--url", &url, "--header", "X-Team: blue"], None).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "greet  Greets someone.\n");

    let out = run(&["call", "greet", r#"{"name": "Ada"}"#, "--url", &url], None).await;
    out.expect_code(0);
    assert_eq!(out.stdout, "Hello, Ada!\n");

    let out = run(&["inspect", "--json", "--url", &url], None).await;
    out.expect_code(0);
    assert_eq!(out.json()["serverInfo"]["name"], "greeter");
    server.shutdown().await;
}
