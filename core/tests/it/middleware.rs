//! Middleware: the chain's order, changing a request, answering early, failing, both roles and
//! both directions, and the built-in rate limit and cache, between a real server and client.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::common::*;
use mcpweft::{
    Error, ErrorData, Server,
    middleware::{Cache, CacheOptions, Direction, Message, Next, RateLimit, Role, Timing},
    model::*,
};
use serde_json::{Value, json};

/// A middleware that records `name>` on the way in and `<name` on the way out of each request.
fn recording(name: &'static str, log: Arc<Mutex<Vec<String>>>) -> impl mcpweft::middleware::Middleware {
    move |message: Message, next: Next| {
        let log = log.clone();
        async move {
            if message.is_request && message.method == "tools/call" {
                log.lock().unwrap().push(format!("{name}>"));
            }
            let is_call = message.is_request && message.method == "tools/call";
            let outcome = next.run(message).await;
            if is_call {
                log.lock().unwrap().push(format!("<{name}"));
            }
            outcome
        }
    }
}

/// A server with an `add` tool that counts its calls.
fn adder(calls: Arc<AtomicUsize>) -> mcpweft::server::ServerBuilder {
    let schema = obj(json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}));
    let tool = Tool::new("add", "Adds a and b.", schema);
    Server::builder(Implementation::new("adder", "1")).tool(tool, move |args: JsonObject, _ctx| {
        let calls = calls.clone();
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok(CallToolResult::text(sum.to_string()))
        }
    })
}

#[tokio::test]
async fn the_chain_runs_in_order_and_can_change_answer_or_fail_a_request() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let server = adder(calls.clone())
        .middleware(recording("outer", log.clone()))
        .middleware(recording("inner", log.clone()))
        // Changes a request: `b` doubled before the tool sees it.
        .middleware(|mut message: Message, next: Next| async move {
            if message.method == "tools/call"
                && let Some(b) = message.params.as_mut().and_then(|p| p.pointer_mut("/arguments/b"))
            {
                *b = json!(b.as_f64().unwrap_or(0.0) * 2.0);
            }
            next.run(message).await
        })
        // Answers a request itself, and fails another with a JSON-RPC error.
        .middleware(|message: Message, next: Next| async move {
            match (message.method.as_str(), message.target()) {
                ("tools/call", Some("secret")) => Err(Error::Rpc(ErrorData::new(-32001, "secret is not for you"))),
                ("tools/list", _) => {
                    Ok(json!({"tools": [{"name": "from-middleware", "inputSchema": {"type": "object"}}]}))
                }
                _ => next.run(message).await,
            }
        })
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;

    let result = within(client.call_tool("add", json!({"a": 1, "b": 2}))).await.unwrap();
    assert_eq!(first_text(&result), "5", "b was doubled on the way in");
    assert_eq!(*log.lock().unwrap(), ["outer>", "inner>", "<inner", "<outer"]);

    let refused = within(client.call_tool("secret", json!({}))).await;
    assert_eq!(rpc_code(refused), -32001);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the refused call reached no handler");

    let tools = within(client.list_tools(None)).await.unwrap();
    assert_eq!(tools.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["from-middleware"]);

    // The session goes on serving after a refusal.
    let result = within(client.call_tool("add", json!({"a": 2, "b": 2}))).await.unwrap();
    assert_eq!(first_text(&result), "6");
}

#[tokio::test]
async fn a_server_chain_sees_what_it_receives_and_sends_with_its_session() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let tool = Tool::without_arguments("chatty", "Logs a line.");
    let server = Server::builder(Implementation::new("chatty", "1"))
        .tool(tool, |_args, ctx: mcpweft::RequestContext| async move {
            ctx.log(LoggingLevel::Info, None, "hello").expect("logs");
            Ok(CallToolResult::text("done"))
        })
        .middleware(move |message: Message, next: Next| {
            let record = record.clone();
            async move {
                let entry = (message.direction, message.role, message.method.clone(), message.protocol_version.clone());
                record.lock().unwrap().push(entry);
                next.run(message).await
            }
        })
        .build()
        .unwrap();
    let (client, mut events, _session) = connect(&server).await;
    within(client.call_tool("chatty", json!({}))).await.unwrap();
    loop {
        if let Event::Log(_) = within(events.next()).await {
            break;
        }
    }
    let seen = seen.lock().unwrap().clone();
    let version = Some(LATEST_PROTOCOL_VERSION.to_owned());
    assert!(seen.contains(&(Direction::Received, Role::Server, "tools/call".into(), version.clone())), "{seen:?}");
    assert!(seen.contains(&(Direction::Received, Role::Server, "notifications/initialized".into(), version.clone())));
    assert!(seen.contains(&(Direction::Sent, Role::Server, "notifications/message".into(), version)), "{seen:?}");
    assert_eq!(seen.iter().filter(|(_, _, m, _)| m == "initialize").count(), 1);
}

