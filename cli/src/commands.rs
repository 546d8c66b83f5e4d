//! The inspection commands: `tools`, `call`, `resources`, `read`, `prompts`, `get` and
//! `inspect`.
//!
//! Lists come from the core's host, which gathered every page when it connected and applies
//! the configuration's allow and deny lists; calls, reads and prompts are requests of the
//! server's client whose raw result `--json` prints as it came.

use std::{
    io::IsTerminal as _,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use mcpweft::{
    RequestOptions,
    model::{CallToolResult, GetPromptResult, ProgressNotificationParams, ReadResourceResult, methods},
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::io::AsyncReadExt as _;

use crate::{
    args::{CallArgs, Command, GetArgs, ListArgs, ReadArgs},
    failure::Failure,
    gateway, listen, login, proxy, render,
    target::Connection,
};

/// Runs one command.
pub(crate) async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Tools(args) => tools(args).await,
        Command::Call(args) => call(args).await,
        Command::Resources(args) => resources(args).await,
        Command::Read(args) => read(args).await,
        Command::Prompts(args) => prompts(args).await,
        Command::Get(args) => get(args).await,
        Command::Inspect(args) => inspect(args).await,
        Command::Proxy(args) if args.listen.is_some() => listen::run(args).await,
        Command::Proxy(args) if args.cluster.redis.is_some() => Err(Failure::usage("--redis needs --listen")),
        Command::Proxy(args) => proxy::run(args).await,
        Command::Gateway(args) => gateway::run(args).await,
        Command::Logout(args) => login::logout(&args),
    }
}

/// Prints a JSON value, indented, on stdout.
fn print_json(value: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::failed(format!("cannot write JSON: {e}")))?;
    println!("{text}");
    Ok(())
}

/// Reads a result as the model's type, for the text output.
fn typed<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, Failure> {
    serde_json::from_value(value).map_err(|e| Failure::failed(format!("the server sent an invalid {what} result: {e}")))
}

/// Reads the JSON object of a command's arguments: none, `-` for stdin, or the text given.
async fn object_argument(text: Option<&str>) -> Result<Map<String, Value>, Failure> {
    let text = match text {
        None => return Ok(Map::new()),
        Some("-") => {
            let mut input = String::new();
            tokio::io::stdin()
                .read_to_string(&mut input)
                .await
                .map_err(|e| Failure::usage(format!("cannot read the arguments from stdin: {e}")))?;
            input
        }
        Some(text) => text.to_owned(),
    };
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(Failure::usage(format!("the arguments must be a JSON object, not {other}"))),
        Err(e) => Err(Failure::usage(format!("the arguments are not valid JSON: {e}"))),
    }
}

async fn tools(args: ListArgs) -> Result<(), Failure> {
    let connection = Connection::open(&args.target).await?;
    let tools: Vec<_> = connection.host().tools().into_iter().map(|t| t.tool).collect();
    connection.close().await;
    if args.output.json {
        print_json(&json!({ "tools": tools }))
    } else {
        print!("{}", render::tools(&tools));
        Ok(())
    }
}

async fn resources(args: ListArgs) -> Result<(), Failure> {
    let connection = Connection::open(&args.target).await?;
    let resources: Vec<_> = connection.host().resources().into_iter().map(|r| r.resource).collect();
    let templates: Vec<_> = connection.host().resource_templates().into_iter().map(|t| t.template).collect();
    connection.close().await;
    if args.output.json {
        print_json(&json!({ "resources": resources, "resourceTemplates": templates }))
    } else {
        print!("{}", render::resources(&resources, &templates));
        Ok(())
    }
}

async fn prompts(args: ListArgs) -> Result<(), Failure> {
    let connection = Connection::open(&args.target).await?;
    let prompts: Vec<_> = connection.host().prompts().into_iter().map(|p| p.prompt).collect();
    connection.close().await;
    if args.output.json {
        print_json(&json!({ "prompts": prompts }))
    } else {
        print!("{}", render::prompts(&prompts));
        Ok(())
    }
}

async fn inspect(args: ListArgs) -> Result<(), Failure> {
    let connection = Connection::open(&args.target).await?;
    let host = connection.host();
    let server = connection.client().server().clone();
    let tools: Vec<_> = host.tools().into_iter().map(|t| t.tool).collect();
    let resources: Vec<_> = host.resources().into_iter().map(|r| r.resource).collect();
    let templates: Vec<_> = host.resource_templates().into_iter().map(|t| t.template).collect();
    let prompts: Vec<_> = host.prompts().into_iter().map(|p| p.prompt).collect();
    connection.close().await;
    if args.output.json {
        let mut all = match serde_json::to_value(&server) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        all.insert("tools".to_owned(), json!(tools));
        all.insert("resources".to_owned(), json!(resources));
        all.insert("resourceTemplates".to_owned(), json!(templates));
        all.insert("prompts".to_owned(), json!(prompts));
        print_json(&all)
    } else {
        print!("{}", render::inspect(&server, &tools, &resources, &templates, &prompts));
        Ok(())
    }
}

