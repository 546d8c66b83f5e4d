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
#[non_exhaustive]
pub struct TaskMetadata {
    /// The requested retention time in milliseconds after creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

impl TaskMetadata {
    /// Sets the requested retention time in milliseconds after creation.
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.ttl = Some(ttl);
        self
    }
}

/// Params of request types that may be augmented into a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskAugmentedRequestParams {
    /// Asks the receiver to run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata, e.g. the `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskAugmentedRequestParams {
    /// Asks the receiver to run the request as a task.
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

/// The value of the `io.modelcontextprotocol/related-task` `_meta` key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// The id of the related task.
    pub task_id: String,
}

impl RelatedTaskMetadata {
    /// Creates the metadata relating a message to the task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self { task_id: task_id.into() }
    }
}

/// The state of a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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

impl Task {
    /// Creates the state of the task `task_id` with its status and ISO 8601 creation and last
    /// update times; the retention time is unlimited until set.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl: None,
            poll_interval: None,
        }
    }

    /// Sets the human-readable description of the status.
    pub fn with_status_message(mut self, status_message: impl Into<String>) -> Self {
        self.status_message = Some(status_message.into());
        self
    }

    /// Sets the retention time in milliseconds.
    pub fn with_ttl(mut self, ttl: u64) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Sets the suggested polling interval in milliseconds.
    pub fn with_poll_interval(mut self, poll_interval: u64) -> Self {
        self.poll_interval = Some(poll_interval);
        self
    }
}

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdRequestParams {
    /// The id of the task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskIdRequestParams {
    /// Creates params naming the task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self { task_id: task_id.into(), meta: None }
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
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
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The created task.
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// Creates the result announcing the created task.
    pub fn new(task: Task) -> Self {
        Self { task, meta: None }
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A result (or notification params) made of the task's fields plus `_meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskWithMeta {
    /// The task fields, flattened.
    #[serde(flatten)]
    pub task: Task,
    /// Result or notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskWithMeta {
    /// Creates a result or notification params holding the task, with no `_meta`.
    pub fn new(task: Task) -> Self {
        Self { task, meta: None }
    }

    /// Sets the result or notification metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
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
#[non_exhaustive]
pub struct GetTaskPayloadResult {
    /// Result metadata (should hold the related-task key).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The fields of the underlying result, kept raw.
    #[serde(flatten)]
    pub payload: JsonObject,
}

impl GetTaskPayloadResult {
    /// Creates a result holding the fields of the underlying result.
    pub fn new(payload: JsonObject) -> Self {
        Self { meta: None, payload }
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The result of `tasks/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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

impl ListTasksResult {
    /// Creates a page holding the given tasks, with no next cursor.
    pub fn new(tasks: Vec<Task>) -> Self {
        Self { tasks, next_cursor: None, meta: None }
    }

    /// Sets the cursor of the next page.
    pub fn with_next_cursor(mut self, next_cursor: impl Into<String>) -> Self {
        self.next_cursor = Some(next_cursor.into());
        self
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}
