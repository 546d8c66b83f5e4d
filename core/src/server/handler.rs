//! The language-neutral handler traits a server is built from.
//!
//! Each trait takes JSON-shaped input and returns a wire result, so a binding implements it
//! once for the host language's callables. Plain async closures implement them too.

use std::{collections::HashMap, future::Future};

use async_trait::async_trait;

use super::RequestContext;
use crate::{
    jsonrpc::ErrorData,
    model::{
        CallToolResult, CompleteRequestParams, CompleteResult, GetPromptResult, JsonObject, ReadResourceResult,
        Resource,
    },
};

/// Runs a tool: arguments in, a `CallToolResult` out.
///
/// Arguments have already been validated against the tool's input schema. Return
/// [`CallToolResult::error`] for a failure the model should see, and an [`ErrorData`] only
/// for a protocol-level failure.
#[async_trait]
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool.
    async fn call(&self, arguments: JsonObject, context: RequestContext) -> Result<CallToolResult, ErrorData>;
}

#[async_trait]
impl<F, Fut> ToolHandler for F
where
    F: Fn(JsonObject, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
{
    async fn call(&self, arguments: JsonObject, context: RequestContext) -> Result<CallToolResult, ErrorData> {
        self(arguments, context).await
    }
}

/// What a resource read asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceRequest {
    /// The URI being read.
    pub uri: String,
    /// The values of the template's variables, when the URI matched a template.
    pub variables: HashMap<String, String>,
}

/// Reads a resource, or every resource matching a URI template.
#[async_trait]
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads the resource. Answer [`ErrorData::resource_not_found`] when it does not exist.
    async fn read(&self, request: ResourceRequest, context: RequestContext) -> Result<ReadResourceResult, ErrorData>;
}

#[async_trait]
impl<F, Fut> ResourceHandler for F
where
    F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, ErrorData>> + Send + 'static,
{
    async fn read(&self, request: ResourceRequest, context: RequestContext) -> Result<ReadResourceResult, ErrorData> {
        self(request, context).await
    }
}

/// Lists the resources that a resource template stands for, so that `resources/list` shows
/// them beside the fixed resources (the TypeScript SDK's `ResourceTemplate` `list` callback).
#[async_trait]
pub trait ResourceLister: Send + Sync + 'static {
    /// Returns the resources to list now.
    async fn list(&self, context: RequestContext) -> Result<Vec<Resource>, ErrorData>;
}

#[async_trait]
impl<F, Fut> ResourceLister for F
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<Resource>, ErrorData>> + Send + 'static,
{
    async fn list(&self, context: RequestContext) -> Result<Vec<Resource>, ErrorData> {
        self(context).await
    }
}

/// Renders a prompt from its arguments.
///
/// Required arguments have already been checked to be present.
#[async_trait]
pub trait PromptHandler: Send + Sync + 'static {
    /// Returns the prompt's messages.
    async fn get(
        &self,
        arguments: HashMap<String, String>,
        context: RequestContext,
    ) -> Result<GetPromptResult, ErrorData>;
}

#[async_trait]
impl<F, Fut> PromptHandler for F
where
    F: Fn(HashMap<String, String>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'static,
{
    async fn get(
        &self,
        arguments: HashMap<String, String>,
        context: RequestContext,
    ) -> Result<GetPromptResult, ErrorData> {
        self(arguments, context).await
    }
}

/// Suggests values for a prompt or resource-template argument.
#[async_trait]
pub trait CompletionHandler: Send + Sync + 'static {
    /// Returns the suggestions, best first.
    async fn complete(
        &self,
        params: CompleteRequestParams,
        context: RequestContext,
    ) -> Result<CompleteResult, ErrorData>;
}

#[async_trait]
impl<F, Fut> CompletionHandler for F
where
    F: Fn(CompleteRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CompleteResult, ErrorData>> + Send + 'static,
{
    async fn complete(
        &self,
        params: CompleteRequestParams,
        context: RequestContext,
    ) -> Result<CompleteResult, ErrorData> {
        self(params, context).await
    }
}
