//! Tasks shared by the processes of a cluster (feature `redis`).
//!
//! The process that runs a task keeps its record, as a lone server does, and stores a snapshot
//! of it (status, result once it ended, the requests for input it waits on, the process that
//! owns it) wherever the cluster keeps shared state after every change. Any other process
//! answers `tasks/get`, `tasks/result` and `tasks/list` from those snapshots, and hands
//! `tasks/cancel` and `tasks/update` to the owning process, waiting until its snapshot shows
//! the effect.

use std::{sync::Arc, time::Duration};

use futures::{FutureExt, future::BoxFuture};
use serde_json::{Value, json};

use super::{
    JsonObject, Task, TaskRecord, TaskStatus, TaskStore, TaskWithMeta, detail_of, page_of, requests_of, result_of,
};
use crate::{jsonrpc::ErrorData, model::TaskIdRequestParams, session::Peer, sync::lock};

/// How long a process waits for the owner of a task to carry out a cancellation or an update.
const COMMAND_WAIT: Duration = Duration::from_secs(5);

/// How often a process that waits on another's task reads its snapshot again.
const POLL: Duration = Duration::from_millis(50);

/// How long the snapshot of a task without a retention time is kept.
pub(crate) const UNLIMITED_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Where the tasks of a cluster's processes are shared; the cluster implements it.
pub(crate) trait TaskShare: Send + Sync {
    /// This process's number, recorded as the owner of the tasks it runs.
    fn process(&self) -> u64;
    /// Stores a task's snapshot for `retention`, after every snapshot stored before it.
    fn save(&self, scope: &str, task_id: &str, retention: Duration, snapshot: Value);
    /// Completes once every snapshot handed to `save` so far is stored.
    fn flush(&self) -> BoxFuture<'static, ()>;
    /// Reads a task's snapshot, marking it failed when its owner is gone while it ran.
    fn load(&self, scope: &str, task_id: &str) -> BoxFuture<'static, Result<Option<Value>, ErrorData>>;
    /// Reads the snapshots of a scope's tasks, oldest first.
    fn list(&self, scope: &str) -> BoxFuture<'static, Result<Vec<Value>, ErrorData>>;
    /// Asks process `owner` to apply `command` to one of its tasks.
    fn command(
        &self,
        owner: u64,
        scope: &str,
        task_id: &str,
        command: Value,
    ) -> BoxFuture<'static, Result<(), ErrorData>>;
}

/// A store's link to the cluster: where it shares, and under which scope (one session's tasks,
/// or the server's tasks of the extension).
pub(super) struct Shared {
    share: Arc<dyn TaskShare>,
    scope: String,
}

/// A task as another process stored it.
struct Snapshot {
    task: Task,
    outcome: Option<Result<Value, ErrorData>>,
    requests: JsonObject,
    owner: u64,
}

impl Snapshot {
    fn parse(value: Value) -> Option<Snapshot> {
        let task = serde_json::from_value(value.get("task")?.clone()).ok()?;
        let outcome = match (value.get("result"), value.get("error")) {
            (Some(result), _) => Some(Ok(result.clone())),
            (None, Some(error)) => Some(Err(serde_json::from_value(error.clone()).ok()?)),
            (None, None) => None,
        };
        let requests = value.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        Some(Snapshot { task, outcome, requests, owner: value.get("owner")?.as_u64()? })
    }
}

impl TaskStore {
    /// Shares this store's tasks through `share` under `scope` from now on (once).
    pub(crate) fn share(&self, share: Arc<dyn TaskShare>, scope: String) {
        let _ = self.shared.set(Shared { share, scope });
    }

