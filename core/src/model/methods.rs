//! JSON-RPC method names of every MCP 2025-11-25 request and notification.

/// The `initialize` request (client → server).
pub const INITIALIZE: &str = "initialize";
/// The `server/discover` request of revision 2026-07-28 (client → server).
pub const SERVER_DISCOVER: &str = "server/discover";
/// The `ping` request (either direction).
pub const PING: &str = "ping";
/// The `completion/complete` request (client → server).
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// The `logging/setLevel` request (client → server).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// The `prompts/get` request (client → server).
pub const PROMPTS_GET: &str = "prompts/get";
/// The `prompts/list` request (client → server).
pub const PROMPTS_LIST: &str = "prompts/list";
/// The `resources/list` request (client → server).
pub const RESOURCES_LIST: &str = "resources/list";
/// The `resources/templates/list` request (client → server).
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// The `resources/read` request (client → server).
pub const RESOURCES_READ: &str = "resources/read";
/// The `resources/subscribe` request (client → server).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// The `resources/unsubscribe` request (client → server).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// The `tools/call` request (client → server).
pub const TOOLS_CALL: &str = "tools/call";
/// The `tools/list` request (client → server).
pub const TOOLS_LIST: &str = "tools/list";
/// The `tasks/get` request (requestor → receiver, either direction).
pub const TASKS_GET: &str = "tasks/get";
/// The `tasks/result` request (requestor → receiver, either direction).
pub const TASKS_RESULT: &str = "tasks/result";
/// The `tasks/list` request (requestor → receiver, either direction).
pub const TASKS_LIST: &str = "tasks/list";
/// The `tasks/cancel` request (requestor → receiver, either direction).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// Gives a task of the tasks extension the input it asked for (revision 2026-07-28).
pub const TASKS_UPDATE: &str = "tasks/update";
/// Opens a stream of the notifications a client opts in to (revision 2026-07-28).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// The first message of a `subscriptions/listen` stream: what the server agreed to send.
pub const NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The `sampling/createMessage` request (server → client).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// The `roots/list` request (server → client).
pub const ROOTS_LIST: &str = "roots/list";
/// The `elicitation/create` request (server → client).
pub const ELICITATION_CREATE: &str = "elicitation/create";

/// The `notifications/cancelled` notification (either direction).
pub const NOTIFICATIONS_CANCELLED: &str = "notifications/cancelled";
/// The `notifications/progress` notification (either direction).
pub const NOTIFICATIONS_PROGRESS: &str = "notifications/progress";
/// The `notifications/initialized` notification (client → server).
pub const NOTIFICATIONS_INITIALIZED: &str = "notifications/initialized";
/// The `notifications/roots/list_changed` notification (client → server).
pub const NOTIFICATIONS_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// The `notifications/tasks/status` notification (receiver → requestor).
pub const NOTIFICATIONS_TASKS_STATUS: &str = "notifications/tasks/status";
/// The `notifications/message` logging notification (server → client).
pub const NOTIFICATIONS_MESSAGE: &str = "notifications/message";
/// The `notifications/resources/updated` notification (server → client).
pub const NOTIFICATIONS_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// The `notifications/resources/list_changed` notification (server → client).
pub const NOTIFICATIONS_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// The `notifications/tools/list_changed` notification (server → client).
pub const NOTIFICATIONS_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The `notifications/prompts/list_changed` notification (server → client).
pub const NOTIFICATIONS_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// The `notifications/elicitation/complete` notification (server → client).
pub const NOTIFICATIONS_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
