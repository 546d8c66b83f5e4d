//! Tasks (experimental): task-augmented tool calls, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel`, the tool-level rules and servers without task support.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use crate::common::*;
use mcpweft::{Error, ErrorData, Server, model::*, server::TaskOptions};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// The tools of the task tests; `gate` releases the `gated` tool, `dropped` tells that the
/// `slow` tool's future was dropped.
struct Fixture {
    gate: Arc<Semaphore>,
    dropped: Arc<AtomicBool>,
}

fn task_tool(name: &str, support: Option<TaskSupport>) -> Tool {
    let tool = Tool::new(name, "A task test tool.", obj(json!({ "type": "object" })));
    match support {
        Some(support) => tool.with_task_support(support),
        None => tool,
    }
}

fn build(tasks: Option<TaskOptions>) -> (Server, Fixture) {
    let fixture = Fixture { gate: Arc::new(Semaphore::new(0)), dropped: Arc::new(AtomicBool::new(false)) };
    let gate = fixture.gate.clone();
    let dropped = fixture.dropped.clone();
    let mut builder = Server::builder(Implementation::new("tasks", "1")).page_size(2);
    if let Some(options) = tasks {
        builder = builder.tasks(options);
    }
    let server = builder
        .tool(task_tool("gated", Some(TaskSupport::Optional)), move |args: JsonObject, ctx: mcpweft::RequestContext| {
            let gate = gate.clone();
            async move {
                gate.acquire().await.expect("the gate stays open").forget();
                ctx.report_progress(1.0, Some(1.0), None).expect("progress");
                Ok(CallToolResult::text(format!("done {}", args.get("n").cloned().unwrap_or(Value::Null))))
            }
        })
        .tool(task_tool("fails", Some(TaskSupport::Optional)), |_args, _ctx| async move {
            Ok(CallToolResult::error("boom"))
        })
        .tool(task_tool("rpc_fails", Some(TaskSupport::Optional)), |_args, _ctx| async move {
            Err(ErrorData::invalid_params("bad input"))
        })
        .tool(task_tool("slow", Some(TaskSupport::Optional)), move |_args, _ctx| {
            let guard = DropGuard(dropped.clone());
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok(CallToolResult::text("never"))
            }
        })
        .tool(task_tool("quick", Some(TaskSupport::Optional)), |_args, _ctx| async move {
            Ok(CallToolResult::text("quick"))
        })
        .tool(task_tool("plain", None), |_args, _ctx| async move { Ok(CallToolResult::text("plain")) })
        .tool(task_tool("forbidden", Some(TaskSupport::Forbidden)), |_args, _ctx| async move {
            Ok(CallToolResult::text("forbidden"))
        })
        .tool(
            task_tool("must", Some(TaskSupport::Required)),
            |_args, _ctx| async move { Ok(CallToolResult::text("must")) },
        )
        .build()
        .expect("a valid server");
    (server, fixture)
}

fn fast_options() -> TaskOptions {
    TaskOptions::new()
        .with_max_ttl(Some(Duration::from_secs(60)))
        .with_default_ttl(Some(Duration::from_secs(30)))
        .with_poll_interval(Duration::from_millis(50))
        .with_max_tasks(10)
}

fn related_task(result: &CallToolResult) -> Value {
    serde_json::to_value(result).unwrap()["_meta"][RELATED_TASK_META_KEY].clone()
}

fn is_iso8601_utc(s: &str) -> bool {
    s.len() == 24 && s.ends_with('Z') && s.as_bytes()[10] == b'T' && s.as_bytes()[4] == b'-'
}

