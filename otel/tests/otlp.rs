//! Spans leave the process over OTLP/HTTP: a server traced by the middleware exports its spans
//! to a collector (a stand-in on 127.0.0.1 that decodes what it receives), named and attributed
//! as the official SDK names them.

use std::sync::{Arc, Mutex};

use axum::{Router, body::Bytes, extract::State, routing::post};
use mcpweft::ClientOptions;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message as _;
use serde_json::json;

#[path = "common/pair.rs"]
mod pair;

/// The spans a collector received: name, service name and attributes.
type Received = Arc<Mutex<Vec<(String, String, Vec<(String, String)>)>>>;

async fn collect(State(received): State<Received>, body: Bytes) -> &'static str {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    for resource in request.resource_spans {
        let attribute = |kvs: &[opentelemetry_proto::tonic::common::v1::KeyValue], key: &str| {
            kvs.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_ref()).map(|v| format!("{:?}", v.value))
        };
        let service =
            resource.resource.as_ref().and_then(|r| attribute(&r.attributes, "service.name")).unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                let attributes = span
                    .attributes
                    .iter()
                    .map(|kv| (kv.key.clone(), format!("{:?}", kv.value.as_ref().and_then(|v| v.value.clone()))))
                    .collect();
                received.lock().unwrap().push((span.name, service.clone(), attributes));
            }
        }
    }
    ""
}

#[tokio::test(flavor = "multi_thread")]
async fn a_traced_server_exports_its_spans_to_an_otlp_collector() {
    let received = Received::default();
    let app = Router::new().route("/v1/traces", post(collect)).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    mcpweft_otel::export_otlp(&endpoint, "otlp-test").unwrap();

    let client = pair::traced_pair(ClientOptions::new("c", "1")).await;
    client.call_tool("hello", json!({})).await.unwrap();
    tokio::task::spawn_blocking(mcpweft_otel::flush).await.unwrap().unwrap();

    let spans = received.lock().unwrap().clone();
    let (_, service, attributes) =
        spans.iter().find(|(name, _, _)| name == "tools/call hello").unwrap_or_else(|| panic!("{spans:?}"));
    assert!(service.contains("otlp-test"), "{service}");
    assert!(attributes.iter().any(|(k, v)| k == "gen_ai.tool.name" && v.contains("hello")), "{attributes:?}");
    assert!(spans.iter().any(|(name, _, _)| name == "initialize"), "{spans:?}");
}
