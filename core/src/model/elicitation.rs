//! Elicitation: `elicitation/create` (form and URL modes), its result, the
//! restricted JSON Schema subset of form requests and the completion notification.

use indexmap::IndexMap;
use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::common::{JsonObject, Meta, ProgressToken, progress_token};
use super::tasks::TaskMetadata;

macro_rules! tag_type {
    ($(#[$doc:meta])* $name:ident = $value:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The JSON string this tag stands for.
            pub const VALUE: &'static str = $value;
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = String::deserialize(deserializer)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(D::Error::invalid_value(Unexpected::Str(&s), &$value))
                }
            }
        }
    };
}

tag_type!(
    /// The constant `"string"` of a schema's `type` keyword.
    StringTypeTag = "string"
);
tag_type!(
    /// The constant `"boolean"` of a schema's `type` keyword.
    BooleanTypeTag = "boolean"
);
tag_type!(
    /// The constant `"array"` of a schema's `type` keyword.
    ArrayTypeTag = "array"
);
tag_type!(
    /// The constant `"object"` of a schema's `type` keyword.
    ObjectTypeTag = "object"
);
tag_type!(
    /// The constant `"form"` of an elicitation request's `mode`.
    FormModeTag = "form"
);
tag_type!(
    /// The constant `"url"` of an elicitation request's `mode`.
    UrlModeTag = "url"
);

/// The `format` of a string field in an elicitation form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringFormat {
    /// An e-mail address.
    #[serde(rename = "email")]
    Email,
    /// A URI.
    #[serde(rename = "uri")]
    Uri,
    /// A calendar date.
    #[serde(rename = "date")]
    Date,
    /// A date and time.
    #[serde(rename = "date-time")]
    DateTime,
}

/// A string field of an elicitation form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `"string"`.
    pub r#type: StringTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// The maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl StringSchema {
    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the minimum length.
    pub fn with_min_length(mut self, min_length: u64) -> Self {
        self.min_length = Some(min_length);
        self
    }

    /// Sets the maximum length.
    pub fn with_max_length(mut self, max_length: u64) -> Self {
        self.max_length = Some(max_length);
        self
    }

    /// Sets the expected format.
    pub fn with_format(mut self, format: StringFormat) -> Self {
        self.format = Some(format);
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: impl Into<String>) -> Self {
        self.default = Some(default.into());
        self
    }
}

/// Whether a numeric field accepts any number or only integers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A numeric field of an elicitation form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    pub r#type: NumberType,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The minimum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// The maximum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
}

impl NumberSchema {
    /// Creates a numeric field accepting any number or only integers.
    pub fn new(number_type: NumberType) -> Self {
        Self { r#type: number_type, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the minimum value.
    pub fn with_minimum(mut self, minimum: f64) -> Self {
        self.minimum = Some(minimum);
        self
    }

    /// Sets the maximum value.
    pub fn with_maximum(mut self, maximum: f64) -> Self {
        self.maximum = Some(maximum);
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: f64) -> Self {
        self.default = Some(default);
        self
    }
}

/// A boolean field of an elicitation form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    pub r#type: BooleanTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

impl BooleanSchema {
    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: bool) -> Self {
        self.default = Some(default);
        self
    }
}

/// A titled option of an enum field (`{ "const", "title" }`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EnumOption {
    /// The value submitted when this option is chosen.
    pub r#const: String,
    /// The label displayed for this option.
    pub title: String,
}

impl EnumOption {
    /// Creates an option from its value and display label.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        Self { r#const: value.into(), title: title.into() }
    }
}

/// A single-select enum field whose options are their own labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    pub r#type: StringTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl UntitledSingleSelectEnumSchema {
    /// Creates a single-select field offering the given values.
    pub fn new(values: Vec<String>) -> Self {
        Self { r#enum: values, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: impl Into<String>) -> Self {
        self.default = Some(default.into());
        self
    }
}

/// A single-select enum field with a display label per option (`oneOf`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    pub r#type: StringTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed options with their labels.
    pub one_of: Vec<EnumOption>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl TitledSingleSelectEnumSchema {
    /// Creates a single-select field offering the given options with their labels.
    pub fn new(one_of: Vec<EnumOption>) -> Self {
        Self { one_of, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: impl Into<String>) -> Self {
        self.default = Some(default.into());
        self
    }
}

/// The `items` of an untitled multi-select enum field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    pub r#type: StringTypeTag,
    /// The allowed values.
    pub r#enum: Vec<String>,
}

impl UntitledEnumItems {
    /// Creates the items of a multi-select field offering the given values.
    pub fn new(values: Vec<String>) -> Self {
        Self { r#type: StringTypeTag, r#enum: values }
    }
}

/// The `items` of a titled multi-select enum field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The allowed options with their labels.
    pub any_of: Vec<EnumOption>,
}

impl TitledEnumItems {
    /// Creates the items of a multi-select field offering the given options with their labels.
    pub fn new(any_of: Vec<EnumOption>) -> Self {
        Self { any_of }
    }
}