    /// Returns whether this store's tasks are shared with other processes.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.get().is_some()
    }

    /// Completes once what this store told the cluster so far is stored.
    pub(crate) async fn flushed(&self) {
        if let Some(shared) = self.shared.get() {
            shared.share.flush().await;
        }
    }

    /// Stores a record's snapshot, when the store is shared.
    pub(super) fn save_shared(&self, record: &TaskRecord) {
        let Some(shared) = self.shared.get() else { return };
        let mut snapshot = json!({ "task": record.task, "owner": shared.share.process() });
        match &record.outcome {
            Some(Ok(result)) => snapshot["result"] = result.clone(),
            Some(Err(error)) => snapshot["error"] = serde_json::to_value(error).unwrap_or_default(),
            None => {}
        }
        if !record.inputs.is_empty() {
            snapshot["inputRequests"] = Value::Object(requests_of(record));
        }
        let retention = match record.task.ttl {
            Some(ttl) => Duration::from_millis(ttl).saturating_sub(record.created.elapsed()).max(POLL),
            None => UNLIMITED_RETENTION,
        };
        shared.share.save(&shared.scope, &record.task.task_id, retention, snapshot);
    }

    /// Returns whether this process runs the task.
    fn is_local(&self, task_id: &str) -> bool {
        lock(&self.tasks).iter().any(|r| r.task.task_id == task_id)
    }

    /// Reads the snapshot of a task another process runs.
    async fn snapshot(&self, task_id: &str) -> Result<Snapshot, ErrorData> {
        let shared = self.shared.get().ok_or_else(|| Self::unknown(task_id))?;
        let stored = shared.share.load(&shared.scope, task_id).await?;
        stored.and_then(Snapshot::parse).ok_or_else(|| Self::unknown(task_id))
    }

    /// Asks the owner of a task to apply `command`, then waits until its snapshot passes `done`.
    async fn command(
        &self,
        snapshot: &Snapshot,
        command: Value,
        done: impl Fn(&Snapshot) -> bool,
    ) -> Result<Snapshot, ErrorData> {
        let shared = self.shared.get().ok_or_else(|| Self::unknown(&snapshot.task.task_id))?;
        let task_id = &snapshot.task.task_id;
        shared.share.command(snapshot.owner, &shared.scope, task_id, command).await?;
        let deadline = tokio::time::Instant::now() + COMMAND_WAIT;
        loop {
            let now = self.snapshot(task_id).await?;
            if done(&now) {
                return Ok(now);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ErrorData::internal_error(format!(
                    "the server process running task {task_id} (process {}) did not answer in time",
                    snapshot.owner
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Applies a command another process handed over for one of this process's tasks.
    pub(crate) fn apply(&self, task_id: &str, command: &Value) {
        let applied = match command.get("update").and_then(Value::as_object) {
            Some(responses) => self.update(task_id, responses),
            None if self.extension => self.cancel_extension(task_id),
            None => self.cancel_quietly(task_id).map(drop),
        };
        if let Err(e) = applied {
            tracing::debug!(task_id, error = %e.message, "a task command from another process was not applied");
        }
    }

    /// Answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` (2025-11-25) for a
    /// shared store: from this process's records for its own tasks, else from the snapshots.
    pub(crate) fn shared_request(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        peer: Option<Peer>,
        page_size: usize,
    ) -> BoxFuture<'static, Result<Value, ErrorData>> {
        let store = self.clone();
        let method = method.to_owned();
        async move {
            if method == crate::model::methods::TASKS_LIST {
                let params: crate::model::PaginatedRequestParams =
                    serde_json::from_value(params.unwrap_or_else(|| json!({})))
                        .map_err(|e| ErrorData::invalid_params(e.to_string()))?;
                store.flushed().await;
                let shared = store.shared.get().ok_or_else(|| ErrorData::internal_error("tasks are not shared"))?;
                let tasks = shared.share.list(&shared.scope).await?;
                let tasks = tasks.into_iter().filter_map(Snapshot::parse).map(|s| s.task).collect();
                let page = page_of(tasks, params.cursor.as_deref(), page_size)?;
                return serde_json::to_value(page).map_err(|e| ErrorData::internal_error(e.to_string()));
            }
            let params: TaskIdRequestParams = serde_json::from_value(params.unwrap_or(Value::Null))
                .map_err(|e| ErrorData::invalid_params(e.to_string()))?;
            let task_id = params.task_id.as_str();
            let local = store.is_local(task_id);
            let task = match method.as_str() {
                crate::model::methods::TASKS_GET if local => store.get(task_id)?,
                crate::model::methods::TASKS_GET => store.snapshot(task_id).await?.task,
                crate::model::methods::TASKS_CANCEL if local => {
                    let task = match &peer {
                        Some(peer) => store.cancel(task_id, peer)?,
                        None => store.cancel_quietly(task_id)?,
                    };
                    store.flushed().await;
                    task
                }
                crate::model::methods::TASKS_CANCEL => {
                    let snapshot = store.snapshot(task_id).await?;
                    if snapshot.task.status.is_terminal() {
                        let status = snapshot.task.status;
                        return Err(ErrorData::invalid_params(format!(
                            "Task {task_id} has already ended ({status:?})"
                        )));
                    }
                    let cancel = json!({ "cancel": true });
                    let ended = store.command(&snapshot, cancel, |s| s.task.status.is_terminal()).await?;
                    if let Some(peer) = &peer {
                        let _ = peer.notify(
                            crate::model::methods::NOTIFICATIONS_TASKS_STATUS,
                            &TaskWithMeta::from(ended.task.clone()),
                            None,
                        );
                    }
                    ended.task
                }
                _ if local => return store.result(task_id).await,
                _ => return store.shared_result(task_id).await,
            };
            serde_json::to_value(TaskWithMeta::from(task)).map_err(|e| ErrorData::internal_error(e.to_string()))
        }
        .boxed()
    }

    /// Answers `tasks/result` for a task another process runs: waits until its snapshot shows
    /// it ended (or it expires).
    async fn shared_result(&self, task_id: &str) -> Result<Value, ErrorData> {
        loop {
            let snapshot = self.snapshot(task_id).await?;
            if snapshot.task.status.is_terminal() {
                return result_of(task_id, snapshot.outcome);
            }
            let interval = snapshot.task.poll_interval.map_or(POLL, Duration::from_millis);
            tokio::time::sleep(interval.clamp(POLL, Duration::from_secs(1))).await;
        }
    }

    /// Answers `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension for a
    /// shared store.
    pub(crate) fn shared_extension_request(
        self: &Arc<Self>,
        method: &str,
        task_id: String,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, ErrorData>> {
        let store = self.clone();
        let method = method.to_owned();
        async move {
            let task_id = task_id.as_str();
            let local = store.is_local(task_id);
            match method.as_str() {
                crate::model::methods::TASKS_GET if local => store.detailed(task_id),
                crate::model::methods::TASKS_GET => {
                    let snapshot = store.snapshot(task_id).await?;
                    Ok(detail_of(&snapshot.task, snapshot.outcome.as_ref(), &snapshot.requests))
                }
                crate::model::methods::TASKS_UPDATE => {
                    let Some(Value::Object(responses)) = params.get("inputResponses") else {
                        return Err(ErrorData::invalid_params("tasks/update needs an inputResponses object"));
                    };
                    if local {
                        store.update(task_id, responses)?;
                        store.flushed().await;
                        return Ok(json!({}));
                    }
                    let snapshot = store.snapshot(task_id).await?;
                    let answered = |s: &Snapshot| {
                        s.task.status != TaskStatus::InputRequired
                            || !responses.keys().any(|k| s.requests.contains_key(k))
                    };
                    if !answered(&snapshot) {
                        store.command(&snapshot, json!({ "update": responses }), answered).await?;
                    }
                    Ok(json!({}))
                }
                _ if local => {
                    store.cancel_extension(task_id)?;
                    store.flushed().await;
                    Ok(json!({}))
                }
                _ => {
                    let snapshot = store.snapshot(task_id).await?;
                    if !snapshot.task.status.is_terminal() {
                        store.command(&snapshot, json!({ "cancel": true }), |s| s.task.status.is_terminal()).await?;
                    }
                    Ok(json!({}))
                }
            }
        }
        .boxed()
    }
}
