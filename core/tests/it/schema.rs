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
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    }
}

fn icon() -> Icon {
    Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into(), "any".into()]),
        theme: Some(IconTheme::Dark),
    }
}

fn implementation() -> Implementation {
    Implementation::new("example-server", "1.2.3")
        .with_title("Example Server")
        .with_description("A server used in tests.")
        .with_website_url("https://example.com")
        .with_icon(icon())
}

fn text_block() -> TextContent {
    TextContent { text: "Hello".into(), annotations: Some(annotations()), meta: Some(meta()) }
}

fn image_block() -> ImageContent {
    ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
        annotations: Some(annotations()),
        meta: Some(meta()),
    }
}

fn audio_block() -> AudioContent {
    AudioContent { data: "UklGRg==".into(), mime_type: "audio/wav".into(), annotations: None, meta: Some(meta()) }
}

fn resource_link() -> ResourceLink {
    ResourceLink {
        uri: "file:///project/src/main.rs".into(),
        name: "main.rs".into(),
        title: Some("Main".into()),
        description: Some("Entry point".into()),
        mime_type: Some("text/x-rust".into()),
        size: Some(1024),
        icons: Some(vec![icon()]),
        annotations: Some(annotations()),
        meta: Some(meta()),
    }
}

fn text_contents() -> TextResourceContents {
    TextResourceContents {
        uri: "file:///project/README.md".into(),
        mime_type: Some("text/markdown".into()),
        text: "# Readme".into(),
        meta: Some(meta()),
    }
}

fn blob_contents() -> BlobResourceContents {
    BlobResourceContents {
        uri: "file:///project/logo.png".into(),
        mime_type: Some("image/png".into()),
        blob: "iVBORw0KGgo=".into(),
        meta: None,
    }
}

fn embedded() -> EmbeddedResource {
    EmbeddedResource {
        resource: ResourceContents::Text(text_contents()),
        annotations: Some(annotations()),
        meta: Some(meta()),
    }
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
    ToolUseContent {
        id: "call-1".into(),
        name: "get_weather".into(),
        input: obj(json!({ "city": "Paris" })),
        meta: Some(meta()),
    }
}

fn tool_result() -> ToolResultContent {
    ToolResultContent {
        tool_use_id: "call-1".into(),
        content: vec![ContentBlock::text("18°C")],
        structured_content: Some(obj(json!({ "temperature": 18 }))),
        is_error: Some(false),
        meta: Some(meta()),
    }
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
        .with_annotations(ToolAnnotations {
            title: Some("Weather lookup".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
        })
        .with_task_support(TaskSupport::Optional)
        .with_icon(icon())
}

fn client_capabilities() -> ClientCapabilities {
    ClientCapabilities {
        experimental: Some(obj(json!({ "com.example/feature": { "x": 1 } }))),
        roots: Some(RootsCapability { list_changed: Some(true) }),
        sampling: Some(SamplingCapability { context: Some(JsonObject::new()), tools: Some(JsonObject::new()) }),
        elicitation: Some(ElicitationCapability { form: Some(JsonObject::new()), url: Some(JsonObject::new()) }),
        tasks: Some(ClientTasksCapability {
            list: Some(JsonObject::new()),
            cancel: Some(JsonObject::new()),
            requests: Some(ClientTaskRequestsCapability {
                sampling: Some(SamplingTasksCapability { create_message: Some(JsonObject::new()) }),
                elicitation: Some(ElicitationTasksCapability { create: Some(JsonObject::new()) }),
            }),
        }),
        extensions: None,
    }
}

fn server_capabilities() -> ServerCapabilities {
    let mut caps = ServerCapabilities::default()
        .with_tools(true)
        .with_prompts(false)
        .with_resources(true, true)
        .with_logging()
        .with_completions();
    caps.experimental = Some(obj(json!({ "com.example/beta": {} })));
    caps.tasks = Some(ServerTasksCapability {
        list: Some(JsonObject::new()),
        cancel: Some(JsonObject::new()),
        requests: Some(ServerTaskRequestsCapability {
            tools: Some(ToolsTasksCapability { call: Some(JsonObject::new()) }),
        }),
    });
    caps
}

fn task(ttl: Option<u64>) -> Task {
    Task {
        task_id: "task-1".into(),
        status: TaskStatus::Working,
        status_message: Some("Crunching".into()),
        created_at: "2025-11-25T10:00:00Z".into(),
        last_updated_at: "2025-11-25T10:00:05Z".into(),
        ttl,
        poll_interval: Some(500),
    }
}

fn string_schema() -> StringSchema {
    StringSchema {
        title: Some("Email".into()),
        description: Some("Your e-mail address".into()),
        min_length: Some(3),
        max_length: Some(254),
        format: Some(StringFormat::Email),
        default: Some("a@example.com".into()),
        ..StringSchema::default()
    }
}

fn number_schema() -> NumberSchema {
    NumberSchema {
        r#type: NumberType::Number,
        title: Some("Age".into()),
        description: None,
        minimum: Some(0.5),
        maximum: Some(150.5),
        default: Some(30.5),
    }
}

fn boolean_schema() -> BooleanSchema {
    BooleanSchema {
        title: Some("Subscribe".into()),
        description: Some("Receive news".into()),
        default: Some(true),
        ..BooleanSchema::default()
    }
}

fn untitled_single() -> UntitledSingleSelectEnumSchema {
    UntitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        r#enum: vec!["red".into(), "green".into()],
        default: Some("red".into()),
        ..Default::default()
    }
}

