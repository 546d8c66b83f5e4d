//! Validates every wire type of `mcpweft::model` against the MCP 2025-11-25 JSON Schema
//! (a copy lives in `tests/data/schema.json`) and checks serde round-trips.

use std::collections::{BTreeMap, BTreeSet};

use mcpweft::jsonrpc::RequestId;
use mcpweft::model::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const SCHEMA: &str = include_str!("../data/schema.json");

/// Defs that describe JSON-RPC envelopes or message unions, not params/results/objects.
fn is_envelope(name: &str, def: &Value) -> bool {
    let props = def.get("properties");
    let has = |key: &str| props.and_then(|p| p.get(key)).is_some();
    has("jsonrpc")
        || has("method")
        || matches!(
            name,
            "ClientRequest"
                | "ServerRequest"
                | "ClientNotification"
                | "ServerNotification"
                | "JSONRPCMessage"
                | "JSONRPCResponse"
                | "Error"
        )
}

struct Checker {
    schema: Value,
    covered: BTreeSet<String>,
    failures: Vec<String>,
}

impl Checker {
    fn new() -> Self {
        Self {
            schema: serde_json::from_str(SCHEMA).expect("schema.json parses"),
            covered: BTreeSet::new(),
            failures: Vec::new(),
        }
    }

    fn defs(&self) -> &serde_json::Map<String, Value> {
        self.schema["$defs"].as_object().expect("$defs object")
    }

    /// Validates `instance` against the schema at `pointer` (e.g. `#/$defs/Tool`).
    fn validate_json(&mut self, label: &str, pointer: &str, instance: &Value) {
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": pointer,
            "$defs": self.schema["$defs"].clone(),
        });
        let validator = match jsonschema::draft202012::new(&root) {
            Ok(v) => v,
            Err(e) => {
                self.failures.push(format!("{label}: cannot build validator: {e}"));
                return;
            }
        };
        let errors: Vec<String> =
            validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        if !errors.is_empty() {
            self.failures.push(format!("{label}: schema violation(s) {errors:?} in {instance}"));
        }
    }

    /// Serializes `value`, validates it against `$defs/<def>` and checks the round trip.
    fn check<T>(&mut self, def: &str, value: &T)
    where
        T: Serialize + DeserializeOwned + std::fmt::Debug,
    {
        assert!(self.defs().contains_key(def), "no $defs/{def} in schema");
        self.covered.insert(def.to_owned());
        let json = serde_json::to_value(value).expect("serializes");
        self.validate_json(def, &format!("#/$defs/{def}"), &json);
        self.round_trip(def, &json, std::marker::PhantomData::<T>);
    }

    /// Like [`Checker::check`] for an inline sub-schema (e.g. a request's `params`).
    fn check_at<T>(&mut self, label: &str, pointer: &str, value: &T)
    where
        T: Serialize + DeserializeOwned + std::fmt::Debug,
    {
        let json = serde_json::to_value(value).expect("serializes");
        self.validate_json(label, pointer, &json);
        self.round_trip(label, &json, std::marker::PhantomData::<T>);
    }

    fn round_trip<T>(&mut self, label: &str, json: &Value, _ty: std::marker::PhantomData<T>)
    where
        T: Serialize + DeserializeOwned + std::fmt::Debug,
    {
        match serde_json::from_value::<T>(json.clone()) {
            Ok(back) => {
                let again = serde_json::to_value(&back).expect("re-serializes");
                if &again != json {
                    self.failures.push(format!("{label}: round trip changed {json} into {again}"));
                }
            }
            Err(e) => self.failures.push(format!("{label}: cannot deserialize {json}: {e}")),
        }
    }
}

fn obj(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

fn meta() -> Meta {
    obj(json!({ "com.example/trace-id": "t-42", "io.modelcontextprotocol/related-task": { "taskId": "task-1" } }))
}

fn req_meta() -> Meta {
    let mut m = meta_with_progress_token("tok-1");
    m.insert("com.example/origin".into(), json!("tests"));
    m
}

fn annotations() -> Annotations {
    Annotations::default()
        .with_audience(vec![Role::User, Role::Assistant])
        .with_priority(0.5)
        .with_last_modified("2025-01-12T15:00:58Z")
}

fn icon() -> Icon {
    Icon::new("https://example.com/icon.png")
        .with_mime_type("image/png")
        .with_sizes(vec!["48x48".into(), "any".into()])
        .with_theme(IconTheme::Dark)
}

fn implementation() -> Implementation {
    Implementation::new("example-server", "1.2.3")
        .with_title("Example Server")
        .with_description("A server used in tests.")
        .with_website_url("https://example.com")
        .with_icon(icon())
}

fn text_block() -> TextContent {
    TextContent::new("Hello").with_annotations(annotations()).with_meta(meta())
}

fn image_block() -> ImageContent {
    ImageContent::new("iVBORw0KGgo=", "image/png").with_annotations(annotations()).with_meta(meta())
}

fn audio_block() -> AudioContent {
    AudioContent::new("UklGRg==", "audio/wav").with_meta(meta())
}

fn resource_link() -> ResourceLink {
    ResourceLink::new("file:///project/src/main.rs", "main.rs")
        .with_title("Main")
        .with_description("Entry point")
        .with_mime_type("text/x-rust")
        .with_size(1024)
        .with_icon(icon())
        .with_annotations(annotations())
        .with_meta(meta())
}

fn text_contents() -> TextResourceContents {
    TextResourceContents::new("file:///project/README.md", "# Readme").with_mime_type("text/markdown").with_meta(meta())
}

fn blob_contents() -> BlobResourceContents {
    BlobResourceContents::new("file:///project/logo.png", "iVBORw0KGgo=").with_mime_type("image/png")
}

fn embedded() -> EmbeddedResource {
    EmbeddedResource::new(ResourceContents::Text(text_contents())).with_annotations(annotations()).with_meta(meta())
}

fn all_content_blocks() -> Vec<ContentBlock> {
    vec![
        ContentBlock::Text(text_block()),
        ContentBlock::Image(image_block()),
        ContentBlock::Audio(audio_block()),
        ContentBlock::ResourceLink(resource_link()),
        ContentBlock::Resource(embedded()),
        ContentBlock::embedded(ResourceContents::Blob(blob_contents())),
        ContentBlock::text("plain"),
    ]
}

fn tool_use() -> ToolUseContent {
    ToolUseContent::new("call-1", "get_weather", obj(json!({ "city": "Paris" }))).with_meta(meta())
}

fn tool_result() -> ToolResultContent {
    ToolResultContent::new("call-1", vec![ContentBlock::text("18°C")])
        .with_structured_content(obj(json!({ "temperature": 18 })))
        .with_is_error(false)
        .with_meta(meta())
}

fn input_schema() -> JsonObject {
    obj(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": { "city": { "type": "string", "minLength": 1 } },
        "required": ["city"],
        "x-unknown-keyword": true
    }))
}

