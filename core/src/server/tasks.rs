//! Tasks (experimental): task-augmented `tools/call` run in the background, and the
//! `tasks/*` requests that observe, fetch and cancel them.

use std::{
    sync::Mutex,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "redis")]
mod shared;
#[cfg(feature = "redis")]
pub(crate) use shared::TaskShare;

use crate::{
    jsonrpc::ErrorData,
    model::{
        JsonObject, ListTasksResult, RELATED_TASK_META_KEY, RelatedTaskMetadata, ServerTaskRequestsCapability,
        ServerTasksCapability, Task, TaskStatus, TaskWithMeta, ToolsTasksCapability, methods,
    },
    random::random_id,
    session::Peer,
    sync::lock,
};

/// Settings of the task support of a server.
///
/// Tasks are bound to the session that created them: other sessions can neither see nor
/// touch them. Their ids are 128-bit random values.
///
/// Build them with [`TaskOptions::new`] and the `with_*` methods; fields may be added in later
/// versions.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TaskOptions {
    /// The longest retention time a task may have; `None` allows unlimited retention.
    pub max_ttl: Option<Duration>,
    /// The retention time of tasks whose request asks for none; `None` means unlimited
    /// (still capped by `max_ttl`).
    pub default_ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub poll_interval: Duration,
    /// How many tasks one session may hold at once; the oldest finished ones make room for
    /// new ones, and a session with this many running tasks gets an error.
    pub max_tasks: usize,
    /// How long a task-supporting tool called by a client of the tasks extension (revision
    /// 2026-07-28) may run before its call becomes a task: a call that ends sooner is answered
    /// with its result, and one that asks for input sooner with an `input_required` result.
    /// 100 ms by default.
    pub immediate_window: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            max_ttl: Some(Duration::from_secs(3600)),
            default_ttl: Some(Duration::from_secs(300)),
            poll_interval: Duration::from_secs(1),
            max_tasks: 100,
            immediate_window: Duration::from_millis(100),
        }
    }
}

impl TaskOptions {
    /// Creates the default settings: tasks kept 5 minutes unless asked otherwise and at most an
    /// hour, polled every second, at most 100 per session.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the longest retention time a task may have; `None` allows unlimited retention.
    pub fn with_max_ttl(mut self, max_ttl: Option<Duration>) -> Self {
        self.max_ttl = max_ttl;
        self
    }

    /// Sets the retention time of tasks whose request asks for none; `None` means unlimited.
    pub fn with_default_ttl(mut self, default_ttl: Option<Duration>) -> Self {
        self.default_ttl = default_ttl;
        self
    }