fn titled_single() -> TitledSingleSelectEnumSchema {
    TitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        one_of: vec![EnumOption::new("#f00", "Red"), EnumOption::new("#0f0", "Green")],
        default: Some("#f00".into()),
        ..Default::default()
    }
}

fn untitled_multi() -> UntitledMultiSelectEnumSchema {
    UntitledMultiSelectEnumSchema {
        title: Some("Toppings".into()),
        min_items: Some(1),
        max_items: Some(2),
        items: UntitledEnumItems { r#enum: vec!["cheese".into(), "ham".into()], ..Default::default() },
        default: Some(vec!["cheese".into()]),
        ..Default::default()
    }
}

fn titled_multi() -> TitledMultiSelectEnumSchema {
    TitledMultiSelectEnumSchema {
        description: Some("Pick some".into()),
        items: TitledEnumItems { any_of: vec![EnumOption::new("c", "Cheese"), EnumOption::new("h", "Ham")] },
        default: Some(vec!["h".into()]),
        ..Default::default()
    }
}

fn legacy_enum() -> LegacyTitledEnumSchema {
    LegacyTitledEnumSchema {
        r#enum: vec!["s".into(), "m".into()],
        enum_names: vec!["Small".into(), "Medium".into()],
        default: Some("m".into()),
        ..Default::default()
    }
}

fn elicitation_schema() -> ElicitationSchema {
    ElicitationSchema {
        schema: Some("https://json-schema.org/draft/2020-12/schema".into()),
        ..ElicitationSchema::default()
    }
    .with_property("email", string_schema(), true)
    .with_property("age", number_schema(), false)
    .with_property("subscribe", boolean_schema(), false)
    .with_property("color", EnumSchema::Single(SingleSelectEnumSchema::Titled(titled_single())), false)
    .with_property("toppings", EnumSchema::Multi(MultiSelectEnumSchema::Untitled(untitled_multi())), false)
    .with_property("size", EnumSchema::Legacy(legacy_enum()), false)
}

fn url_params() -> ElicitRequestURLParams {
    let mut p =
        ElicitRequestURLParams::new("Please sign in to Example", "elicit-1", "https://example.com/connect?session=abc");
    p.task = Some(TaskMetadata { ttl: Some(60_000) });
    p.meta = Some(req_meta());
    p
}

fn sampling_message() -> SamplingMessage {
    SamplingMessage {
        role: Role::User,
        content: SamplingContent::Multiple(vec![
            SamplingMessageContentBlock::Text(text_block()),
            SamplingMessageContentBlock::Image(image_block()),
            SamplingMessageContentBlock::Audio(audio_block()),
        ]),
        meta: Some(meta()),
    }
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
    c.check("Icons", &Icons { icons: Some(vec![icon()]) });
    c.check("BaseMetadata", &BaseMetadata { name: "n".into(), title: Some("N".into()) });
    c.check("Implementation", &implementation());
    c.check("Implementation", &Implementation::new("bare", "0.1.0"));
    c.check("Role", &Role::Assistant);
    c.check("Cursor", &Cursor::from("opaque-cursor"));
    c.check("ProgressToken", &ProgressToken::from("tok"));
    c.check("ProgressToken", &ProgressToken::from(7));
    c.check("RequestId", &RequestId::Number(1));
    c.check("RequestId", &RequestId::String("req-1".into()));
    c.check("RequestParams", &RequestParams { meta: Some(req_meta()) });
    c.check("NotificationParams", &NotificationParams { meta: Some(meta()) });
    c.check(
        "TaskAugmentedRequestParams",
        &TaskAugmentedRequestParams { task: Some(TaskMetadata { ttl: Some(1000) }), meta: Some(req_meta()) },
    );
    c.check("PaginatedRequestParams", &PaginatedRequestParams { cursor: Some("c-2".into()), meta: Some(req_meta()) });
    c.check("PaginatedRequestParams", &PaginatedRequestParams::default());
    c.check("PaginatedResult", &PaginatedResult { next_cursor: Some("c-3".into()), meta: Some(meta()) });
    c.check("EmptyResult", &EmptyResult { meta: Some(meta()) });
    c.check("EmptyResult", &EmptyResult::default());
    c.check("Result", &EmptyResult { meta: Some(meta()) });

    // Lifecycle and capabilities.
    c.check("ClientCapabilities", &client_capabilities());
    c.check(
        "ClientCapabilities",
        &ClientCapabilities::default().with_roots(false).with_sampling().with_elicitation(true),
    );
    c.check("ServerCapabilities", &server_capabilities());
    c.check("ServerCapabilities", &ServerCapabilities::default());
    let mut init = InitializeRequestParams::new(client_capabilities(), implementation());
    init.meta = Some(req_meta());
    c.check("InitializeRequestParams", &init);
    let mut init_result = InitializeResult::new(LATEST_PROTOCOL_VERSION, server_capabilities(), implementation())
        .with_instructions("Use the weather tool for forecasts.");
    init_result.meta = Some(meta());
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
    let resource = Resource {
        title: Some("Readme".into()),
        annotations: Some(annotations()),
        size: Some(8),
        icons: Some(vec![icon()]),
        meta: Some(meta()),
        ..Resource::new("file:///project/README.md", "README.md")
            .with_description("Project readme")
            .with_mime_type("text/markdown")
    };
    c.check("Resource", &resource);
    c.check("Resource", &Resource::new("file:///a", "a"));
    let template = ResourceTemplate {
        title: Some("Files".into()),
        description: Some("Any project file".into()),
        mime_type: Some("text/plain".into()),
        annotations: Some(annotations()),
        icons: Some(vec![icon()]),
        meta: Some(meta()),
        ..ResourceTemplate::new("file:///project/{path}", "project-file")
    };
    c.check("ResourceTemplate", &template);
    c.check(
        "ListResourcesResult",
        &ListResourcesResult {
            resources: vec![resource.clone()],
            next_cursor: Some("next".into()),
            meta: Some(meta()),
        },
    );
    c.check(
        "ListResourceTemplatesResult",
        &ListResourceTemplatesResult {
            resource_templates: vec![template],
            next_cursor: Some("next".into()),
            meta: Some(meta()),
        },
    );
    let read =
        ResourceRequestParams { meta: Some(req_meta()), ..ResourceRequestParams::new("file:///project/README.md") };
    c.check("ResourceRequestParams", &read);
    c.check("ReadResourceRequestParams", &read);
    c.check("SubscribeRequestParams", &read);
    c.check("UnsubscribeRequestParams", &ResourceRequestParams::new("file:///x"));
    let read_result = ReadResourceResult {
        contents: vec![ResourceContents::Text(text_contents()), ResourceContents::Blob(blob_contents())],
        meta: Some(meta()),
    };
    c.check("ReadResourceResult", &read_result);
    c.check("ServerResult", &read_result);
    c.check(
        "ResourceUpdatedNotificationParams",
        &ResourceUpdatedNotificationParams { uri: "file:///project/README.md".into(), meta: Some(meta()) },
    );

    // Tools.
    c.check("Tool", &tool());
    c.check("Tool", &Tool::without_arguments("ping", "Pings."));
    c.check(
        "ToolAnnotations",
        &ToolAnnotations {
            title: Some("T".into()),
            read_only_hint: Some(false),
            destructive_hint: Some(true),
            idempotent_hint: Some(false),
            open_world_hint: Some(false),
        },
    );
    c.check("ToolExecution", &ToolExecution { task_support: Some(TaskSupport::Required) });
    c.check(
        "ListToolsResult",
        &ListToolsResult {
            tools: vec![tool(), Tool::without_arguments("noop", "Does nothing.")],
            next_cursor: Some("page-2".into()),
            meta: Some(meta()),
        },
    );
    let mut call = CallToolRequestParams::new("get_weather", obj(json!({ "city": "Paris" })));
    call.task = Some(TaskMetadata { ttl: Some(30_000) });
    call.meta = Some(req_meta());
    c.check("CallToolRequestParams", &call);
    c.check(
        "CallToolRequestParams",
        &CallToolRequestParams { name: "noop".into(), ..CallToolRequestParams::default() },
    );
    c.check("CallToolResult", &CallToolResult::text("18°C"));
    c.check("CallToolResult", &CallToolResult::error("City not found"));
    c.check("CallToolResult", &CallToolResult::structured(obj(json!({ "temperature": 18.5 }))));
    let full_result = CallToolResult { meta: Some(meta()), ..CallToolResult::success(all_content_blocks()) };
    c.check("CallToolResult", &full_result);
    c.check("ServerResult", &full_result);

    // Prompts.
    let prompt = Prompt {
        title: Some("Code review".into()),
        icons: Some(vec![icon()]),
        meta: Some(meta()),
        ..Prompt::new("code_review").with_description("Reviews code").with_argument(PromptArgument {
            title: Some("Code".into()),
            ..PromptArgument::new("code", true).with_description("The code")
        })
    };
    c.check("Prompt", &prompt);
    c.check("PromptArgument", &PromptArgument::new("lang", false).with_description("Language"));
    c.check(
        "ListPromptsResult",
        &ListPromptsResult { prompts: vec![prompt, Prompt::new("bare")], next_cursor: None, meta: Some(meta()) },
    );
    c.check(
        "GetPromptRequestParams",
        &GetPromptRequestParams {
            name: "code_review".into(),
            arguments: Some(obj(json!({ "code": "fn main() {}" }))),
            meta: Some(req_meta()),
        },
    );
    c.check("PromptMessage", &PromptMessage::user_text("Review this"));
    c.check("PromptMessage", &PromptMessage::new(Role::Assistant, ContentBlock::Resource(embedded())));
    c.check(
        "GetPromptResult",
        &GetPromptResult {
            description: Some("A review".into()),
            messages: vec![
                PromptMessage::user_text("Review this"),
                PromptMessage::assistant_text("Looks good"),
                PromptMessage::new(Role::User, ContentBlock::Image(image_block())),
            ],
            meta: Some(meta()),
        },
    );

    // Completion.
    let prompt_ref = PromptReference { name: "code_review".into(), title: Some("Code review".into()) };
    c.check("PromptReference", &CompletionReference::Prompt(prompt_ref.clone()));
    c.check(
        "ResourceTemplateReference",
        &CompletionReference::Resource(ResourceTemplateReference { uri: "file:///project/{path}".into() }),
    );
    c.check(
        "CompleteRequestParams",
        &CompleteRequestParams {
            reference: CompletionReference::Prompt(prompt_ref),
            argument: CompletionArgument { name: "lang".into(), value: "py".into() },
            context: Some(CompletionContext { arguments: Some(IndexMap::from([("code".into(), "x = 1".into())])) }),
            meta: Some(req_meta()),
        },
    );
    c.check(
        "CompleteRequestParams",
        &CompleteRequestParams {
            reference: CompletionReference::Resource(ResourceTemplateReference { uri: "file:///{path}".into() }),
            argument: CompletionArgument { name: "path".into(), value: "sr".into() },
            context: None,
            meta: None,
        },
    );
    let complete =
        CompleteResult { meta: Some(meta()), ..CompleteResult::new(vec!["python".into(), "pytorch".into()]) };
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
    c.check("SetLevelRequestParams", &SetLevelRequestParams { level: LoggingLevel::Warning, meta: Some(req_meta()) });
    c.check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams {
            logger: Some("db".into()),
            meta: Some(meta()),
            ..LoggingMessageNotificationParams::new(
                LoggingLevel::Error,
                json!({ "error": "Connection failed", "details": { "host": "localhost" } }),
            )
        },
    );
    c.check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams::new(LoggingLevel::Info, "plain string"),
    );

    // Progress and cancellation.
    c.check(
        "ProgressNotificationParams",
        &ProgressNotificationParams {
            message: Some("Halfway".into()),
            meta: Some(meta()),
            ..ProgressNotificationParams::new(ProgressToken::from(7), 50.0, Some(100.0))
        },
    );
    c.check("ProgressNotificationParams", &ProgressNotificationParams::new(ProgressToken::from("tok"), 0.25, None));
    c.check(
        "CancelledNotificationParams",
        &CancelledNotificationParams {
            meta: Some(meta()),
            ..CancelledNotificationParams::new(
                RequestId::String("req-9".into()),
                Some("User requested cancellation".into()),
            )
        },
    );
    c.check("CancelledNotificationParams", &CancelledNotificationParams::new(RequestId::Number(9), None));

    // Roots.
    let root = Root { meta: Some(meta()), ..Root::new("file:///home/user/project").with_name("Project") };
    c.check("Root", &root);
    let roots = ListRootsResult { roots: vec![root, Root::new("file:///tmp")], meta: Some(meta()) };
    c.check("ListRootsResult", &roots);
    c.check("ClientResult", &roots);

    // Sampling.
    c.check("SamplingMessage", &sampling_message());
    c.check("SamplingMessage", &SamplingMessage::user_text("Hi"));
    c.check(
        "SamplingMessage",
        &SamplingMessage {
            role: Role::User,
            content: SamplingContent::Multiple(vec![SamplingMessageContentBlock::ToolResult(tool_result())]),
            meta: None,
        },
    );
    c.check("ModelHint", &ModelHint { name: Some("claude-3-5-sonnet".into()) });
    let prefs = ModelPreferences {
        hints: Some(vec![ModelHint { name: Some("sonnet".into()) }]),
        cost_priority: Some(0.3),
        speed_priority: Some(0.8),
        intelligence_priority: Some(0.5),
    };
    c.check("ModelPreferences", &prefs);
    c.check("ToolChoice", &ToolChoice { mode: Some(ToolChoiceMode::Required) });
    c.check("ToolChoice", &ToolChoice::default());
    let create = CreateMessageRequestParams {
        model_preferences: Some(prefs),
        system_prompt: Some("You are helpful.".into()),
        include_context: Some(IncludeContext::ThisServer),
        temperature: Some(0.7),
        stop_sequences: Some(vec!["\n\n".into()]),
        metadata: Some(obj(json!({ "provider": { "top_k": 5 } }))),
        tools: Some(vec![tool()]),
        tool_choice: Some(ToolChoice { mode: Some(ToolChoiceMode::Auto) }),
        task: Some(TaskMetadata { ttl: Some(10_000) }),
        meta: Some(req_meta()),
        ..CreateMessageRequestParams::new(
            vec![
                sampling_message(),
                SamplingMessage {
                    role: Role::Assistant,
                    content: SamplingContent::Single(SamplingMessageContentBlock::ToolUse(tool_use())),
                    meta: None,
                },
            ],
            100,
        )
    };
    c.check("CreateMessageRequestParams", &create);
    c.check("CreateMessageRequestParams", &CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Hi")], 10));
    let created = CreateMessageResult {
        role: Role::Assistant,
        content: SamplingContent::Single(SamplingMessageContentBlock::text("Paris")),
        model: "claude-3-sonnet-20240307".into(),
        stop_reason: Some(StopReason::EndTurn),
        meta: Some(meta()),
    };
    c.check("CreateMessageResult", &created);
    c.check("ClientResult", &created);
    c.check(
        "CreateMessageResult",
        &CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContent::Multiple(vec![
                SamplingMessageContentBlock::text("Let me check."),
                SamplingMessageContentBlock::ToolUse(tool_use()),
            ]),
            model: "m".into(),
            stop_reason: Some(StopReason::ToolUse),
            meta: None,
        },
    );
    c.check(
        "CreateMessageResult",
        &CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContent::Single(SamplingMessageContentBlock::text("x")),
            model: "m".into(),
            stop_reason: Some(StopReason::Other("contentFilter".into())),
            meta: None,
        },
    );

    // Elicitation.
    let string_def = PrimitiveSchemaDefinition::String(string_schema());
    c.check("StringSchema", &string_def);
    c.check("StringSchema", &PrimitiveSchemaDefinition::String(StringSchema::default()));
    c.check("NumberSchema", &PrimitiveSchemaDefinition::Number(number_schema()));
    c.check(
        "NumberSchema",
        &PrimitiveSchemaDefinition::Number(NumberSchema { r#type: NumberType::Integer, ..NumberSchema::default() }),
    );
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
    let form = ElicitRequestFormParams {
        task: Some(TaskMetadata { ttl: Some(5_000) }),
        meta: Some(req_meta()),
        ..ElicitRequestFormParams::new("Please provide your details", &elicitation_schema())
    };
    c.check("ElicitRequestFormParams", &form);
    c.check("ElicitRequestURLParams", &url_params());
    c.check("ElicitRequestParams", &ElicitRequestParams::Form(form));
    c.check("ElicitRequestParams", &ElicitRequestParams::Url(url_params()));
    let accepted = ElicitResult {
        meta: Some(meta()),
        ..ElicitResult::accept(BTreeMap::from([
            ("email".into(), ElicitContentValue::String("a@example.com".into())),
            ("age".into(), ElicitContentValue::Number(30.into())),
            ("subscribe".into(), ElicitContentValue::Boolean(true)),
            ("toppings".into(), ElicitContentValue::StringArray(vec!["cheese".into()])),
        ]))
    };
    c.check("ElicitResult", &accepted);
    c.check("ClientResult", &accepted);
    c.check("ElicitResult", &ElicitResult::decline());
    c.check("ElicitResult", &ElicitResult::cancel());
    c.check_at(
        "ElicitationCompleteNotificationParams",
        "#/$defs/ElicitationCompleteNotification/properties/params",
        &ElicitationCompleteNotificationParams { elicitation_id: "elicit-1".into(), meta: Some(meta()) },
    );
    let error_data = URLElicitationRequiredErrorData { elicitations: vec![url_params()] };
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
    c.check("TaskMetadata", &TaskMetadata { ttl: Some(60_000) });
    c.check("TaskMetadata", &TaskMetadata::default());
    c.check("RelatedTaskMetadata", &RelatedTaskMetadata { task_id: "task-1".into() });
    let mut create_meta = meta();
    create_meta.insert(MODEL_IMMEDIATE_RESPONSE_META_KEY.into(), json!("Working on it."));
    let create_task = CreateTaskResult { task: task(Some(60_000)), meta: Some(create_meta) };
    c.check("CreateTaskResult", &create_task);
    c.check("ServerResult", &create_task);
    c.check("ClientResult", &create_task);
    let with_meta = TaskWithMeta { task: task(None), meta: Some(meta()) };
    c.check("GetTaskResult", &with_meta);
    c.check("GetTaskResult", &TaskWithMeta::from(task(Some(1))));
    c.check("CancelTaskResult", &TaskWithMeta::from(Task { status: TaskStatus::Cancelled, ..task(Some(1000)) }));
    c.check("TaskStatusNotificationParams", &with_meta);
    c.check(
        "ListTasksResult",
        &ListTasksResult {
            tasks: vec![task(Some(1)), task(None)],
            next_cursor: Some("more".into()),
            meta: Some(meta()),
        },
    );
    c.check(
        "GetTaskPayloadResult",
        &GetTaskPayloadResult {
            meta: Some(meta()),
            payload: obj(serde_json::to_value(CallToolResult::text("done")).unwrap()),
        },
    );
    let task_id_params = TaskIdRequestParams { task_id: "task-1".into(), meta: Some(meta()) };
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