fn tool() -> Tool {
    Tool::new("get_weather", "Gets the weather.", input_schema())
        .with_title("Weather")
        .with_output_schema(obj(json!({
            "type": "object",
            "properties": { "temperature": { "type": "number" } }
        })))
        .with_annotations(
            ToolAnnotations::default()
                .with_title("Weather lookup")
                .with_read_only_hint(true)
                .with_destructive_hint(false)
                .with_idempotent_hint(true)
                .with_open_world_hint(true),
        )
        .with_task_support(TaskSupport::Optional)
        .with_icon(icon())
}

fn client_capabilities() -> ClientCapabilities {
    let requests = ClientTaskRequestsCapability::default()
        .with_sampling(SamplingTasksCapability::default().with_create_message(JsonObject::new()))
        .with_elicitation(ElicitationTasksCapability::default().with_create(JsonObject::new()));
    let mut caps = ClientCapabilities::default()
        .with_experimental(obj(json!({ "com.example/feature": { "x": 1 } })))
        .with_roots(true)
        .with_elicitation(true)
        .with_tasks(
            ClientTasksCapability::default()
                .with_list(JsonObject::new())
                .with_cancel(JsonObject::new())
                .with_requests(requests),
        );
    caps.sampling = Some(SamplingCapability::default().with_context(JsonObject::new()).with_tools(JsonObject::new()));
    caps
}

fn server_capabilities() -> ServerCapabilities {
    let requests = ServerTaskRequestsCapability::default()
        .with_tools(ToolsTasksCapability::default().with_call(JsonObject::new()));
    ServerCapabilities::default()
        .with_tools(true)
        .with_prompts(false)
        .with_resources(true, true)
        .with_logging()
        .with_completions()
        .with_experimental(obj(json!({ "com.example/beta": {} })))
        .with_tasks(
            ServerTasksCapability::default()
                .with_list(JsonObject::new())
                .with_cancel(JsonObject::new())
                .with_requests(requests),
        )
}

fn task(ttl: Option<u64>) -> Task {
    let mut task = Task::new("task-1", TaskStatus::Working, "2025-11-25T10:00:00Z", "2025-11-25T10:00:05Z")
        .with_status_message("Crunching")
        .with_poll_interval(500);
    task.ttl = ttl;
    task
}

fn string_schema() -> StringSchema {
    StringSchema::default()
        .with_title("Email")
        .with_description("Your e-mail address")
        .with_min_length(3)
        .with_max_length(254)
        .with_format(StringFormat::Email)
        .with_default("a@example.com")
}

fn number_schema() -> NumberSchema {
    NumberSchema::new(NumberType::Number).with_title("Age").with_minimum(0.5).with_maximum(150.5).with_default(30.5)
}

fn boolean_schema() -> BooleanSchema {
    BooleanSchema::default().with_title("Subscribe").with_description("Receive news").with_default(true)
}

fn untitled_single() -> UntitledSingleSelectEnumSchema {
    UntitledSingleSelectEnumSchema::new(vec!["red".into(), "green".into()]).with_title("Color").with_default("red")
}

fn titled_single() -> TitledSingleSelectEnumSchema {
    TitledSingleSelectEnumSchema::new(vec![EnumOption::new("#f00", "Red"), EnumOption::new("#0f0", "Green")])
        .with_title("Color")
        .with_description("Pick one")
        .with_default("#f00")
}

fn untitled_multi() -> UntitledMultiSelectEnumSchema {
    UntitledMultiSelectEnumSchema::new(UntitledEnumItems::new(vec!["cheese".into(), "ham".into()]))
        .with_title("Toppings")
        .with_min_items(1)
        .with_max_items(2)
        .with_default(vec!["cheese".into()])
}

fn titled_multi() -> TitledMultiSelectEnumSchema {
    TitledMultiSelectEnumSchema::new(TitledEnumItems::new(vec![
        EnumOption::new("c", "Cheese"),
        EnumOption::new("h", "Ham"),
    ]))
    .with_description("Pick some")
    .with_default(vec!["h".into()])
}