#[tokio::test]
async fn a_client_chain_wraps_its_calls_and_what_the_server_sends_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let server = adder(Arc::default()).build().unwrap();
    let options = full_options().with_middleware(Timing).with_middleware(move |message: Message, next: Next| {
        let record = record.clone();
        async move {
            record.lock().unwrap().push((message.direction, message.role, message.method.clone()));
            // A client-side middleware may answer its own call.
            if message.method == "tools/call" && message.target() == Some("local") {
                return Ok(json!({"content": [{"type": "text", "text": "answered here"}]}));
            }
            next.run(message).await
        }
    });
    let (client, _session, _task) = connect_with(&server, options, mcpweft::client::NoHandler).await;
    let local = within(client.call_tool("local", json!({}))).await.unwrap();
    assert_eq!(first_text(&local), "answered here");
    let sum = within(client.call_tool("add", json!({"a": 1, "b": 1}))).await.unwrap();
    assert_eq!(first_text(&sum), "2");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.contains(&(Direction::Sent, Role::Client, "initialize".into())));
    assert!(seen.contains(&(Direction::Sent, Role::Client, "notifications/initialized".into())));
    assert_eq!(seen.iter().filter(|(_, _, m)| m == "tools/call").count(), 2);
}

#[tokio::test]
async fn the_rate_limit_refuses_a_caller_beyond_its_budget_and_spares_the_others() {
    let server = adder(Arc::default()).middleware(RateLimit::new(0.5, 2)).build().unwrap();
    let (first, _events, _session) = connect(&server).await;
    for _ in 0..2 {
        within(first.call_tool("add", json!({"a": 1, "b": 1}))).await.unwrap();
    }
    let refused = within(first.call_tool("add", json!({"a": 1, "b": 1}))).await.unwrap_err();
    let error = refused.rpc().expect("a JSON-RPC error");
    assert_eq!(error.code, mcpweft::jsonrpc::TOO_MANY_REQUESTS);
    let retry = error.data.as_ref().and_then(|d| d["retryAfterMs"].as_u64()).expect("retryAfterMs");
    assert!((1..=2000).contains(&retry), "{retry}");
    // ping is never counted, and another session has a budget of its own.
    within(first.ping()).await.unwrap();
    let (second, _events, _session) = connect(&server).await;
    within(second.call_tool("add", json!({"a": 1, "b": 1}))).await.unwrap();
}