    /// Sets the polling interval suggested to clients.
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets how many tasks one session may hold at once.
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks;
        self
    }

    /// Sets how long a task-supporting tool called by a client of the tasks extension may run
    /// before its call becomes a task.
    pub fn with_immediate_window(mut self, window: Duration) -> Self {
        self.immediate_window = window;
        self
    }

    /// Returns the `tasks` capability a server with these options declares.
    pub(crate) fn capability() -> ServerTasksCapability {
        ServerTasksCapability {
            list: Some(JsonObject::new()),
            cancel: Some(JsonObject::new()),
            requests: Some(ServerTaskRequestsCapability {
                tools: Some(ToolsTasksCapability { call: Some(JsonObject::new()) }),
            }),
        }
    }

    /// Returns the retention time of a new task that asked for `requested` milliseconds.
    fn ttl(&self, requested: Option<u64>) -> Option<u64> {
        let wanted = requested.or_else(|| self.default_ttl.map(millis));
        match (wanted, self.max_ttl.map(millis)) {
            (Some(w), Some(max)) => Some(w.min(max)),
            (None, Some(max)) => Some(max),
            (wanted, None) => wanted,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// One task and what the store knows about it.
struct TaskRecord {
    task: Task,
    created: Instant,
    cancel: CancellationToken,
    outcome: Option<Result<Value, ErrorData>>,
    done: watch::Sender<bool>,
    /// The requests for input the task waits on (tasks extension), by key: the request as the
    /// client sees it, and where its answer goes.
    inputs: IndexMap<String, (Value, oneshot::Sender<Value>)>,
}

impl TaskRecord {
    fn expired(&self) -> bool {
        self.task.ttl.is_some_and(|ttl| self.created.elapsed() >= Duration::from_millis(ttl))
    }
}

/// The tasks of one session, oldest first.
pub(crate) struct TaskStore {
    options: TaskOptions,
    tasks: Mutex<Vec<TaskRecord>>,
    /// Whether this store serves the tasks extension of revision 2026-07-28 (server-wide, a
    /// tool error completes the task) rather than 2025-11-25's tasks (per session, a tool error
    /// fails it).
    extension: bool,
    /// Where the store's tasks are shared with the other processes of a cluster, once it is.
    #[cfg(feature = "redis")]
    shared: std::sync::OnceLock<shared::Shared>,
}

impl TaskStore {
    pub(crate) fn new(options: TaskOptions) -> Self {
        Self::with_kind(options, false)
    }

    /// Creates the server-wide store of the tasks extension (revision 2026-07-28).
    pub(crate) fn extension(options: TaskOptions) -> Self {
        Self::with_kind(options, true)
    }

    fn with_kind(options: TaskOptions, extension: bool) -> Self {
        TaskStore {
            options,
            tasks: Mutex::default(),
            extension,
            #[cfg(feature = "redis")]
            shared: std::sync::OnceLock::new(),
        }
    }

    /// Tells the cluster, when the store is shared, what a task is now.
    fn changed(&self, record: &TaskRecord) {
        #[cfg(feature = "redis")]
        self.save_shared(record);
        let _ = record;
    }

    /// How long a task-supporting tool may take before its call becomes a task (tasks
    /// extension); a call that ends sooner, or asks for input sooner, is answered directly.
    pub(crate) fn immediate_window(&self) -> Duration {
        self.options.immediate_window
    }

    /// Drops expired tasks, stopping those that still run.
    fn purge(tasks: &mut Vec<TaskRecord>) {
        tasks.retain(|r| {
            let expired = r.expired();
            if expired {
                r.cancel.cancel();
            }
            !expired
        });
    }

    fn unknown(task_id: &str) -> ErrorData {
        ErrorData::invalid_params(format!("Unknown or expired task: {task_id}"))
    }

    /// Creates a task that runs `work` in the background until it finishes, is cancelled
    /// through `cancel` or the session ends, and returns the task as first reported.
    pub(crate) fn spawn(
        self: &std::sync::Arc<Self>,
        requested_ttl: Option<u64>,
        cancel: CancellationToken,
        peer: Option<Peer>,
        work: BoxFuture<'static, Result<Value, ErrorData>>,
        before_start: impl FnOnce(&Task),
    ) -> Result<Task, ErrorData> {
        let task_id =
            random_id().map_err(|e| ErrorData::internal_error(format!("No randomness for a task id: {e}")))?;
        let now = now_iso8601();
        let task = Task {
            task_id: task_id.clone(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl: self.options.ttl(requested_ttl),
            poll_interval: Some(millis(self.options.poll_interval)),
        };
        {
            let mut tasks = lock(&self.tasks);
            Self::purge(&mut tasks);
            if tasks.len() >= self.options.max_tasks {
                match tasks.iter().position(|r| r.task.status.is_terminal()) {
                    Some(oldest) => drop(tasks.remove(oldest)),
                    None => return Err(ErrorData::internal_error("Too many tasks are running in this session")),
                }
            }
            tasks.push(TaskRecord {
                task: task.clone(),
                created: Instant::now(),
                cancel: cancel.clone(),
                outcome: None,
                done: watch::channel(false).0,
                inputs: IndexMap::new(),
            });
            if let Some(record) = tasks.last() {
                self.changed(record);
            }
        }
        before_start(&task);
        let store = self.clone();
        tokio::spawn(async move {
            // A task of the extension outlives the request (and the session) that made it.
            let closed = async {
                match &peer {
                    Some(peer) => peer.closed().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {}
                _ = closed => store.finish(&task_id, None, peer.as_ref()),
                outcome = work => store.finish(&task_id, Some(outcome), peer.as_ref()),
            }
        });
        Ok(task)
    }

    /// Records how a task ended (`None`: the session ended), unless it already ended.
    fn finish(&self, task_id: &str, outcome: Option<Result<Value, ErrorData>>, peer: Option<&Peer>) {
        let mut tasks = lock(&self.tasks);
        let Some(record) = tasks.iter_mut().find(|r| r.task.task_id == task_id) else { return };
        if record.task.status.is_terminal() {
            return;
        }
        let (status, message) = match &outcome {
            None => (TaskStatus::Cancelled, Some("The session ended".to_owned())),
            Some(Ok(result)) if !self.extension && result.get("isError") == Some(&Value::Bool(true)) => {
                (TaskStatus::Failed, Some(error_text(result)))
            }
            Some(Ok(_)) => (TaskStatus::Completed, None),
            Some(Err(error)) => (TaskStatus::Failed, Some(error.message.clone())),
        };
        record.outcome = outcome;
        record.inputs.clear();
        Self::set_status(record, status, message);
        self.changed(record);
        let task = record.task.clone();
        drop(tasks);
        if let Some(peer) = peer {
            let _ = peer.notify(methods::NOTIFICATIONS_TASKS_STATUS, &TaskWithMeta::from(task), None);
        }
    }

    fn set_status(record: &mut TaskRecord, status: TaskStatus, message: Option<String>) {
        record.task.status = status;
        record.task.status_message = message;
        record.task.last_updated_at = now_iso8601();
        record.done.send_replace(true);
    }

    /// Answers `tasks/get`.
    pub(crate) fn get(&self, task_id: &str) -> Result<Task, ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        tasks.iter().find(|r| r.task.task_id == task_id).map(|r| r.task.clone()).ok_or_else(|| Self::unknown(task_id))
    }

    /// Answers `tasks/list` with one page; the cursor is the id of the last task listed.
    pub(crate) fn list(&self, cursor: Option<&str>, page_size: usize) -> Result<ListTasksResult, ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        let all: Vec<Task> = tasks.iter().map(|r| r.task.clone()).collect();
        drop(tasks);
        page_of(all, cursor, page_size)
    }

    /// Answers `tasks/cancel`: stops the task's work and marks it cancelled.
    pub(crate) fn cancel(&self, task_id: &str, peer: &Peer) -> Result<Task, ErrorData> {
        let task = self.cancel_quietly(task_id)?;
        let _ = peer.notify(methods::NOTIFICATIONS_TASKS_STATUS, &TaskWithMeta::from(task.clone()), None);
        Ok(task)
    }

    /// Stops a task's work and marks it cancelled, telling no one.
    fn cancel_quietly(&self, task_id: &str) -> Result<Task, ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        let record = tasks.iter_mut().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
        if record.task.status.is_terminal() {
            let status = record.task.status;
            return Err(ErrorData::invalid_params(format!("Task {task_id} has already ended ({status:?})")));
        }
        record.cancel.cancel();
        Self::set_status(record, TaskStatus::Cancelled, Some("Cancelled by the client".to_owned()));
        self.changed(record);
        Ok(record.task.clone())
    }

    /// Answers `tasks/result`: waits until the task ends, then gives what the original
    /// request would have answered, tagged with the related-task metadata.
    pub(crate) async fn result(&self, task_id: &str) -> Result<Value, ErrorData> {
        let mut done = {
            let mut tasks = lock(&self.tasks);
            Self::purge(&mut tasks);
            let record = tasks.iter().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
            record.done.subscribe()
        };
        if done.wait_for(|d| *d).await.is_err() {
            return Err(Self::unknown(task_id));
        }
        let outcome = {
            let tasks = lock(&self.tasks);
            let record = tasks.iter().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
            record.outcome.clone()
        };
        result_of(task_id, outcome)
    }

    /// Records a request for input of a running task (tasks extension) and returns where its
    /// answer will arrive; the task is `input_required` until every such request is answered
    /// through `tasks/update`.
    pub(crate) fn ask(&self, task_id: &str, key: &str, request: Value) -> Result<oneshot::Receiver<Value>, ErrorData> {
        let mut tasks = lock(&self.tasks);
        let record = tasks.iter_mut().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
        if record.task.status.is_terminal() {
            return Err(ErrorData::invalid_params(format!("Task {task_id} has already ended")));
        }
        let (tx, rx) = oneshot::channel();
        record.inputs.insert(key.to_owned(), (request, tx));
        if record.task.status != TaskStatus::InputRequired {
            record.task.status = TaskStatus::InputRequired;
            record.task.last_updated_at = now_iso8601();
        }
        self.changed(record);
        Ok(rx)
    }

    /// Answers `tasks/update` (tasks extension): hands each response to the request for input
    /// it answers (keys the task does not wait on are ignored); the task works again once none
    /// is left.
    pub(crate) fn update(&self, task_id: &str, responses: &JsonObject) -> Result<(), ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        let record = tasks.iter_mut().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
        for (key, response) in responses {
            if let Some((_, answer)) = record.inputs.shift_remove(key) {
                let _ = answer.send(response.clone());
            }
        }
        if record.inputs.is_empty() && record.task.status == TaskStatus::InputRequired {
            record.task.status = TaskStatus::Working;
            record.task.last_updated_at = now_iso8601();
        }
        self.changed(record);
        Ok(())
    }

    /// Answers `tasks/cancel` of the extension: an empty acknowledgement, the same for a task
    /// that has already ended; only an unknown task is an error.
    pub(crate) fn cancel_extension(&self, task_id: &str) -> Result<(), ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        let record = tasks.iter_mut().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
        if !record.task.status.is_terminal() {
            record.cancel.cancel();
            record.inputs.clear();
            Self::set_status(record, TaskStatus::Cancelled, Some("Cancelled by the client".to_owned()));
            self.changed(record);
        }
        Ok(())
    }

    /// The task as the extension's `CreateTaskResult` has it: flat, with `resultType: "task"`.
    pub(crate) fn created(task: &Task) -> Value {
        let mut value = extension_task(task);
        value["resultType"] = Value::String("task".into());
        value
    }

    /// Answers `tasks/get` of the extension: the task with its result or error inlined once it
    /// ended, and the requests for input it waits on while `input_required`.
    pub(crate) fn detailed(&self, task_id: &str) -> Result<Value, ErrorData> {
        let mut tasks = lock(&self.tasks);
        Self::purge(&mut tasks);
        let record = tasks.iter().find(|r| r.task.task_id == task_id).ok_or_else(|| Self::unknown(task_id))?;
        Ok(detail_of(&record.task, record.outcome.as_ref(), &requests_of(record)))
    }

    /// Stops every task still running; called when the session ends.
    pub(crate) fn stop_all(&self) {
        for record in lock(&self.tasks).iter() {
            record.cancel.cancel();
        }
    }
}