fn legacy_enum() -> LegacyTitledEnumSchema {
    LegacyTitledEnumSchema::new(vec!["s".into(), "m".into()], vec!["Small".into(), "Medium".into()]).with_default("m")
}

fn elicitation_schema() -> ElicitationSchema {
    ElicitationSchema::default()
        .with_schema("https://json-schema.org/draft/2020-12/schema")
        .with_property("email", string_schema(), true)
        .with_property("age", number_schema(), false)
        .with_property("subscribe", boolean_schema(), false)
        .with_property("color", EnumSchema::Single(SingleSelectEnumSchema::Titled(titled_single())), false)
        .with_property("toppings", EnumSchema::Multi(MultiSelectEnumSchema::Untitled(untitled_multi())), false)
        .with_property("size", EnumSchema::Legacy(legacy_enum()), false)
}

fn url_params() -> ElicitRequestURLParams {
    ElicitRequestURLParams::new("Please sign in to Example", "elicit-1", "https://example.com/connect?session=abc")
        .with_task(TaskMetadata::default().with_ttl(60_000))
        .with_meta(req_meta())
}

fn sampling_message() -> SamplingMessage {
    SamplingMessage::new(
        Role::User,
        SamplingContent::Multiple(vec![
            SamplingMessageContentBlock::Text(text_block()),
            SamplingMessageContentBlock::Image(image_block()),
            SamplingMessageContentBlock::Audio(audio_block()),
        ]),
    )
    .with_meta(meta())
}

