//! The memory section of the benchmark: what a large answer to a request for input costs.
//!
//! A 2026-07-28 client answers a server's requests for input by retrying its call with
//! `inputResponses`. The section sends the same 3.8 MB of JSON (150,000 small objects) to the
//! `mcpweft-rounds-http` server once as the arguments of a tool and once as the answer of a retry,
//! each kind on a fresh process, and reports how much the server's peak resident memory rises for
//! one call and for eight at once, and how much of it the process still holds afterwards. The
//! peak (`VmHWM`) is reset through `/proc/<pid>/clear_refs` before each measurement.

use std::{path::Path, time::Duration};

use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::{
    http::call_2026,
    http_bench::Process,
    rpc::{Result, status_kib},
    servers::{PORT, Server},
};

/// The number of small objects the payload holds.
const ITEMS: usize = 150_000;
/// The number of calls sent at once in the second measurement.
const AT_ONCE: usize = 8;
/// How long the server is left to settle before its memory is read.
const SETTLE: Duration = Duration::from_millis(300);

/// How the payload reaches the handler.
#[derive(Clone, Copy)]
enum Carrier {
    /// As the arguments of the `items` tool.
    Arguments,
    /// As the answer to the `ask` tool's elicitation, in a retry's `inputResponses`.
    InputResponses,
}

/// What one kind of call cost the server, in MiB.
struct Cost {
    one: f64,
    at_once: f64,
    kept: f64,
}

/// The `_meta` of a 2026-07-28 request from a client that can answer form elicitations.
fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
        "io.modelcontextprotocol/clientInfo": { "name": "mcpweft-bench", "version": "1" },
    })
}

/// The body of a `tools/call` of `name` with `params` added to its params.
fn call(name: &str, params: Value) -> String {
    let mut body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": { "name": name, "arguments": {}, "_meta": envelope() } });
    if let (Value::Object(target), Value::Object(params)) = (&mut body["params"], params) {
        target.extend(params);
    }
    body.to_string()
}

/// The bodies of the calls that carry `items` by `carrier` (the `ask` retries need the state of
/// a first round from the server at `process`).
async fn bodies(process: &Process, carrier: Carrier, items: &Value) -> Result<(&'static str, String)> {
    match carrier {
        Carrier::Arguments => Ok(("items", call("items", json!({ "arguments": { "items": items } })))),
        Carrier::InputResponses => {
            let first = call_2026(process.addr, "ask", &call("ask", json!({}))).await?;
            let state = first["result"]["requestState"].clone();
            if !state.is_string() {
                return Err(format!("the first round of ask gave no requestState: {first}").into());
            }
            let answer = json!({ "items": { "action": "accept", "content": { "items": items } } });
            Ok(("ask", call("ask", json!({ "inputResponses": answer, "requestState": state }))))
        }
    }
}

/// Resets the peak resident memory of process `pid`.
fn reset_peak(pid: u32) -> Result<()> {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5")
        .map_err(|e| format!("cannot reset the peak of {pid}: {e}"))?;
    Ok(())
}

/// Sends `count` calls of `body` to tool `name` at once and checks each counted every item.
async fn send(process: &Process, name: &'static str, body: &str, count: usize) -> Result<()> {
    let mut calls = JoinSet::new();
    for _ in 0..count {
        let (addr, body) = (process.addr, body.to_owned());
        calls.spawn(async move { call_2026(addr, name, &body).await });
    }
    let expected = ITEMS.to_string();
    while let Some(answer) = calls.join_next().await {
        let answer = answer??;
        if answer["result"]["content"][0]["text"] != expected.as_str() {
            return Err(format!("{name} did not count {ITEMS} items: {}", answer["result"]).into());
        }
    }
    Ok(())
}

/// Measures what the payload costs a fresh server when carried by `carrier`.
async fn measure(server: &Server, carrier: Carrier, items: &Value) -> Result<Cost> {
    let process = Process::spawn(server).await?;
    let pid = process.pid()?;
    let (name, body) = bodies(&process, carrier, items).await?;
    let mib = |kib: u64, base: u64| kib.saturating_sub(base) as f64 / 1024.0;
    tokio::time::sleep(SETTLE).await;
    let start = process.rss_kib()?;
    reset_peak(pid)?;
    send(&process, name, &body, 1).await?;
    let one = mib(status_kib(pid, "VmHWM")?, start);
    tokio::time::sleep(SETTLE).await;
    let before = process.rss_kib()?;
    reset_peak(pid)?;
    send(&process, name, &body, AT_ONCE).await?;
    let at_once = mib(status_kib(pid, "VmHWM")?, before);
    tokio::time::sleep(SETTLE).await;
    let kept = mib(process.rss_kib()?, start);
    process.kill().await;
    Ok(Cost { one, at_once, kept })
}

/// Runs the section with the `mcpweft-rounds-http` server next to the driver in `dir`, prints
/// its table and returns whether every measurement succeeded.
pub(crate) async fn run(dir: &Path) -> bool {
    let server = Server {
        name: "mcpweft".to_owned(),
        command: vec![dir.join("mcpweft-rounds-http").to_string_lossy().into_owned(), PORT.to_owned()],
    };
    let items: Value = (0..ITEMS).map(|id| json!({ "id": id, "tag": "abc" })).collect();
    let size = items.to_string().len() as f64 / (1024.0 * 1024.0);
    println!("## Memory of a large answer to a request for input ({size:.1} MiB of {ITEMS} small objects)");
    println!();
    println!(
        "| carried as | one call: peak +MiB | {AT_ONCE} at once: peak +MiB | held after: +MiB | one call ÷ payload |"
    );
    println!("|---|---:|---:|---:|---:|");
    let mut ok = true;
    for (label, carrier) in [("tool arguments", Carrier::Arguments), ("inputResponses", Carrier::InputResponses)] {
        match measure(&server, carrier, &items).await {
            Ok(cost) => println!(
                "| {label} | {:.1} | {:.1} | {:.1} | {:.1}× |",
                cost.one,
                cost.at_once,
                cost.kept,
                cost.one / size
            ),
            Err(error) => {
                ok = false;
                println!("| {label} | failed: {error} | | | |");
            }
        }
    }
    ok
}