/// The requests for input a task waits on, by key.
fn requests_of(record: &TaskRecord) -> JsonObject {
    record.inputs.iter().map(|(k, (request, _))| (k.clone(), request.clone())).collect()
}

/// A task as the extension's `tasks/get` answers it: its result or error inlined once it
/// ended, and the requests for input it waits on while `input_required`.
fn detail_of(task: &Task, outcome: Option<&Result<Value, ErrorData>>, requests: &JsonObject) -> Value {
    let mut value = extension_task(task);
    match (&task.status, outcome) {
        (TaskStatus::Completed, Some(Ok(result))) => value["result"] = result.clone(),
        (TaskStatus::Failed, Some(Err(error))) => value["error"] = serde_json::to_value(error).unwrap_or_default(),
        (TaskStatus::InputRequired, _) => value["inputRequests"] = Value::Object(requests.clone()),
        _ => {}
    }
    value
}

/// What `tasks/result` answers for an ended task: what the original request would have
/// answered, tagged with the related-task metadata.
fn result_of(task_id: &str, outcome: Option<Result<Value, ErrorData>>) -> Result<Value, ErrorData> {
    match outcome {
        None => Err(ErrorData::invalid_params(format!("Task {task_id} was cancelled and has no result"))),
        Some(Err(error)) => Err(error),
        Some(Ok(mut result)) => {
            if let Value::Object(map) = &mut result {
                let meta = map.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
                if let Value::Object(meta) = meta {
                    let related = RelatedTaskMetadata { task_id: task_id.to_owned() };
                    meta.insert(RELATED_TASK_META_KEY.to_owned(), serde_json::to_value(related).unwrap_or_default());
                }
            }
            Ok(result)
        }
    }
}