/// A multi-select enum field whose options are their own labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    pub r#type: ArrayTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// The default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl UntitledMultiSelectEnumSchema {
    /// Creates a multi-select field whose options are the given items.
    pub fn new(items: UntitledEnumItems) -> Self {
        Self { items, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the minimum number of selections.
    pub fn with_min_items(mut self, min_items: u64) -> Self {
        self.min_items = Some(min_items);
        self
    }

    /// Sets the maximum number of selections.
    pub fn with_max_items(mut self, max_items: u64) -> Self {
        self.max_items = Some(max_items);
        self
    }

    /// Sets the default selection.
    pub fn with_default(mut self, default: Vec<String>) -> Self {
        self.default = Some(default);
        self
    }
}

/// A multi-select enum field with a display label per option (`items.anyOf`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    pub r#type: ArrayTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed options with their labels.
    pub items: TitledEnumItems,
    /// The default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl TitledMultiSelectEnumSchema {
    /// Creates a multi-select field whose options are the given items.
    pub fn new(items: TitledEnumItems) -> Self {
        Self { items, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the minimum number of selections.
    pub fn with_min_items(mut self, min_items: u64) -> Self {
        self.min_items = Some(min_items);
        self
    }

    /// Sets the maximum number of selections.
    pub fn with_max_items(mut self, max_items: u64) -> Self {
        self.max_items = Some(max_items);
        self
    }

    /// Sets the default selection.
    pub fn with_default(mut self, default: Vec<String>) -> Self {
        self.default = Some(default);
        self
    }
}

/// A legacy single-select enum field labelled through the non-standard `enumNames`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    pub r#type: StringTypeTag,
    /// A human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// The display labels, parallel to `enum` (without them this is an untitled enum).
    pub enum_names: Vec<String>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl LegacyTitledEnumSchema {
    /// Creates a legacy single-select field from its values and the parallel display labels.
    pub fn new(values: Vec<String>, enum_names: Vec<String>) -> Self {
        Self { r#enum: values, enum_names, ..Self::default() }
    }

    /// Sets the human-readable label.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the human-readable description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the default value.
    pub fn with_default(mut self, default: impl Into<String>) -> Self {
        self.default = Some(default.into());
        self
    }
}

/// A single-select enum field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SingleSelectEnumSchema {
    /// Options with display labels (`oneOf`).
    Titled(TitledSingleSelectEnumSchema),
    /// Plain options (`enum`).
    Untitled(UntitledSingleSelectEnumSchema),
}

/// A multi-select enum field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MultiSelectEnumSchema {
    /// Options with display labels (`items.anyOf`).
    Titled(TitledMultiSelectEnumSchema),
    /// Plain options (`items.enum`).
    Untitled(UntitledMultiSelectEnumSchema),
}

/// Any enum field of an elicitation form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnumSchema {
    /// A legacy enum with `enumNames`.
    Legacy(LegacyTitledEnumSchema),
    /// A single-select enum.
    Single(SingleSelectEnumSchema),
    /// A multi-select enum.
    Multi(MultiSelectEnumSchema),
}

/// The schema of one field of an elicitation form (a restricted JSON Schema subset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// An enum field (single, multi or legacy).
    Enum(EnumSchema),
    /// A free string field.
    String(StringSchema),
    /// A numeric field.
    Number(NumberSchema),
    /// A boolean field.
    Boolean(BooleanSchema),
}

impl From<StringSchema> for PrimitiveSchemaDefinition {
    fn from(value: StringSchema) -> Self {
        PrimitiveSchemaDefinition::String(value)
    }
}

impl From<NumberSchema> for PrimitiveSchemaDefinition {
    fn from(value: NumberSchema) -> Self {
        PrimitiveSchemaDefinition::Number(value)
    }
}

impl From<BooleanSchema> for PrimitiveSchemaDefinition {
    fn from(value: BooleanSchema) -> Self {
        PrimitiveSchemaDefinition::Boolean(value)
    }
}

impl From<EnumSchema> for PrimitiveSchemaDefinition {
    fn from(value: EnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(value)
    }
}

/// The typed form of `requestedSchema`: a flat object of primitive fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationSchema {
    /// The JSON Schema dialect, if not the default 2020-12.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    pub r#type: ObjectTypeTag,
    /// The fields of the form, in the order they are shown.
    pub properties: IndexMap<String, PrimitiveSchemaDefinition>,
    /// The names of the required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

impl ElicitationSchema {
    /// Adds a field, marking it required if asked.
    pub fn with_property(
        mut self,
        name: impl Into<String>,
        schema: impl Into<PrimitiveSchemaDefinition>,
        required: bool,
    ) -> Self {
        let name = name.into();
        if required {
            self.required.get_or_insert_with(Vec::new).push(name.clone());
        }
        self.properties.insert(name, schema.into());
        self
    }

    /// Converts the schema into the raw JSON object carried by form requests.
    pub fn to_json_object(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => JsonObject::new(),
        }
    }

    /// Sets the JSON Schema dialect, if not the default 2020-12.
    pub fn with_schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }
}