#[test]
fn every_model_type_validates_against_the_schema_and_round_trips() {
    let mut c = Checker::new();

    // The validator must reject wrong shapes, or every check below would be vacuous.
    for (def, bad) in [
        ("CallToolResult", json!({ "content": "not an array" })),
        ("Task", json!({ "taskId": "t", "status": "working" })),
        ("ContentBlock", json!({ "type": "text" })),
        ("LoggingLevel", json!("verbose")),
    ] {
        let before = c.failures.len();
        c.validate_json(def, &format!("#/$defs/{def}"), &bad);
        assert_eq!(c.failures.len(), before + 1, "{def} accepted invalid {bad}");
        c.failures.pop();
    }

    // Common building blocks.
    c.check("Annotations", &annotations());
    c.check("Icon", &icon());
    c.check("Icon", &Icon::new("data:image/png;base64,iVBORw0KGgo="));
    c.check("Icons", &Icons::default().with_icon(icon()));
    c.check("BaseMetadata", &BaseMetadata::new("n").with_title("N"));
    c.check("Implementation", &implementation());
    c.check("Implementation", &Implementation::new("bare", "0.1.0"));
    c.check("Role", &Role::Assistant);
    c.check("Cursor", &Cursor::from("opaque-cursor"));
    c.check("ProgressToken", &ProgressToken::from("tok"));
    c.check("ProgressToken", &ProgressToken::from(7));
    c.check("RequestId", &RequestId::Number(1));
    c.check("RequestId", &RequestId::String("req-1".into()));
    c.check("RequestParams", &RequestParams::default().with_meta(req_meta()));
    c.check("NotificationParams", &NotificationParams::default().with_meta(meta()));
    c.check(
        "TaskAugmentedRequestParams",
        &TaskAugmentedRequestParams::default().with_task(TaskMetadata::default().with_ttl(1000)).with_meta(req_meta()),
    );
    c.check("PaginatedRequestParams", &PaginatedRequestParams::with_cursor("c-2").with_meta(req_meta()));
    c.check("PaginatedRequestParams", &PaginatedRequestParams::default());
    c.check("PaginatedResult", &PaginatedResult::default().with_next_cursor("c-3").with_meta(meta()));
    c.check("EmptyResult", &EmptyResult::default().with_meta(meta()));
    c.check("EmptyResult", &EmptyResult::default());
    c.check("Result", &EmptyResult::default().with_meta(meta()));

    // Lifecycle and capabilities.
    c.check("ClientCapabilities", &client_capabilities());
    c.check(
        "ClientCapabilities",
        &ClientCapabilities::default().with_roots(false).with_sampling().with_elicitation(true),
    );
    c.check("ServerCapabilities", &server_capabilities());
    c.check("ServerCapabilities", &ServerCapabilities::default());
    let init = InitializeRequestParams::new(client_capabilities(), implementation()).with_meta(req_meta());
    c.check("InitializeRequestParams", &init);
    let init_result = InitializeResult::new(LATEST_PROTOCOL_VERSION, server_capabilities(), implementation())
        .with_instructions("Use the weather tool for forecasts.")
        .with_meta(meta());
    c.check("InitializeResult", &init_result);
    c.check("ServerResult", &init_result);

    // Content.
    for block in all_content_blocks() {
        c.check("ContentBlock", &block);
    }
    c.check("TextContent", &ContentBlock::Text(text_block()));
    c.check("ImageContent", &ContentBlock::image("iVBORw0KGgo=", "image/png"));
    c.check("ImageContent", &ContentBlock::Image(image_block()));
    c.check("AudioContent", &ContentBlock::Audio(audio_block()));
    c.check("AudioContent", &ContentBlock::audio("UklGRg==", "audio/wav"));
    c.check("ResourceLink", &ContentBlock::ResourceLink(resource_link()));
    c.check("ResourceLink", &ContentBlock::resource_link("file:///a.txt", "a.txt"));
    c.check("EmbeddedResource", &ContentBlock::Resource(embedded()));
    c.check("ToolUseContent", &SamplingMessageContentBlock::ToolUse(tool_use()));
    c.check("ToolResultContent", &SamplingMessageContentBlock::ToolResult(tool_result()));
    for block in [
        SamplingMessageContentBlock::Text(text_block()),
        SamplingMessageContentBlock::Image(image_block()),
        SamplingMessageContentBlock::Audio(audio_block()),
        SamplingMessageContentBlock::ToolUse(tool_use()),
        SamplingMessageContentBlock::ToolResult(tool_result()),
    ] {
        c.check("SamplingMessageContentBlock", &block);
    }

    // Resources.
    c.check("TextResourceContents", &ResourceContents::Text(text_contents()));
    c.check("TextResourceContents", &ResourceContents::text("file:///x.txt", "x").with_mime_type("text/plain"));
    c.check("BlobResourceContents", &ResourceContents::Blob(blob_contents()));
    c.check("BlobResourceContents", &ResourceContents::blob("file:///x.bin", "AAAA", "application/octet-stream"));
    c.check("ResourceContents", &ResourceContents::Text(text_contents()));
    c.check("ResourceContents", &ResourceContents::Blob(blob_contents()));
    let resource = Resource::new("file:///project/README.md", "README.md")
        .with_description("Project readme")
        .with_mime_type("text/markdown")
        .with_title("Readme")
        .with_annotations(annotations())
        .with_size(8)
        .with_icon(icon())
        .with_meta(meta());
    c.check("Resource", &resource);
    c.check("Resource", &Resource::new("file:///a", "a"));
    let template = ResourceTemplate::new("file:///project/{path}", "project-file")
        .with_title("Files")
        .with_description("Any project file")
        .with_mime_type("text/plain")
        .with_annotations(annotations())
        .with_icon(icon())
        .with_meta(meta());
    c.check("ResourceTemplate", &template);
    c.check(
        "ListResourcesResult",
        &ListResourcesResult::new(vec![resource.clone()]).with_next_cursor("next").with_meta(meta()),
    );
    c.check(
        "ListResourceTemplatesResult",
        &ListResourceTemplatesResult::new(vec![template]).with_next_cursor("next").with_meta(meta()),
    );
    let read = ResourceRequestParams::new("file:///project/README.md").with_meta(req_meta());
    c.check("ResourceRequestParams", &read);
    c.check("ReadResourceRequestParams", &read);
    c.check("SubscribeRequestParams", &read);
    c.check("UnsubscribeRequestParams", &ResourceRequestParams::new("file:///x"));
    let read_result =
        ReadResourceResult::new(vec![ResourceContents::Text(text_contents()), ResourceContents::Blob(blob_contents())])
            .with_meta(meta());
    c.check("ReadResourceResult", &read_result);
    c.check("ServerResult", &read_result);
    c.check(
        "ResourceUpdatedNotificationParams",
        &ResourceUpdatedNotificationParams::new("file:///project/README.md").with_meta(meta()),
    );

    // Tools.
    c.check("Tool", &tool());
    c.check("Tool", &Tool::without_arguments("ping", "Pings."));
    c.check(
        "ToolAnnotations",
        &ToolAnnotations::default()
            .with_title("T")
            .with_read_only_hint(false)
            .with_destructive_hint(true)
            .with_idempotent_hint(false)
            .with_open_world_hint(false),
    );
    c.check("ToolExecution", &ToolExecution::default().with_task_support(TaskSupport::Required));
    c.check(
        "ListToolsResult",
        &ListToolsResult::new(vec![tool(), Tool::without_arguments("noop", "Does nothing.")])
            .with_next_cursor("page-2")
            .with_meta(meta()),
    );
    let call = CallToolRequestParams::new("get_weather", obj(json!({ "city": "Paris" })))
        .with_task(TaskMetadata::default().with_ttl(30_000))
        .with_meta(req_meta());
    c.check("CallToolRequestParams", &call);
    let mut noop = CallToolRequestParams::default();
    noop.name = "noop".into();
    c.check("CallToolRequestParams", &noop);
    c.check("CallToolResult", &CallToolResult::text("18°C"));
    c.check("CallToolResult", &CallToolResult::error("City not found"));
    c.check("CallToolResult", &CallToolResult::structured(obj(json!({ "temperature": 18.5 }))));
    let full_result = CallToolResult::success(all_content_blocks()).with_meta(meta());
    c.check("CallToolResult", &full_result);
    c.check("ServerResult", &full_result);

    // Prompts.
    let prompt = Prompt::new("code_review")
        .with_description("Reviews code")
        .with_argument(PromptArgument::new("code", true).with_description("The code").with_title("Code"))
        .with_title("Code review")
        .with_icon(icon())
        .with_meta(meta());
    c.check("Prompt", &prompt);
    c.check("PromptArgument", &PromptArgument::new("lang", false).with_description("Language"));
    c.check("ListPromptsResult", &ListPromptsResult::new(vec![prompt, Prompt::new("bare")]).with_meta(meta()));
    c.check(
        "GetPromptRequestParams",
        &GetPromptRequestParams::new("code_review")
            .with_arguments(obj(json!({ "code": "fn main() {}" })))
            .with_meta(req_meta()),
    );
    c.check("PromptMessage", &PromptMessage::user_text("Review this"));
    c.check("PromptMessage", &PromptMessage::new(Role::Assistant, ContentBlock::Resource(embedded())));
    c.check(
        "GetPromptResult",
        &GetPromptResult::new(vec![
            PromptMessage::user_text("Review this"),
            PromptMessage::assistant_text("Looks good"),
            PromptMessage::new(Role::User, ContentBlock::Image(image_block())),
        ])
        .with_description("A review")
        .with_meta(meta()),
    );

    // Completion.
    let prompt_ref = PromptReference::new("code_review").with_title("Code review");
    c.check("PromptReference", &CompletionReference::Prompt(prompt_ref.clone()));
    c.check(
        "ResourceTemplateReference",
        &CompletionReference::Resource(ResourceTemplateReference::new("file:///project/{path}")),
    );
    c.check(
        "CompleteRequestParams",
        &CompleteRequestParams::new(CompletionReference::Prompt(prompt_ref), CompletionArgument::new("lang", "py"))
            .with_context(
                CompletionContext::default().with_arguments(IndexMap::from([("code".into(), "x = 1".into())])),
            )
            .with_meta(req_meta()),
    );
    c.check(
        "CompleteRequestParams",
        &CompleteRequestParams::new(
            CompletionReference::Resource(ResourceTemplateReference::new("file:///{path}")),
            CompletionArgument::new("path", "sr"),
        ),
    );
    let complete = CompleteResult::new(vec!["python".into(), "pytorch".into()]).with_meta(meta());
    c.check("CompleteResult", &complete);
    c.check("ServerResult", &complete);

    // Logging.
    for level in [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ] {
        c.check("LoggingLevel", &level);
    }
    c.check("SetLevelRequestParams", &SetLevelRequestParams::new(LoggingLevel::Warning).with_meta(req_meta()));
    c.check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams::new(
            LoggingLevel::Error,
            json!({ "error": "Connection failed", "details": { "host": "localhost" } }),
        )
        .with_logger("db")
        .with_meta(meta()),
    );
    c.check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams::new(LoggingLevel::Info, "plain string"),
    );

    // Progress and cancellation.
    c.check(
        "ProgressNotificationParams",
        &ProgressNotificationParams::new(ProgressToken::from(7), 50.0, Some(100.0))
            .with_message("Halfway")
            .with_meta(meta()),
    );
    c.check("ProgressNotificationParams", &ProgressNotificationParams::new(ProgressToken::from("tok"), 0.25, None));
    c.check(
        "CancelledNotificationParams",
        &CancelledNotificationParams::new(
            RequestId::String("req-9".into()),
            Some("User requested cancellation".into()),
        )
        .with_meta(meta()),
    );
    c.check("CancelledNotificationParams", &CancelledNotificationParams::new(RequestId::Number(9), None));

    // Roots.
    let root = Root::new("file:///home/user/project").with_name("Project").with_meta(meta());
    c.check("Root", &root);
    let roots = ListRootsResult::new(vec![root, Root::new("file:///tmp")]).with_meta(meta());
    c.check("ListRootsResult", &roots);
    c.check("ClientResult", &roots);

    // Sampling.
    c.check("SamplingMessage", &sampling_message());
    c.check("SamplingMessage", &SamplingMessage::user_text("Hi"));
    c.check(
        "SamplingMessage",
        &SamplingMessage::new(
            Role::User,
            SamplingContent::Multiple(vec![SamplingMessageContentBlock::ToolResult(tool_result())]),
        ),
    );
    c.check("ModelHint", &ModelHint::default().with_name("claude-3-5-sonnet"));
    let prefs = ModelPreferences::default()
        .with_hints(vec![ModelHint::default().with_name("sonnet")])
        .with_cost_priority(0.3)
        .with_speed_priority(0.8)
        .with_intelligence_priority(0.5);
    c.check("ModelPreferences", &prefs);
    c.check("ToolChoice", &ToolChoice::default().with_mode(ToolChoiceMode::Required));
    c.check("ToolChoice", &ToolChoice::default());
    let create = CreateMessageRequestParams::new(
        vec![
            sampling_message(),
            SamplingMessage::new(
                Role::Assistant,
                SamplingContent::Single(SamplingMessageContentBlock::ToolUse(tool_use())),
            ),
        ],
        100,
    )
    .with_model_preferences(prefs)
    .with_system_prompt("You are helpful.")
    .with_include_context(IncludeContext::ThisServer)
    .with_temperature(0.7)
    .with_stop_sequences(vec!["\n\n".into()])
    .with_metadata(obj(json!({ "provider": { "top_k": 5 } })))
    .with_tools(vec![tool()])
    .with_tool_choice(ToolChoice::default().with_mode(ToolChoiceMode::Auto))
    .with_task(TaskMetadata::default().with_ttl(10_000))
    .with_meta(req_meta());
    c.check("CreateMessageRequestParams", &create);
    c.check("CreateMessageRequestParams", &CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Hi")], 10));
    let created = CreateMessageResult::new(
        Role::Assistant,
        SamplingContent::Single(SamplingMessageContentBlock::text("Paris")),
        "claude-3-sonnet-20240307",
    )
    .with_stop_reason(StopReason::EndTurn)
    .with_meta(meta());
    c.check("CreateMessageResult", &created);
    c.check("ClientResult", &created);
    c.check(
        "CreateMessageResult",
        &CreateMessageResult::new(
            Role::Assistant,
            SamplingContent::Multiple(vec![
                SamplingMessageContentBlock::text("Let me check."),
                SamplingMessageContentBlock::ToolUse(tool_use()),
            ]),
            "m",
        )
        .with_stop_reason(StopReason::ToolUse),
    );
    c.check(
        "CreateMessageResult",
        &CreateMessageResult::new(
            Role::Assistant,
            SamplingContent::Single(SamplingMessageContentBlock::text("x")),
            "m",
        )
        .with_stop_reason(StopReason::Other("contentFilter".into())),
    );

    // Elicitation.
    let string_def = PrimitiveSchemaDefinition::String(string_schema());
    c.check("StringSchema", &string_def);
    c.check("StringSchema", &PrimitiveSchemaDefinition::String(StringSchema::default()));
    c.check("NumberSchema", &PrimitiveSchemaDefinition::Number(number_schema()));
    c.check("NumberSchema", &PrimitiveSchemaDefinition::Number(NumberSchema::new(NumberType::Integer)));
    c.check("BooleanSchema", &PrimitiveSchemaDefinition::Boolean(boolean_schema()));
    c.check("StringSchema", &string_schema());
    c.check("NumberSchema", &number_schema());
    c.check("BooleanSchema", &boolean_schema());
    c.check("UntitledSingleSelectEnumSchema", &untitled_single());
    c.check("TitledSingleSelectEnumSchema", &titled_single());
    c.check("UntitledMultiSelectEnumSchema", &untitled_multi());
    c.check("TitledMultiSelectEnumSchema", &titled_multi());
    c.check("LegacyTitledEnumSchema", &legacy_enum());
    let single_defs =
        [SingleSelectEnumSchema::Untitled(untitled_single()), SingleSelectEnumSchema::Titled(titled_single())];
    let multi_defs = [MultiSelectEnumSchema::Untitled(untitled_multi()), MultiSelectEnumSchema::Titled(titled_multi())];
    for s in &single_defs {
        c.check("SingleSelectEnumSchema", s);
        c.check("EnumSchema", &EnumSchema::Single(s.clone()));
        c.check("PrimitiveSchemaDefinition", &PrimitiveSchemaDefinition::Enum(EnumSchema::Single(s.clone())));
    }
    for m in &multi_defs {
        c.check("MultiSelectEnumSchema", m);
        c.check("EnumSchema", &EnumSchema::Multi(m.clone()));
        c.check("PrimitiveSchemaDefinition", &PrimitiveSchemaDefinition::Enum(EnumSchema::Multi(m.clone())));
    }
    c.check("EnumSchema", &EnumSchema::Legacy(legacy_enum()));
    for p in [
        string_def,
        PrimitiveSchemaDefinition::Number(number_schema()),
        PrimitiveSchemaDefinition::Boolean(boolean_schema()),
        PrimitiveSchemaDefinition::Enum(EnumSchema::Legacy(legacy_enum())),
    ] {
        c.check("PrimitiveSchemaDefinition", &p);
    }
    c.check_at(
        "ElicitRequestFormParams.requestedSchema",
        "#/$defs/ElicitRequestFormParams/properties/requestedSchema",
        &elicitation_schema(),
    );
    let form = ElicitRequestFormParams::new("Please provide your details", &elicitation_schema())
        .with_task(TaskMetadata::default().with_ttl(5_000))
        .with_meta(req_meta());
    c.check("ElicitRequestFormParams", &form);
    c.check("ElicitRequestURLParams", &url_params());
    c.check("ElicitRequestParams", &ElicitRequestParams::Form(form));
    c.check("ElicitRequestParams", &ElicitRequestParams::Url(url_params()));
    let accepted = ElicitResult::accept(BTreeMap::from([
        ("email".into(), ElicitContentValue::String("a@example.com".into())),
        ("age".into(), ElicitContentValue::Number(30.into())),
        ("subscribe".into(), ElicitContentValue::Boolean(true)),
        ("toppings".into(), ElicitContentValue::StringArray(vec!["cheese".into()])),
    ]))
    .with_meta(meta());
    c.check("ElicitResult", &accepted);
    c.check("ClientResult", &accepted);
    c.check("ElicitResult", &ElicitResult::decline());
    c.check("ElicitResult", &ElicitResult::cancel());
    c.check_at(
        "ElicitationCompleteNotificationParams",
        "#/$defs/ElicitationCompleteNotification/properties/params",
        &ElicitationCompleteNotificationParams::new("elicit-1").with_meta(meta()),
    );
    let error_data = URLElicitationRequiredErrorData::new(vec![url_params()]);
    c.validate_json(
        "URLElicitationRequiredErrorData",
        "#/$defs/URLElicitationRequiredError",
        &json!({
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": -32042,
                "message": "This request requires more information.",
                "data": serde_json::to_value(&error_data).unwrap()
            }
        }),
    );
    c.round_trip(
        "URLElicitationRequiredErrorData",
        &serde_json::to_value(&error_data).unwrap(),
        std::marker::PhantomData::<URLElicitationRequiredErrorData>,
    );

    // Tasks.
    for status in [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ] {
        c.check("TaskStatus", &status);
    }
    c.check("Task", &task(Some(60_000)));
    c.check("Task", &task(None));
    c.check("TaskMetadata", &TaskMetadata::default().with_ttl(60_000));
    c.check("TaskMetadata", &TaskMetadata::default());
    c.check("RelatedTaskMetadata", &RelatedTaskMetadata::new("task-1"));
    let mut create_meta = meta();
    create_meta.insert(MODEL_IMMEDIATE_RESPONSE_META_KEY.into(), json!("Working on it."));
    let create_task = CreateTaskResult::new(task(Some(60_000))).with_meta(create_meta);
    c.check("CreateTaskResult", &create_task);
    c.check("ServerResult", &create_task);
    c.check("ClientResult", &create_task);
    let with_meta = TaskWithMeta::new(task(None)).with_meta(meta());
    c.check("GetTaskResult", &with_meta);
    c.check("GetTaskResult", &TaskWithMeta::from(task(Some(1))));
    let mut cancelled = task(Some(1000));
    cancelled.status = TaskStatus::Cancelled;
    c.check("CancelTaskResult", &TaskWithMeta::from(cancelled));
    c.check("TaskStatusNotificationParams", &with_meta);
    c.check(
        "ListTasksResult",
        &ListTasksResult::new(vec![task(Some(1)), task(None)]).with_next_cursor("more").with_meta(meta()),
    );
    c.check(
        "GetTaskPayloadResult",
        &GetTaskPayloadResult::new(obj(serde_json::to_value(CallToolResult::text("done")).unwrap())).with_meta(meta()),
    );
    let task_id_params = TaskIdRequestParams::new("task-1").with_meta(meta());
    for (label, pointer) in [
        ("GetTaskRequestParams", "#/$defs/GetTaskRequest/properties/params"),
        ("GetTaskPayloadRequestParams", "#/$defs/GetTaskPayloadRequest/properties/params"),
        ("CancelTaskRequestParams", "#/$defs/CancelTaskRequest/properties/params"),
    ] {
        c.check_at(label, pointer, &task_id_params);
    }
    c.check("PaginatedRequestParams", &PaginatedRequestParams::with_cursor("t"));

    // Coverage: every def that is not a JSON-RPC envelope must have been checked.
    let uncovered: Vec<&String> = c
        .defs()
        .iter()
        .filter(|(name, def)| !is_envelope(name, def) && !c.covered.contains(*name))
        .map(|(name, _)| name)
        .collect();
    println!("schema coverage: {} of {} defs checked directly", c.covered.len(), c.defs().len());
    assert!(uncovered.is_empty(), "defs without a sample: {uncovered:?}");
    assert!(c.failures.is_empty(), "{} failure(s):\n{}", c.failures.len(), c.failures.join("\n"));
}

