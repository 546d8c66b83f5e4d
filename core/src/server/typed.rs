//! The typed Rust way to write tools: arguments and results are Rust types whose JSON Schemas
//! are derived with `schemars`, on the same engine as the JSON-level handlers.

use std::{any::Any, future::Future, marker::PhantomData};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Serialize, de::DeserializeOwned};

use super::{RequestContext, Server, ServerBuilder, ToolHandler};
use crate::{
    Error,
    jsonrpc::ErrorData,
    model::{CallToolResult, JsonObject, Tool},
};

/// A tool result made of structured content of type `T`, described by `T`'s JSON Schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

/// Turns what a typed tool returns into a `CallToolResult`.
pub trait IntoToolResult {
    /// Converts the value.
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData>;

    /// Returns the output schema this type implies, if any.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::text(self))
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData> {
        match crate::finite::to_value(&self.0) {
            Ok(serde_json::Value::Object(map)) => Ok(CallToolResult::structured(map)),
            Ok(other) => {
                Err(ErrorData::internal_error(format!("structured content must be a JSON object, not {other}")))
            }
            Err(e) => Err(ErrorData::internal_error(format!("could not encode the tool result: {e}"))),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        Some(schema_object::<T>())
    }
}

/// An `Err` that carries a JSON-RPC code answers the call with that JSON-RPC error, as a
/// handler in any binding does when it raises an MCP error: an [`ErrorData`], an
/// [`Error::Rpc`] (such as the error another server answered with), or either of them in a
/// `Box<dyn std::error::Error + Send + Sync>`. Any other `Err` (local failures such as
/// [`Error::Timeout`] included) becomes an `isError` result whose text is the error's message,
/// so that the model sees it.
impl<T: IntoToolResult, E: std::fmt::Display + 'static> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorData> {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(e) => match coded_error(&e) {
                Some(data) => Err(data.clone()),
                None => Ok(CallToolResult::error(e.to_string())),
            },
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// Returns the JSON-RPC error a typed tool's `Err` carries, if it carries one.
fn coded_error(error: &dyn Any) -> Option<&ErrorData> {
    if let Some(data) = error.downcast_ref::<ErrorData>() {
        return Some(data);
    }
    if let Some(error) = error.downcast_ref::<Error>() {
        return rpc_of(error);
    }
    let boxed = error.downcast_ref::<Box<dyn std::error::Error + Send + Sync>>()?;
    match boxed.downcast_ref::<ErrorData>() {
        Some(data) => Some(data),
        None => rpc_of(boxed.downcast_ref::<Error>()?),
    }
}

/// Returns the JSON-RPC error of an [`Error::Rpc`], but not the one a client transport makes
/// up for a server it could not reach, which is a local failure like a closed connection.
fn rpc_of(error: &Error) -> Option<&ErrorData> {
    let data = error.rpc()?;
    let unreachable =
        data.code == crate::jsonrpc::CONNECTION_CLOSED && data.data.as_ref().is_some_and(|d| d["unreachable"] == true);
    (!unreachable).then_some(data)
}

fn schema_object<T: JsonSchema>() -> JsonObject {
    let schema = schemars::schema_for!(T);
    match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => crate::model::empty_object_schema(),
    }
}

struct TypedTool<A, F> {
    f: F,
    args: PhantomData<fn(A)>,
}

#[async_trait]
impl<A, R, F, Fut> ToolHandler for TypedTool<A, F>
where
    A: DeserializeOwned + Send + 'static,
    R: IntoToolResult + Send + 'static,
    F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
{
    async fn call(&self, arguments: JsonObject, context: RequestContext) -> Result<CallToolResult, ErrorData> {
        let args: A = match serde_json::from_value(serde_json::Value::Object(arguments)) {
            Ok(args) => args,
            Err(e) => return Ok(CallToolResult::error(format!("Invalid arguments: {e}"))),
        };
        (self.f)(args, context).await.into_tool_result()
    }
}

/// Describes a tool whose input schema comes from `A` and output schema from `R`.
fn typed_tool<A: JsonSchema, R: IntoToolResult>(name: &str, description: &str) -> Tool {
    let mut tool = Tool::new(name, description, schema_object::<A>());
    tool.output_schema = R::output_schema();
    tool
}

impl Server {
    /// Registers a tool written as a typed async function.
    ///
    /// The input schema is derived from `A`; when the function returns [`Json<T>`], the
    /// output schema is derived from `T` and results carry structured content.
    pub fn add_typed_tool<A, R, F, Fut>(&self, name: &str, description: &str, f: F) -> Result<(), Error>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult + Send + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        self.add_tool(typed_tool::<A, R>(name, description), TypedTool { f, args: PhantomData })
    }
}

impl ServerBuilder {
    /// Adds a tool written as a typed async function; see [`Server::add_typed_tool`].
    pub fn typed_tool<A, R, F, Fut>(self, name: &str, description: &str, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult + Send + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        self.tool(typed_tool::<A, R>(name, description), TypedTool { f, args: PhantomData })
    }
}
