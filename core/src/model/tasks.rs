//! Tasks (experimental): task metadata, the params of task-augmented requests, the `tasks/*`
//! messages and status notifications.

use serde::{Deserialize, Serialize};

use super::common::{Cursor, JsonObject, Meta};

/// The `_meta` key associating a message with a task (`{ "taskId": … }`).
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// The optional `_meta` key of `CreateTaskResult` with a provisional answer for the model.
pub const MODEL_IMMEDIATE_RESPONSE_META_KEY: &str = "io.modelcontextprotocol/model-immediate-response";

/// The status of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The task is running.
    Working,
    /// The receiver needs input from the requestor (via `tasks/result`).
    InputRequired,
    /// The task finished successfully.
    Completed,
    /// The task failed.
    Failed,
    /// The task was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Returns whether the status is terminal (`completed`, `failed` or `cancelled`).
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// The `task` param asking the receiver to run a request as a task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    /// The requested retention time in milliseconds after creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Params of request types that may be augmented into a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskAugmentedRequestParams {
    /// Asks the receiver to run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The value of the `io.modelcontextprotocol/related-task` `_meta` key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The id of the related task.
    pub task_id: String,
}

/// The state of a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The receiver-generated task id.
    pub task_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// A human-readable description of the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// The ISO 8601 creation time.
    pub created_at: String,
    /// The ISO 8601 time of the last status change.
    pub last_updated_at: String,
    /// The retention time in milliseconds; always serialized, `null` meaning unlimited.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// The suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdRequestParams {
    /// The id of the task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The params of `tasks/get`.
pub type GetTaskRequestParams = TaskIdRequestParams;
/// The params of `tasks/result`.
pub type GetTaskPayloadRequestParams = TaskIdRequestParams;
/// The params of `tasks/cancel`.
pub type CancelTaskRequestParams = TaskIdRequestParams;

/// The immediate result of a task-augmented request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// The created task.
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A result (or notification params) made of the task's fields plus `_meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskWithMeta {
    /// The task fields, flattened.
    #[serde(flatten)]
    pub task: Task,
    /// Result or notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl From<Task> for TaskWithMeta {
    fn from(task: Task) -> Self {
        Self { task, meta: None }
    }
}

/// The result of `tasks/get`.
pub type GetTaskResult = TaskWithMeta;
/// The result of `tasks/cancel`.
pub type CancelTaskResult = TaskWithMeta;
/// The params of `notifications/tasks/status`.
pub type TaskStatusNotificationParams = TaskWithMeta;

/// The result of `tasks/result`: whatever the underlying request would have returned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetTaskPayloadResult {
    /// Result metadata (should hold the related-task key).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The fields of the underlying result, kept raw.
    #[serde(flatten)]
    pub payload: JsonObject,
}

/// The result of `tasks/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
