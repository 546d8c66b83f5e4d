//! Utilities: logging, ping, progress, cancellation, time-outs and concurrency.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::common::*;
use mcpweft::{Error, RequestContext, RequestOptions, Server, model::*};
use serde_json::json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

fn logging_server() -> Server {
    Server::builder(Implementation::new("logger", "1"))
        .tool(
            Tool::without_arguments("chatty", "Logs at three levels."),
            |_args: JsonObject, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Debug, Some("t"), "debug line").unwrap();
                ctx.log(LoggingLevel::Info, Some("t"), json!({ "n": 1 })).unwrap();
                ctx.log(LoggingLevel::Warning, Some("t"), "warning line").unwrap();
                Ok(CallToolResult::text("done"))
            },
        )
        .build()
        .unwrap()
}

fn levels(events: Vec<Event>) -> Vec<(LoggingLevel, serde_json::Value)> {
    events
        .into_iter()
        .map(|e| match e {
            Event::Log(p) => {
                assert_eq!(p.logger.as_deref(), Some("t"));
                (p.level, p.data)
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn set_level_filters_log_messages() {
    let server = logging_server();
    let (client, mut events, _session) = connect(&server).await;

    // The default level is info: debug is filtered.
    within(client.call_tool("chatty", json!({}))).await.unwrap();
    assert_eq!(
        levels(events.drain()),
        [(LoggingLevel::Info, json!({ "n": 1 })), (LoggingLevel::Warning, json!("warning line"))]
    );

    within(client.set_logging_level(LoggingLevel::Warning)).await.unwrap();
    within(client.call_tool("chatty", json!({}))).await.unwrap();
    assert_eq!(levels(events.drain()), [(LoggingLevel::Warning, json!("warning line"))]);

    within(client.set_logging_level(LoggingLevel::Debug)).await.unwrap();
    within(client.call_tool("chatty", json!({}))).await.unwrap();
    assert_eq!(levels(events.drain()).len(), 3);

    within(client.set_logging_level(LoggingLevel::Emergency)).await.unwrap();
    within(client.call_tool("chatty", json!({}))).await.unwrap();
    assert_eq!(events.drain(), []);

    // Server-wide logs obey each session's level too.
    server.log(LoggingLevel::Alert, None, json!("filtered"));
    server.log(LoggingLevel::Emergency, Some("srv"), json!("delivered"));
    match events.next().await {
        Event::Log(p) => assert_eq!(
            (p.level, p.logger.as_deref(), p.data),
            (LoggingLevel::Emergency, Some("srv"), json!("delivered"))
        ),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn log_notifications_on_the_wire() {
    let server = logging_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw.request(json!(1), "logging/setLevel", json!({ "level": "warning" })).await;
    assert_eq!(response["result"], json!({}));
    raw.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "chatty" } })).await;
    assert_eq!(
        raw.recv().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
                "params": { "level": "warning", "logger": "t", "data": "warning line" } })
    );
    assert_eq!(raw.recv().await["id"], 2);
}

#[tokio::test]
async fn an_invalid_level_is_invalid_params() {
    let server = logging_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    for (id, params) in [(1, json!({ "level": "verbose" })), (2, json!({})), (3, json!({ "level": 3 }))] {
        let response = raw.request(json!(id), "logging/setLevel", params).await;
        assert_error(&response, -32602);
    }
}

#[tokio::test]
async fn ping_both_ways() {
    let server = echo_server();
    let (client, _events, session) = connect(&server).await;
    within(client.ping()).await.unwrap();
    within(session.peer().ping()).await.unwrap();
    let raw = within(client.request("ping", None, RequestOptions::new())).await.unwrap();
    assert_eq!(raw, json!({}));
}