#[test]
fn unknown_fields_are_tolerated_and_meta_survives() {
    let input = json!({
        "name": "get_weather",
        "description": "Gets the weather.",
        "inputSchema": { "type": "object", "x-vendor": { "deep": [1, 2] } },
        "futureField": { "anything": true },
        "_meta": { "com.example/a": 1, "io.modelcontextprotocol/related-task": { "taskId": "t" } }
    });
    let tool: Tool = serde_json::from_value(input.clone()).expect("unknown field tolerated");
    assert_eq!(tool.input_schema["x-vendor"], json!({ "deep": [1, 2] }));
    let out = serde_json::to_value(&tool).unwrap();
    assert_eq!(out["_meta"], input["_meta"]);
    assert!(out.get("futureField").is_none());
    assert!(out.get("title").is_none(), "absent optional fields are not emitted");

    let result: CallToolResult = serde_json::from_value(json!({
        "content": [{ "type": "text", "text": "hi", "extra": 1, "_meta": { "k": "v" } }],
        "structuredContent": { "a": { "b": null } },
        "newThing": 5,
        "_meta": { "com.example/x": [1] }
    }))
    .unwrap();
    let out = serde_json::to_value(&result).unwrap();
    assert_eq!(out["_meta"], json!({ "com.example/x": [1] }));
    assert_eq!(out["content"][0]["_meta"], json!({ "k": "v" }));
    assert_eq!(out["structuredContent"], json!({ "a": { "b": null } }));

    let caps: ServerCapabilities = serde_json::from_value(json!({
        "tools": { "listChanged": true, "futureFlag": true },
        "somethingNew": {}
    }))
    .unwrap();
    assert_eq!(caps.tools.unwrap().list_changed, Some(true));

    let params: CallToolRequestParams = serde_json::from_value(json!({
        "name": "x",
        "_meta": { "progressToken": 42 }
    }))
    .unwrap();
    assert_eq!(params.progress_token(), Some(ProgressToken::Number(42)));
    assert_eq!(serde_json::to_value(&params).unwrap()["_meta"]["progressToken"], json!(42));
}