#[tokio::test]
async fn a_task_runs_in_the_background_and_yields_the_direct_result() {
    let (server, fixture) = build(Some(fast_options()));
    let caps = serde_json::to_value(server.capabilities()).unwrap();
    assert_eq!(caps["tasks"], json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }));
    let (client, _events, _session) = connect(&server).await;

    let created = within(client.call_tool_as_task("gated", json!({ "n": 7 }), Some(120_000))).await.unwrap();
    let task = created.task;
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.task_id.len(), 32);
    assert_eq!(task.ttl, Some(60_000), "the ttl is capped by max_ttl");
    assert_eq!(task.poll_interval, Some(50));
    assert!(is_iso8601_utc(&task.created_at), "{}", task.created_at);
    assert!(is_iso8601_utc(&task.last_updated_at));

    let got = within(client.get_task(&task.task_id)).await.unwrap();
    assert_eq!(got.task.status, TaskStatus::Working);
    assert_eq!(got.task.task_id, task.task_id);

    // tasks/result blocks until the task ends.
    let waiting = {
        let client = client.clone();
        let id = task.task_id.clone();
        tokio::spawn(async move { client.task_result(&id).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!waiting.is_finished(), "tasks/result waits for the task");
    fixture.gate.add_permits(1);
    let result = within(waiting).await.unwrap().unwrap();
    assert_eq!(related_task(&result), json!({ "taskId": task.task_id }));

    fixture.gate.add_permits(1);
    let direct = within(client.call_tool("gated", json!({ "n": 7 }))).await.unwrap();
    assert_eq!(result.content, direct.content);
    assert_eq!(result.is_error, direct.is_error);
    assert_eq!(first_text(&result), "done 7");

    let done = within(client.get_task(&task.task_id)).await.unwrap();
    assert_eq!(done.task.status, TaskStatus::Completed);
    assert_eq!(done.task.created_at, task.created_at);
    // A finished task keeps its result.
    assert_eq!(within(client.task_result(&task.task_id)).await.unwrap().content, direct.content);
}

#[tokio::test]
async fn failing_tools_make_failed_tasks() {
    let (server, _fixture) = build(Some(fast_options()));
    let (client, _events, _session) = connect(&server).await;

    let id = within(client.call_tool_as_task("fails", json!({}), None)).await.unwrap().task.task_id;
    let result = within(client.task_result(&id)).await.unwrap();
    assert!(result.is_error());
    assert_eq!(first_text(&result), "boom");
    let task = within(client.get_task(&id)).await.unwrap().task;
    assert_eq!(task.status, TaskStatus::Failed);
    assert_eq!(task.status_message.as_deref(), Some("boom"));
    assert_eq!(task.ttl, Some(30_000), "the default ttl applies");

    let id = within(client.call_tool_as_task("rpc_fails", json!({}), None)).await.unwrap().task.task_id;
    match within(client.task_result(&id)).await {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32602);
            assert_eq!(e.message, "bad input");
        }
        other => panic!("expected the tool's JSON-RPC error, got {other:?}"),
    }
    let task = within(client.get_task(&id)).await.unwrap().task;
    assert_eq!(task.status, TaskStatus::Failed);
    assert_eq!(task.status_message.as_deref(), Some("bad input"));
}

#[tokio::test]
async fn cancelling_stops_the_handler() {
    let (server, fixture) = build(Some(fast_options()));
    let (client, _events, _session) = connect(&server).await;

    let id = within(client.call_tool_as_task("slow", json!({}), None)).await.unwrap().task.task_id;
    let waiting = {
        let client = client.clone();
        let id = id.clone();
        tokio::spawn(async move { client.task_result(&id).await })
    };
    assert!(!fixture.dropped.load(Ordering::SeqCst));
    let cancelled = within(client.cancel_task(&id)).await.unwrap();
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled);
    let dropped = fixture.dropped.clone();
    eventually("the handler's future is dropped", || dropped.load(Ordering::SeqCst)).await;
    assert_eq!(within(client.get_task(&id)).await.unwrap().task.status, TaskStatus::Cancelled);
    assert_eq!(rpc_code(within(client.cancel_task(&id)).await), -32602);
    // A waiting tasks/result ends too.
    assert_eq!(rpc_code(within(waiting).await.unwrap()), -32602);

    // Cancelling a finished task is refused as well.
    let id = within(client.call_tool_as_task("quick", json!({}), None)).await.unwrap().task.task_id;
    within(client.task_result(&id)).await.unwrap();
    assert_eq!(rpc_code(within(client.cancel_task(&id)).await), -32602);
}