/// One page of `tasks/list`; the cursor is the id of the last task listed.
fn page_of(tasks: Vec<Task>, cursor: Option<&str>, page_size: usize) -> Result<ListTasksResult, ErrorData> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            tasks
                .iter()
                .position(|t| t.task_id == c)
                .ok_or_else(|| ErrorData::invalid_params(format!("Invalid cursor: {c:?}")))?
                + 1
        }
    };
    let page: Vec<Task> = tasks.iter().skip(start).take(page_size).cloned().collect();
    let next_cursor = (start + page.len() < tasks.len()).then(|| page.last().map(|t| t.task_id.clone())).flatten();
    Ok(ListTasksResult { tasks: page, next_cursor, meta: None })
}

/// A task with the extension's field names (`ttlMs`, `pollIntervalMs`).
fn extension_task(task: &Task) -> Value {
    let mut value = serde_json::json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttlMs": task.ttl,
    });
    if let Some(interval) = task.poll_interval {
        value["pollIntervalMs"] = Value::from(interval);
    }
    if let Some(message) = &task.status_message {
        value["statusMessage"] = Value::String(message.clone());
    }
    value
}

/// The text of a failed tool result, for the task's status message.
fn error_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
        .unwrap_or("The tool reported an error")
        .to_owned()
}

/// Returns the current time as ISO 8601 UTC with milliseconds.
fn now_iso8601() -> String {
    format_iso8601(SystemTime::now())
}

/// Formats a time as ISO 8601 UTC with milliseconds, e.g. `2025-11-25T08:30:00.000Z`.
fn format_iso8601(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_timestamps() {
        assert_eq!(format_iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_764_059_400_123);
        assert_eq!(format_iso8601(t), "2025-11-25T08:30:00.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(format_iso8601(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn caps_the_ttl() {
        let options = TaskOptions { max_ttl: Some(Duration::from_secs(10)), ..TaskOptions::default() };
        assert_eq!(options.ttl(Some(60_000)), Some(10_000));
        assert_eq!(options.ttl(Some(500)), Some(500));
        assert_eq!(options.ttl(None), Some(10_000));
        let unlimited = TaskOptions { max_ttl: None, default_ttl: None, ..TaskOptions::default() };
        assert_eq!(unlimited.ttl(None), None);
        assert_eq!(unlimited.ttl(Some(7)), Some(7));
    }
}