#[test]
fn wire_quirks() {
    // Elicitation mode absent means form; `mode: "url"` selects URL mode.
    let p: ElicitRequestParams = serde_json::from_value(json!({
        "message": "Name?",
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
    }))
    .unwrap();
    assert!(matches!(p, ElicitRequestParams::Form(_)));
    let p: ElicitRequestParams = serde_json::from_value(json!({
        "mode": "url", "message": "Sign in", "elicitationId": "e", "url": "https://example.com"
    }))
    .unwrap();
    assert!(matches!(p, ElicitRequestParams::Url(_)));
    assert!(
        serde_json::from_value::<ElicitRequestParams>(json!({ "mode": "carrier-pigeon", "message": "?" })).is_err()
    );
    if let ElicitRequestParams::Form(form) = serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "form", "message": "x", "requestedSchema": serde_json::to_value(elicitation_schema()).unwrap()
    }))
    .unwrap()
    {
        assert_eq!(form.typed_schema().unwrap(), elicitation_schema());
    } else {
        panic!("expected form mode");
    }

    // Task.ttl is always serialized, as null when unlimited.
    let t = serde_json::to_value(task(None)).unwrap();
    assert_eq!(t.get("ttl"), Some(&Value::Null));
    let flat = serde_json::to_value(TaskWithMeta::from(task(None))).unwrap();
    assert_eq!(flat.get("ttl"), Some(&Value::Null));
    assert_eq!(flat["taskId"], json!("task-1"));

    // Progress tokens and request ids keep their JSON type.
    for raw in [json!("1"), json!(1)] {
        let token: ProgressToken = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(serde_json::to_value(&token).unwrap(), raw);
        let params: CancelledNotificationParams = serde_json::from_value(json!({ "requestId": raw })).unwrap();
        assert_eq!(serde_json::to_value(&params).unwrap()["requestId"], raw);
    }

    // Sampling content may be a single block or an array.
    let single: SamplingMessage =
        serde_json::from_value(json!({ "role": "user", "content": { "type": "text", "text": "a" } })).unwrap();
    assert_eq!(single.content.blocks().len(), 1);
    assert!(matches!(single.content, SamplingContent::Single(_)));
    let multi: SamplingMessage = serde_json::from_value(
        json!({ "role": "user", "content": [{ "type": "text", "text": "a" }, { "type": "text", "text": "b" }] }),
    )
    .unwrap();
    assert_eq!(multi.content.blocks().len(), 2);

    // Logging levels are ordered by severity.
    assert!(LoggingLevel::Debug < LoggingLevel::Info);
    assert!(LoggingLevel::Notice < LoggingLevel::Warning);
    assert!(LoggingLevel::Critical < LoggingLevel::Alert);
    assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
    assert_eq!(serde_json::to_value(LoggingLevel::Warning).unwrap(), json!("warning"));

    // Structured tool results mirror their JSON in a text block.
    let r = CallToolResult::structured(obj(json!({ "a": 1 })));
    let text = r.content[0].as_text().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), json!({ "a": 1 }));
    assert!(CallToolResult::error("x").is_error());

    // Version negotiation.
    assert_eq!(negotiate_protocol_version("2025-06-18"), "2025-06-18");
    assert_eq!(negotiate_protocol_version("1999-01-01"), LATEST_PROTOCOL_VERSION);
    assert!(is_supported_protocol_version("2024-11-05"));

    // Embedded resource contents are discriminated by `text` vs `blob`.
    let blob: ResourceContents = serde_json::from_value(json!({ "uri": "file:///b", "blob": "AAAA" })).unwrap();
    assert!(matches!(blob, ResourceContents::Blob(_)));
    assert_eq!(methods::TOOLS_CALL, "tools/call");
}

