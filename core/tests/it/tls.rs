//! The Streamable HTTP client over TLS: the handshake runs on the core's own crypto provider
//! (ring), a certificate the client trusts lets it call tools, and one it does not trust fails
//! the connection with an error that says so.

use std::{net::SocketAddr, sync::Arc};

use crate::common::*;
use hyper_util::{rt::TokioIo, service::TowerToHyperService};
use mcpweft::{
    Client, ClientOptions, RequestContext, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::*,
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio_rustls::TlsAcceptor;

/// The test authority, which signed the server's certificate.
const AUTHORITY: &[u8] = include_bytes!("../data/tls_ca.pem");
const CERTIFICATE: &[u8] = include_bytes!("../data/tls_cert.pem");
const KEY: &[u8] = include_bytes!("../data/tls_key.pem");

/// Serves a one-tool MCP server over HTTPS on a loopback port, with the test certificate for
/// `localhost` and `127.0.0.1` the test authority signed; returns its URL.
async fn serve_https() -> String {
    mcpweft::install_crypto_provider();
    let server = Server::builder(Implementation::new("tls", "1"))
        .tool(Tool::without_arguments("hello", "Says hello."), |_args: JsonObject, _ctx: RequestContext| async {
            Ok(CallToolResult::text("hello over TLS"))
        })
        .build()
        .unwrap();
    let router = StreamableHttpServer::new(server, HttpServerOptions::default()).router();
    let certificate = CertificateDer::from_pem_slice(CERTIFICATE).expect("the test certificate");
    let key = PrivateKeyDer::from_pem_slice(KEY).expect("the test key");
    let config =
        rustls::ServerConfig::builder().with_no_client_auth().with_single_cert(vec![certificate], key).unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, router) = (acceptor.clone(), router.clone());
            tokio::spawn(async move {
                // A handshake the client breaks off (an untrusted certificate) ends here.
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), TowerToHyperService::new(router))
                    .await;
            });
        }
    });
    format!("https://127.0.0.1:{}/mcp", addr.port())
}

#[tokio::test]
async fn a_client_that_trusts_the_certificate_calls_tools_over_tls() {
    let url = serve_https().await;
    let trusting = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(AUTHORITY).unwrap())
        .build()
        .unwrap();
    let transport =
        StreamableHttpClientTransport::with_options(&url, HttpClientOptions::new().with_client(trusting)).unwrap();
    let client = within(Client::connect(transport, ClientOptions::new("tls-test", "1"))).await.unwrap();
    let result = within(client.call_tool("hello", serde_json::json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "hello over TLS");
}

#[tokio::test]
async fn the_default_client_refuses_a_certificate_it_does_not_trust() {
    let url = serve_https().await;
    let transport = StreamableHttpClientTransport::new(&url).unwrap();
    let error = within(Client::connect(transport, ClientOptions::new("tls-test", "1"))).await.unwrap_err();
    let message = format!("{error:#}");
    assert!(message.to_lowercase().contains("certificate"), "{message}");
}
