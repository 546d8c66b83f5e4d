//! A client and a server traced by the middleware, over an in-memory pair.

use mcpweft::{
    Client, ClientOptions, Server,
    model::{CallToolResult, Implementation, JsonObject, Tool},
    transport::memory_pair,
};
use mcpweft_otel::OpenTelemetry;

/// Connects a client with `options` to a traced server whose tool `hello` says hello, over an
/// in-memory pair.
pub async fn traced_pair(options: ClientOptions) -> Client {
    let tool = Tool::without_arguments("hello", "Says hello.");
    let server = Server::builder(Implementation::new("traced", "1"))
        .tool(tool, |_args: JsonObject, _ctx| async { Ok(CallToolResult::text("hello")) })
        .middleware(OpenTelemetry::new())
        .build()
        .unwrap();
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    Client::connect(client_side, options).await.unwrap()
}