#[test]
fn jsonrpc_envelopes_validate_against_the_schema() {
    use mcpweft::jsonrpc::{ErrorData, JsonRpcMessage};
    let mut c = Checker::new();
    let call = CallToolRequestParams::new("add", obj(json!({ "a": 1, "b": 2 })));
    let cases = [
        ("JSONRPCRequest", JsonRpcMessage::request(RequestId::Number(1), "tools/call", Some(json!(call)))),
        ("CallToolRequest", JsonRpcMessage::request(RequestId::String("a".into()), "tools/call", Some(json!(call)))),
        ("PingRequest", JsonRpcMessage::request(RequestId::Number(2), "ping", None)),
        ("JSONRPCNotification", JsonRpcMessage::notification("notifications/initialized", None)),
        ("InitializedNotification", JsonRpcMessage::notification("notifications/initialized", None)),
        ("JSONRPCResultResponse", JsonRpcMessage::response(RequestId::Number(1), json!({ "content": [] }))),
        ("JSONRPCErrorResponse", JsonRpcMessage::error(Some(RequestId::Number(1)), ErrorData::method_not_found("x"))),
        ("JSONRPCErrorResponse", JsonRpcMessage::error(None, ErrorData::parse_error("bad JSON"))),
        ("JSONRPCMessage", JsonRpcMessage::error(None, ErrorData::invalid_request("batch"))),
    ];
    for (def, message) in cases {
        let value: Value = serde_json::from_slice(&message.encode()).expect("encodes to JSON");
        c.validate_json(def, &format!("#/$defs/{def}"), &value);
        let decoded = JsonRpcMessage::decode(&message.encode()).expect("decodes");
        assert_eq!(decoded, message, "{def} round trip");
    }
    assert!(c.failures.is_empty(), "{:#?}", c.failures);
}

#[test]
fn form_fields_and_submitted_values_keep_their_order() {
    let schema = elicitation_schema();
    let fields = ["email", "age", "subscribe"];
    assert!(schema.properties.keys().map(String::as_str).take(3).eq(fields));
    let json = schema.to_json_object();
    assert!(json["properties"].as_object().unwrap().keys().map(String::as_str).take(3).eq(fields));
    let typed = ElicitRequestFormParams::new("Sign up", &schema).typed_schema().unwrap();
    assert!(typed.properties.keys().map(String::as_str).take(3).eq(fields));

    let answer: ElicitResult = serde_json::from_value(json!({
        "action": "accept",
        "content": { "zip": "75001", "age": 30, "city": "Paris" }
    }))
    .unwrap();
    assert!(answer.content.as_ref().unwrap().keys().map(String::as_str).eq(["zip", "age", "city"]));
    let back = serde_json::to_value(&answer).unwrap();
    assert!(back["content"].as_object().unwrap().keys().map(String::as_str).eq(["zip", "age", "city"]));
}