fn progress_server() -> Server {
    Server::builder(Implementation::new("progress", "1"))
        .tool(
            Tool::without_arguments("steps", "Reports ten steps."),
            |_args: JsonObject, ctx: RequestContext| async move {
                assert!(ctx.progress_token().is_some(), "the client asked for progress");
                for i in 1..=10 {
                    ctx.report_progress(f64::from(i), Some(10.0), Some(format!("step {i}"))).unwrap();
                    if i % 3 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                // Progress must increase: a repeated value is refused and not sent.
                assert!(ctx.report_progress(10.0, Some(10.0), None).is_err());
                Ok(CallToolResult::text("done"))
            },
        )
        .tool(
            Tool::without_arguments("quiet", "Reports progress nobody asked for."),
            |_args: JsonObject, ctx: RequestContext| async move {
                assert!(ctx.progress_token().is_none());
                ctx.report_progress(1.0, None, None).unwrap();
                Ok(CallToolResult::text("quiet"))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn progress_reaches_the_callback_in_order() {
    let server = progress_server();
    let (client, _session, wire) = connect_tapped(&server, full_options(), Recorder::new().0).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let options = RequestOptions::new().with_progress({
        let seen = seen.clone();
        move |p: ProgressNotificationParams| seen.lock().unwrap().push((p.progress, p.total, p.message))
    });
    let result = within(client.call_tool_with(CallToolRequestParams::new("steps", JsonObject::new()), options)).await;
    assert_eq!(first_text(&result.unwrap()), "done");
    let expected: Vec<_> = (1..=10).map(|i| (f64::from(i), Some(10.0), Some(format!("step {i}")))).collect();
    assert_eq!(*seen.lock().unwrap(), expected);

    // The token the client put in _meta is the one every notification carried.
    let token = wire.to_server.lock().unwrap().iter().find_map(|m| match m {
        mcpweft::jsonrpc::JsonRpcMessage::Request(r) if r.method == "tools/call" => {
            Some(r.params.as_ref().unwrap()["_meta"]["progressToken"].clone())
        }
        _ => None,
    });
    let token = token.expect("a progressToken");
    let carried: Vec<_> = wire
        .to_client
        .lock()
        .unwrap()
        .iter()
        .filter_map(|m| match m {
            mcpweft::jsonrpc::JsonRpcMessage::Notification(n) if n.method == "notifications/progress" => {
                Some(n.params.as_ref().unwrap()["progressToken"].clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(carried.len(), 10);
    assert!(carried.iter().all(|t| *t == token));

    // Without a token, nothing is sent.
    within(client.call_tool("quiet", json!({}))).await.unwrap();
    let progress =
        wire.to_client.lock().unwrap().iter().filter(|m| m.method() == Some("notifications/progress")).count();
    assert_eq!(progress, 10);
}

/// What a slow tool reports about its own life.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    dropped: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
    saw_cancel: Arc<AtomicBool>,
}

fn slow_server(probe: &Probe) -> Server {
    let p = probe.clone();
    Server::builder(Implementation::new("slow", "1"))
        .tool(Tool::without_arguments("slow", "Takes forever."), move |_args: JsonObject, _ctx: RequestContext| {
            let p = p.clone();
            async move {
                let _guard = DropGuard(p.dropped.clone());
                p.started.notify_one();
                tokio::time::sleep(Duration::from_secs(30)).await;
                p.finished.store(true, Ordering::SeqCst);
                Ok(CallToolResult::text("finished"))
            }
        })
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_request_stops_the_handler() {
    let probe = Probe::default();
    let server = slow_server(&probe);
    let (client, _session, wire) = connect_tapped(&server, full_options(), Recorder::new().0).await;
    let token = CancellationToken::new();
    let call = tokio::spawn({
        let client = client.clone();
        let options = RequestOptions::new().with_cancel(token.clone());
        async move { client.call_tool_with(CallToolRequestParams::new("slow", JsonObject::new()), options).await }
    });
    within(probe.started.notified()).await;
    token.cancel();
    let outcome = within(call).await.unwrap();
    assert!(matches!(outcome, Err(Error::Cancelled)), "got {outcome:?}");

    eventually("the handler's future is dropped", || probe.dropped.load(Ordering::SeqCst)).await;
    assert!(!probe.finished.load(Ordering::SeqCst), "code after the await point never runs");

    // The cancellation went out, naming the request, and no response came back.
    let ids = wire.client_request_ids("tools/call");
    assert_eq!(ids.len(), 1);
    eventually("the cancellation reaches the server", || {
        !wire.client_notifications("notifications/cancelled").is_empty()
    })
    .await;
    let cancelled = wire.client_notifications("notifications/cancelled");
    assert_eq!(cancelled[0]["requestId"], serde_json::to_value(&ids[0]).unwrap());
    within(client.ping()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    within(client.ping()).await.unwrap();
    assert!(!wire.server_answered(&ids[0]), "a cancelled request gets no response");
    assert!(!probe.finished.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_handler_can_watch_for_cancellation() {
    let probe = Probe::default();
    let p = probe.clone();
    let server = Server::builder(Implementation::new("watch", "1"))
        .tool(
            Tool::without_arguments("watch", "Waits for cancellation."),
            move |_args: JsonObject, ctx: RequestContext| {
                let p = p.clone();
                async move {
                    let token = ctx.cancellation_token();
                    let watcher = tokio::spawn(async move {
                        token.cancelled().await;
                        p.saw_cancel.store(true, Ordering::SeqCst);
                    });
                    p.started.notify_one();
                    let _ = watcher.await;
                    Ok(CallToolResult::text("never sent"))
                }
            },
        )
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let token = CancellationToken::new();
    let call = tokio::spawn({
        let client = client.clone();
        let options = RequestOptions::new().with_cancel(token.clone());
        async move { client.call_tool_with(CallToolRequestParams::new("watch", JsonObject::new()), options).await }
    });
    within(probe.started.notified()).await;
    token.cancel();
    assert!(matches!(within(call).await.unwrap(), Err(Error::Cancelled)));
    eventually("the handler's token fires", || probe.saw_cancel.load(Ordering::SeqCst)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_request_is_cancelled() {
    let probe = Probe::default();
    let server = slow_server(&probe);
    let (client, _session, wire) = connect_tapped(&server, full_options(), Recorder::new().0).await;
    let options = RequestOptions::new().with_timeout(Duration::from_millis(200));
    let outcome = within(client.call_tool_with(CallToolRequestParams::new("slow", JsonObject::new()), options)).await;
    assert!(matches!(outcome, Err(Error::Timeout(d)) if d == Duration::from_millis(200)), "got {outcome:?}");

    let ids = wire.client_request_ids("tools/call");
    eventually("the cancellation reaches the server", || {
        !wire.client_notifications("notifications/cancelled").is_empty()
    })
    .await;
    let cancelled = wire.client_notifications("notifications/cancelled");
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["requestId"], serde_json::to_value(&ids[0]).unwrap());
    assert!(cancelled[0]["reason"].is_string());
    eventually("the handler is stopped", || probe.dropped.load(Ordering::SeqCst)).await;
    assert!(!probe.finished.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_default_timeout_applies() {
    let probe = Probe::default();
    let server = slow_server(&probe);
    let options = full_options().with_request_timeout(Duration::from_millis(150));
    let (client, _session, _) = connect_with(&server, options, Recorder::new().0).await;
    let outcome = within(client.call_tool("slow", json!({}))).await;
    assert!(matches!(outcome, Err(Error::Timeout(_))), "got {outcome:?}");
    eventually("the handler is stopped", || probe.dropped.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn cancelling_over_raw_json_drops_the_response() {
    let probe = Probe::default();
    let server = slow_server(&probe);
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    raw.send(json!({ "jsonrpc": "2.0", "id": "call-1", "method": "tools/call", "params": { "name": "slow" } })).await;
    within(probe.started.notified()).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": { "requestId": "call-1", "reason": "user hit stop" } }))
        .await;
    // The very next line answers the ping: the cancelled call got no response.
    assert_eq!(raw.request(json!(2), "ping", json!({})).await["result"], json!({}));
    eventually("the handler is stopped", || probe.dropped.load(Ordering::SeqCst)).await;
    // Late or unknown cancellations are ignored silently.
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "call-1" } }))
        .await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 999 } })).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "bogus": true } })).await;
    assert_eq!(raw.request(json!(3), "ping", json!({})).await["result"], json!({}));
    assert!(!probe.finished.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_concurrent_requests_in_both_directions() {
    const N: usize = 200;
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_in_flight = Arc::new(AtomicUsize::new(0));
    let server = Server::builder(Implementation::new("busy", "1"))
        .tool(
            Tool::new(
                "think",
                "Samples once.",
                obj(json!({ "type": "object", "properties": { "i": { "type": "integer" } }, "required": ["i"] })),
            ),
            {
                let in_flight = in_flight.clone();
                let max_in_flight = max_in_flight.clone();
                move |args: JsonObject, ctx: RequestContext| {
                    let in_flight = in_flight.clone();
                    let max_in_flight = max_in_flight.clone();
                    async move {
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        max_in_flight.fetch_max(now, Ordering::SeqCst);
                        let i = args["i"].as_i64().unwrap();
                        let params =
                            CreateMessageRequestParams::new(vec![SamplingMessage::user_text(format!("q{i}"))], 10);
                        let answer = ctx.create_message(params).await;
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                        match answer {
                            Ok(r) => Ok(CallToolResult::text(sampling_text(&r.content))),
                            Err(e) => Ok(CallToolResult::error(e.to_string())),
                        }
                    }
                }
            },
        )
        .build()
        .unwrap();
    let (client, _events, session) = connect(&server).await;
    let calls: Vec<_> = (0..N)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { (i, client.call_tool("think", json!({ "i": i })).await) })
        })
        .collect();
    // Meanwhile, the server pings the client and the client pings the server.
    let pings: Vec<_> = (0..20)
        .map(|i| {
            let client = client.clone();
            let session = session.clone();
            tokio::spawn(async move { if i % 2 == 0 { client.ping().await } else { session.peer().ping().await } })
        })
        .collect();
    for call in calls {
        let (i, result) = within(call).await.unwrap();
        let result = result.unwrap_or_else(|e| panic!("call {i} failed: {e}"));
        assert!(!result.is_error(), "call {i}: {result:?}");
        assert_eq!(first_text(&result), format!("echo: q{i}"));
    }
    for ping in pings {
        within(ping).await.unwrap().unwrap();
    }
    assert!(max_in_flight.load(Ordering::SeqCst) > 1, "the calls overlapped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoning_a_request_future_cancels_it() {
    let probe = Probe::default();
    let server = slow_server(&probe);
    let (client, _session, wire) = connect_tapped(&server, full_options(), Recorder::new().0).await;
    // The caller gives up by dropping the future (here through an outer time-out).
    let outcome = tokio::time::timeout(Duration::from_millis(100), client.call_tool("slow", json!({}))).await;
    assert!(outcome.is_err(), "the outer time-out fired");
    eventually("the cancellation reaches the server", || {
        !wire.client_notifications("notifications/cancelled").is_empty()
    })
    .await;
    let ids = wire.client_request_ids("tools/call");
    assert_eq!(
        wire.client_notifications("notifications/cancelled")[0]["requestId"],
        serde_json::to_value(&ids[0]).unwrap()
    );
    eventually("the handler is stopped", || probe.dropped.load(Ordering::SeqCst)).await;
    // Requests that were answered are not cancelled when their future ends.
    within(client.ping()).await.unwrap();
    within(client.ping()).await.unwrap();
    assert_eq!(wire.client_notifications("notifications/cancelled").len(), 1);
}

fn ticking_server() -> Server {
    Server::builder(Implementation::new("ticker", "1"))
        .tool(
            Tool::new(
                "tick",
                "Reports progress every few milliseconds.",
                obj(json!({ "type": "object", "properties": { "n": { "type": "integer" } } })),
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                let n = args.get("n").and_then(|v| v.as_u64()).unwrap_or(u64::MAX);
                for i in 1..=n {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let _ = ctx.report_progress(i as f64, None, None);
                }
                Ok(CallToolResult::text("ticked"))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_can_keep_a_request_alive_up_to_a_hard_limit() {
    let server = ticking_server();
    let (client, _events, _session) = connect(&server).await;
    let params = CallToolRequestParams::new("tick", obj(json!({ "n": 15 })));

    // Without resetting, 15 ticks of 20 ms outlast a 150 ms time-out.
    let options = RequestOptions::new().with_timeout(Duration::from_millis(150)).with_progress(|_| {});
    let outcome = within(client.call_tool_with(params.clone(), options)).await;
    assert!(matches!(outcome, Err(Error::Timeout(_))), "got {outcome:?}");

    // With resetting, each tick restarts the (generous) time-out and the call completes.
    let options = RequestOptions::new()
        .with_timeout(Duration::from_secs(2))
        .with_progress(|_| {})
        .with_reset_timeout_on_progress(true);
    let outcome = within(client.call_tool_with(params, options)).await;
    assert_eq!(first_text(&outcome.unwrap()), "ticked");

    // A tool that ticks forever still hits the hard limit.
    let options = RequestOptions::new()
        .with_timeout(Duration::from_secs(2))
        .with_progress(|_| {})
        .with_reset_timeout_on_progress(true)
        .with_max_total_timeout(Duration::from_millis(300));
    let outcome = within(client.call_tool_with(CallToolRequestParams::new("tick", JsonObject::new()), options)).await;
    assert!(matches!(outcome, Err(Error::Timeout(d)) if d == Duration::from_millis(300)), "got {outcome:?}");
}

#[tokio::test]
async fn initialize_is_never_cancelled() {
    // A server that never answers initialize: the client times out, but MUST NOT cancel it.
    let (mut fake, r, w) = raw_pipe();
    let options = mcpweft::ClientOptions::new("c", "1").with_request_timeout(Duration::from_millis(100));
    let outcome = within(mcpweft::Client::connect(mcpweft::transport::StreamTransport::new(r, w), options)).await;
    assert!(matches!(outcome, Err(Error::Timeout(_))), "got {outcome:?}");
    assert_eq!(fake.recv().await["method"], "initialize");
    // The client gives up by closing the connection, with nothing else sent.
    assert_eq!(fake.recv_line().await, None);
}