#[tokio::test]
async fn the_cache_answers_while_fresh_and_forgets_what_a_list_change_makes_stale() {
    // The server marks its tool lists fresh for a minute, for everyone; the client caches them.
    let server = adder(Arc::default())
        .middleware(|message: Message, next: Next| async move {
            let is_list = message.method == "tools/list";
            let mut result = next.run(message).await?;
            if is_list && let Value::Object(map) = &mut result {
                map.insert("ttlMs".into(), json!(60_000));
                map.insert("cacheScope".into(), json!("public"));
            }
            Ok(result)
        })
        .build()
        .unwrap();
    let lists = Arc::new(AtomicUsize::new(0));
    let counted = lists.clone();
    let cache = Arc::new(Cache::new(CacheOptions::new().with_max_entries(8)));
    let mut options = full_options();
    options.middleware.push_arc(cache.clone());
    let options = options.with_middleware(move |message: Message, next: Next| {
        let counted = counted.clone();
        async move {
            if message.method == "tools/list" {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            next.run(message).await
        }
    });
    let (recorder, mut events) = Recorder::new();
    let (client, _session, _task) = connect_with(&server, options, recorder).await;

    assert_eq!(within(client.list_tools(None)).await.unwrap().tools.len(), 1);
    assert_eq!(within(client.list_tools(None)).await.unwrap().tools.len(), 1);
    assert_eq!(lists.load(Ordering::SeqCst), 1, "the second list came from the cache");
    assert_eq!(cache.len(), 1);

    server
        .add_tool(Tool::without_arguments("sub", "Subtracts."), |_args, _ctx| async { Ok(CallToolResult::text("0")) })
        .unwrap();
    loop {
        if let Event::ListChanged(method) = within(events.next()).await {
            assert_eq!(method, "notifications/tools/list_changed");
            break;
        }
    }
    assert_eq!(within(client.list_tools(None)).await.unwrap().tools.len(), 2, "the change dropped the stale list");
    assert_eq!(lists.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_cache_keeps_private_results_per_session() {
    let reads = Arc::new(AtomicUsize::new(0));
    let counted = reads.clone();
    let resource = Resource::new("mem://private", "private");
    let cache = Arc::new(Cache::new(CacheOptions::new().with_default_ttl(Duration::from_secs(60))));
    let mut options = mcpweft::server::ServerOptions::new();
    options.middleware.push_arc(cache.clone());
    let server = Server::builder(Implementation::new("reader", "1"))
        .options_from(options)
        .resource(resource, move |request: mcpweft::server::ResourceRequest, _ctx| {
            let counted = counted.clone();
            async move {
                let n = counted.fetch_add(1, Ordering::SeqCst);
                let result = json!({"contents": [{"uri": request.uri, "text": format!("read {n}")}]});
                Ok(serde_json::from_value::<ReadResourceResult>(result).expect("a read result"))
            }
        })
        .build()
        .unwrap();
    let (first, _events, _session) = connect(&server).await;
    let (second, _events, _session) = connect(&server).await;
    let text = |r: ReadResourceResult| serde_json::to_value(&r.contents[0]).unwrap()["text"].clone();
    assert_eq!(text(within(first.read_resource("mem://private")).await.unwrap()), "read 0");
    assert_eq!(text(within(first.read_resource("mem://private")).await.unwrap()), "read 0", "cached for this session");
    assert_eq!(text(within(second.read_resource("mem://private")).await.unwrap()), "read 1", "not shared with another");
    assert_eq!(reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn over_http_a_middleware_may_wait_before_it_passes_initialize_on() {
    use mcpweft::{
        Client, ClientOptions,
        http::{HttpServerOptions, StreamableHttpServer},
        transport::http::StreamableHttpClientTransport,
    };
    let server = adder(Arc::default())
        .middleware(|message: Message, next: Next| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            next.run(message).await
        })
        .build()
        .unwrap();
    let bound =
        StreamableHttpServer::bind(server, "127.0.0.1:0".parse().unwrap(), HttpServerOptions::default()).await.unwrap();
    let transport = StreamableHttpClientTransport::new(bound.url()).unwrap();
    let client = within(Client::connect(transport, ClientOptions::new("t", "1"))).await.unwrap();
    let sum = within(client.call_tool("add", json!({"a": 2, "b": 3}))).await.unwrap();
    assert_eq!(first_text(&sum), "5");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notification_sent_from_outside_the_runtime_goes_on_in_a_task_while_its_chain_waits() {
    // The chain holds the list change until the thread that registered the tool says so: sending
    // it must not hold that thread, which is what a binding's own thread (Node's, Python's event
    // loop) needs when its middleware runs there.
    let (release, released) = futures::channel::oneshot::channel::<()>();
    let released = Arc::new(Mutex::new(Some(released)));
    let server = adder(Arc::default())
        .middleware(move |message: Message, next: Next| {
            let released = released.clone();
            async move {
                if message.method == "notifications/tools/list_changed" {
                    let wait = released.lock().unwrap().take();
                    if let Some(wait) = wait {
                        let _ = wait.await;
                    }
                }
                next.run(message).await
            }
        })
        .build()
        .unwrap();
    let (_client, mut events, _session) = connect(&server).await;
    let registering = server.clone();
    let (registered, done) = futures::channel::oneshot::channel();
    // A thread of no runtime, left behind if it hangs, so that the test fails instead.
    std::thread::spawn(move || {
        let tool = Tool::without_arguments("late", "Registered once a client is connected.");
        registering.add_tool(tool, |_args, _ctx| async { Ok(CallToolResult::text("late")) }).unwrap();
        let _ = registered.send(());
        let _ = release.send(());
    });
    let done = tokio::time::timeout(Duration::from_secs(5), done).await;
    done.expect("registering does not wait for the chain").unwrap();
    loop {
        if let Event::ListChanged(method) = within(events.next()).await {
            assert_eq!(method, "notifications/tools/list_changed");
            break;
        }
    }
}