#[tokio::test]
async fn unknown_and_expired_tasks_are_invalid_params() {
    let options = fast_options().with_max_ttl(Some(Duration::from_millis(100)));
    let (server, _fixture) = build(Some(options));
    let (client, _events, _session) = connect(&server).await;
    assert_eq!(rpc_code(within(client.get_task("nope")).await), -32602);
    assert_eq!(rpc_code(within(client.task_result("nope")).await), -32602);
    assert_eq!(rpc_code(within(client.cancel_task("nope")).await), -32602);

    let id = within(client.call_tool_as_task("quick", json!({}), None)).await.unwrap().task.task_id;
    within(client.get_task(&id)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(rpc_code(within(client.get_task(&id)).await), -32602);
    assert!(within(client.list_tasks(None)).await.unwrap().tasks.is_empty());
}

#[tokio::test]
async fn tasks_are_listed_page_by_page() {
    let (server, _fixture) = build(Some(fast_options()));
    let (client, _events, _session) = connect(&server).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(within(client.call_tool_as_task("quick", json!({}), None)).await.unwrap().task.task_id);
    }
    let mut listed = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = within(client.list_tasks(cursor)).await.unwrap();
        pages += 1;
        listed.extend(page.tasks.into_iter().map(|t| t.task_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(listed, ids);
    assert_eq!(rpc_code(within(client.list_tasks(Some("garbage".into()))).await), -32602);
}

#[tokio::test]
async fn tool_level_task_rules() {
    let (server, _fixture) = build(Some(fast_options()));
    let (client, _events, _session) = connect(&server).await;
    assert_eq!(rpc_code(within(client.call_tool_as_task("plain", json!({}), None)).await), -32601);
    assert_eq!(rpc_code(within(client.call_tool_as_task("forbidden", json!({}), None)).await), -32601);
    assert_eq!(rpc_code(within(client.call_tool("must", json!({}))).await), -32601);
    assert_eq!(first_text(&within(client.call_tool("plain", json!({}))).await.unwrap()), "plain");
    assert_eq!(first_text(&within(client.call_tool("quick", json!({}))).await.unwrap()), "quick");
    let id = within(client.call_tool_as_task("must", json!({}), None)).await.unwrap().task.task_id;
    assert_eq!(first_text(&within(client.task_result(&id)).await.unwrap()), "must");
}

#[tokio::test]
async fn a_server_without_tasks_ignores_the_task_param() {
    let (server, _fixture) = build(None);
    assert!(server.capabilities().tasks.is_none());
    let (client, _events, _session) = connect(&server).await;
    assert!(matches!(
        within(client.call_tool_as_task("quick", json!({}), None)).await,
        Err(Error::CapabilityMissing(_))
    ));
    assert!(matches!(within(client.get_task("x")).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.list_tasks(None)).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.cancel_task("x")).await, Err(Error::CapabilityMissing(_))));

    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let params = json!({ "name": "must", "arguments": {}, "task": { "ttl": 1000 } });
    let response = raw.request(json!(1), "tools/call", params).await;
    assert_eq!(response["result"]["content"][0]["text"], "must", "{response}");
    let response = raw.request(json!(2), "tasks/get", json!({ "taskId": "x" })).await;
    assert_error(&response, -32601);
}

#[tokio::test]
async fn progress_outlives_the_answered_request() {
    let (server, fixture) = build(Some(fast_options()));
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let params = json!({ "name": "gated", "arguments": {}, "task": {}, "_meta": { "progressToken": "p1" } });
    let response = raw.request(json!(1), "tools/call", params).await;
    let task_id = response["result"]["task"]["taskId"].as_str().expect("a task id").to_owned();
    assert_eq!(response["result"]["task"]["status"], "working");
    fixture.gate.add_permits(1);
    let progress = loop {
        let message = raw.recv().await;
        if message["method"] == "notifications/progress" {
            break message;
        }
    };
    assert_eq!(progress["params"]["progressToken"], "p1");
    let result = raw.request(json!(2), "tasks/result", json!({ "taskId": task_id })).await;
    assert_eq!(result["result"]["_meta"][RELATED_TASK_META_KEY]["taskId"], task_id);
    assert_eq!(result["result"]["content"][0]["text"], "done null");
}