async fn call(args: CallArgs) -> Result<(), Failure> {
    let arguments = object_argument(args.arguments.as_deref()).await?;
    let connection = Connection::open(&args.target).await?;
    let progress = Progress::new(args.progress || std::io::stderr().is_terminal());
    let result = call_tool(&connection, &args.name, arguments, progress.clone()).await;
    progress.finish();
    connection.close().await;
    let value = result?;
    let is_error = value.get("isError").and_then(Value::as_bool) == Some(true);
    if args.output.json {
        print_json(&value)?;
    } else {
        let result: CallToolResult = typed(value, "tools/call")?;
        let text = render::call_result(&result);
        if is_error {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    if is_error { Err(Failure::tool_error()) } else { Ok(()) }
}

/// Calls the tool `name`, unless the configuration's allow and deny lists leave it out; the
/// time-out restarts with each progress notification, within the server's `maxTotalTimeoutMs`.
async fn call_tool(
    connection: &Connection,
    name: &str,
    arguments: Map<String, Value>,
    progress: Arc<Progress>,
) -> Result<Value, Failure> {
    let mut options =
        RequestOptions::new().with_progress(move |params| progress.show(&params)).with_reset_timeout_on_progress(true);
    if let Some(config) = connection.config() {
        if !config.offers_tool(name) {
            return Err(Failure::failed(format!(
                "the configuration of server {:?} does not offer the tool {name:?} (allowedTools, deniedTools)",
                config.name
            )));
        }
        if let Some(limit) = config.max_total_timeout {
            options = options.with_max_total_timeout(limit);
        }
    }
    let params = json!({ "name": name, "arguments": arguments });
    Ok(connection.client().request(methods::TOOLS_CALL, Some(params), options).await?)
}

async fn read(args: ReadArgs) -> Result<(), Failure> {
    let connection = Connection::open(&args.target).await?;
    let params = json!({ "uri": args.uri });
    let result = connection.client().request(methods::RESOURCES_READ, Some(params), RequestOptions::new()).await;
    connection.close().await;
    let value = result?;
    if args.output.json {
        return print_json(&value);
    }
    let result: ReadResourceResult = typed(value, "resources/read")?;
    let (text, notes) = render::read_result(&result);
    print!("{text}");
    for note in notes {
        eprintln!("{note} (--json prints it)");
    }
    Ok(())
}

async fn get(args: GetArgs) -> Result<(), Failure> {
    let mut arguments = object_argument(args.arguments.as_deref()).await?;
    for (name, value) in &mut arguments {
        *value = match value.take() {
            text @ Value::String(_) => text,
            plain @ (Value::Number(_) | Value::Bool(_)) => Value::String(plain.to_string()),
            other => return Err(Failure::usage(format!("the prompt argument {name:?} is not a string: {other}"))),
        };
    }
    let connection = Connection::open(&args.target).await?;
    let params = json!({ "name": args.name, "arguments": arguments });
    let result = connection.client().request(methods::PROMPTS_GET, Some(params), RequestOptions::new()).await;
    connection.close().await;
    let value = result?;
    if args.output.json {
        return print_json(&value);
    }
    let result: GetPromptResult = typed(value, "prompts/get")?;
    print!("{}", render::prompt_result(&result));
    Ok(())
}

/// Shows a call's progress on stderr: on one line rewritten in place on a terminal, one line
/// per notification elsewhere.
struct Progress {
    shown: bool,
    terminal: bool,
    written: AtomicBool,
}

impl Progress {
    fn new(shown: bool) -> Arc<Self> {
        Arc::new(Progress { shown, terminal: std::io::stderr().is_terminal(), written: AtomicBool::new(false) })
    }

    fn show(&self, params: &ProgressNotificationParams) {
        if !self.shown {
            return;
        }
        let mut line = format!("progress: {}", params.progress);
        if let Some(total) = params.total {
            line.push_str(&format!("/{total}"));
        }
        if let Some(message) = &params.message {
            line.push_str(&format!(" {message}"));
        }
        if self.terminal {
            eprint!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
        self.written.store(true, Ordering::Relaxed);
    }

    /// Ends the line rewritten in place.
    fn finish(&self) {
        if self.terminal && self.written.load(Ordering::Relaxed) {
            eprintln!();
        }
    }
}