/// The params of a form-mode `elicitation/create` (`mode` is `"form"` or absent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// Always `"form"` (absent on input from older peers).
    #[serde(default)]
    pub mode: FormModeTag,
    /// The message shown to the user.
    pub message: String,
    /// The restricted JSON Schema of the requested data, kept raw.
    pub requested_schema: JsonObject,
    /// Asks the client to run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitRequestFormParams {
    /// Creates form params from a message and a typed schema.
    pub fn new(message: impl Into<String>, schema: &ElicitationSchema) -> Self {
        Self { message: message.into(), requested_schema: schema.to_json_object(), ..Self::default() }
    }

    /// Parses `requestedSchema` into its typed form.
    pub fn typed_schema(&self) -> Result<ElicitationSchema, serde_json::Error> {
        serde_json::from_value(Value::Object(self.requested_schema.clone()))
    }

    /// Asks the client to run the request as a task.
    pub fn with_task(mut self, task: TaskMetadata) -> Self {
        self.task = Some(task);
        self
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of a URL-mode `elicitation/create`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: UrlModeTag,
    /// The message shown to the user.
    pub message: String,
    /// An identifier unique within the server, echoed in the completion notification.
    pub elicitation_id: String,
    /// The URL the user should open.
    pub url: String,
    /// Asks the client to run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitRequestURLParams {
    /// Creates URL params from a message, an elicitation id and the URL.
    pub fn new(message: impl Into<String>, elicitation_id: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            mode: UrlModeTag,
            message: message.into(),
            elicitation_id: elicitation_id.into(),
            url: url.into(),
            task: None,
            meta: None,
        }
    }

    /// Asks the client to run the request as a task.
    pub fn with_task(mut self, task: TaskMetadata) -> Self {
        self.task = Some(task);
        self
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `elicitation/create`: form mode (`mode` absent or `"form"`) or URL mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// Returns the message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(p) => &p.message,
            ElicitRequestParams::Url(p) => &p.message,
        }
    }

    /// Returns the request's `_meta`, if any.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            ElicitRequestParams::Form(p) => p.meta.as_ref(),
            ElicitRequestParams::Url(p) => p.meta.as_ref(),
        }
    }

    /// Returns the task augmentation, if any.
    pub fn task(&self) -> Option<&TaskMetadata> {
        match self {
            ElicitRequestParams::Form(p) => p.task.as_ref(),
            ElicitRequestParams::Url(p) => p.task.as_ref(),
        }
    }

    /// Returns the progress token carried in `_meta`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        progress_token(self.meta())
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let mode = match value.get("mode") {
            None | Some(Value::Null) => FormModeTag::VALUE.to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(D::Error::custom(format!("elicitation mode must be a string, got {other}")));
            }
        };
        match mode.as_str() {
            FormModeTag::VALUE => {
                serde_json::from_value(value).map(ElicitRequestParams::Form).map_err(D::Error::custom)
            }
            UrlModeTag::VALUE => serde_json::from_value(value).map(ElicitRequestParams::Url).map_err(D::Error::custom),
            other => Err(D::Error::custom(format!("unknown elicitation mode `{other}`"))),
        }
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(value: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(value)
    }
}

impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(value: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(value)
    }
}

/// The user's response to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form or consented to open the URL.
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// A value submitted in an accepted form: string, number, boolean or string array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitContentValue {
    /// A boolean value.
    Boolean(bool),
    /// A numeric value (its JSON representation is preserved).
    Number(serde_json::Number),
    /// A string value.
    String(String),
    /// The selections of a multi-select field.
    StringArray(Vec<String>),
}

/// The result of a (non-task) `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode with `accept` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<IndexMap<String, ElicitContentValue>>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// Creates an `accept` result with the submitted values, in the order given.
    pub fn accept(content: impl IntoIterator<Item = (String, ElicitContentValue)>) -> Self {
        Self { action: ElicitAction::Accept, content: Some(content.into_iter().collect()), meta: None }
    }

    /// Creates a `decline` result.
    pub fn decline() -> Self {
        Self { action: ElicitAction::Decline, content: None, meta: None }
    }

    /// Creates a `cancel` result.
    pub fn cancel() -> Self {
        Self { action: ElicitAction::Cancel, content: None, meta: None }
    }

    /// Creates a result reporting `action`, with no submitted values.
    pub fn new(action: ElicitAction) -> Self {
        Self { action, content: None, meta: None }
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `notifications/elicitation/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The id of the completed URL-mode elicitation.
    pub elicitation_id: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitationCompleteNotificationParams {
    /// Creates params announcing that the URL-mode elicitation `elicitation_id` completed.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        Self { elicitation_id: elicitation_id.into(), meta: None }
    }

    /// Sets the notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The `data` of a `URLElicitationRequiredError` (JSON-RPC error `-32042`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct URLElicitationRequiredErrorData {
    /// The URL-mode elicitations that must complete before the request can be retried.
    pub elicitations: Vec<ElicitRequestURLParams>,
}

impl URLElicitationRequiredErrorData {
    /// Creates error data listing the URL-mode elicitations that must complete first.
    pub fn new(elicitations: Vec<ElicitRequestURLParams>) -> Self {
        Self { elicitations }
    }
}
