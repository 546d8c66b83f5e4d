//! Stateful Streamable HTTP across many server processes that share their state in Redis
//! (feature `redis`).
//!
//! Every process keeps the core sessions it serves in memory, as a lone server does; Redis holds
//! what the others need to take over:
//!
//! - the **session directory**: for each session its negotiated version, the client's
//!   `initialize` params (capabilities, client info), the identity that created it and its
//!   expiry. A process that gets a request for a session it has not seen rebuilds the core
//!   session from it, initializing it on the client's behalf.
//! - the **event store**: every SSE event, in one Redis stream per SSE stream, bounded in length
//!   and expiring with the session. The standalone (GET) stream lives only there: every process
//!   appends to it and the process holding the client's GET stream reads it, so a message sent
//!   anywhere reaches the client. A request stream is delivered by the process running the
//!   request, and read back from Redis by whichever process the client resumes it on.
//! - **routing**: each process draws the ids of the requests it sends to clients, and the ids
//!   of its SSE streams, from a range of its own (its process number times 2^32), so a client's
//!   response names the process waiting for it and goes there through that process's channel;
//!   notifications (cancellations among them) go to every process on the cluster's channel.
//! - **liveness**: each process refreshes a key while it runs. A client that resumes the stream
//!   of a request whose process died gets what was stored and then an error, never a hang.
//! - the `requestState` key of revision 2026-07-28, so that any process accepts what another
//!   minted.
//! - **tasks** (2025-11-25's and the 2026-07-28 extension's): a snapshot of each task, stored
//!   by the process running it after every change and expiring with the task, from which any
//!   process answers; cancellations and input responses go to the running process through its
//!   channel.
//! - **relayed sessions** (a [`Relay`](super::Relay)'s, such as a child process): the directory
//!   names the process holding the connection, which alone can serve it; the others forward
//!   the client's messages to it on its channel and read the answers from Redis.
//!
//! Any Redis failure on a request's path is answered `503 Service Unavailable`; connections are
//! re-established when Redis is back.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use futures::StreamExt;
use redis::{AsyncCommands, aio::ConnectionManager};
use serde_json::{Value, json};
use tokio::{
    sync::{Notify, mpsc},
    task::JoinHandle,
};
use tokio_util::sync::CancellationToken;

use super::sse::{EventId, Frame};
use crate::{
    jsonrpc::{ErrorData, JsonRpcMessage, RequestId},
    sync::lock,
};

/// Settings of a server process that shares its sessions with others through Redis.
///
/// Build them with [`ClusterOptions::new`] and the `with_*` methods; fields may be added in
/// later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClusterOptions {
    /// The Redis URL, such as `redis://127.0.0.1:6379/0`.
    pub url: String,
    /// The prefix of every key and channel, so that several clusters can share one Redis.
    pub prefix: String,
    /// How many events each SSE stream keeps for resumption (approximately: Redis trims in
    /// whole nodes).
    pub max_events_per_stream: usize,
    /// How long a process counts as alive after its last sign of life; it renews it every
    /// third of this.
    pub liveness_ttl: Duration,
    /// How long one Redis command may take before it counts as failed.
    pub command_timeout: Duration,
}

impl std::fmt::Debug for ClusterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterOptions")
            .field("url", &redacted(&self.url))
            .field("prefix", &self.prefix)
            .field("max_events_per_stream", &self.max_events_per_stream)
            .field("liveness_ttl", &self.liveness_ttl)
            .field("command_timeout", &self.command_timeout)
            .finish_non_exhaustive()
    }
}

/// A Redis URL without the password it may carry (`redis://user:secret@host` shows as
/// `redis://user:***@host`).
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let Some((credentials, host)) = rest.rsplit_once('@') else { return url.to_owned() };
    match credentials.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => format!("{scheme}://***@{host}"),
    }
}

impl ClusterOptions {
    /// Creates the settings for the Redis at `url`: keys prefixed `mcpweft`, 1,024 events per
    /// stream, processes dead 5 seconds after their last sign of life, commands failed after
    /// 2 seconds.
    pub fn new(url: impl Into<String>) -> Self {
        ClusterOptions {
            url: url.into(),
            prefix: "mcpweft".to_owned(),
            max_events_per_stream: 1024,
            liveness_ttl: Duration::from_secs(5),
            command_timeout: Duration::from_secs(2),
        }
    }

    /// Sets the prefix of every key and channel.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets how many events each SSE stream keeps (at least 16).
    pub fn with_max_events_per_stream(mut self, events: usize) -> Self {
        self.max_events_per_stream = events.max(16);
        self
    }

    /// Sets how long a process counts as alive after its last sign of life (at least 1 second).
    pub fn with_liveness_ttl(mut self, ttl: Duration) -> Self {
        self.liveness_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Sets how long one Redis command may take before it counts as failed.
    pub fn with_command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout.max(Duration::from_millis(10));
        self
    }
}

/// A Redis failure on a request's path; the request is answered 503.
#[derive(Debug)]
pub(super) struct Unavailable(pub(super) String);

impl From<redis::RedisError> for Unavailable {
    fn from(e: redis::RedisError) -> Self {
        Unavailable(e.to_string())
    }
}

/// How many bits of a request or stream id are the process's own counter.
const PROCESS_SHIFT: u32 = 32;

/// The first process number past those whose ids stay within JavaScript's exact integers
/// (2^53).
const PROCESS_LIMIT: u64 = 1 << (53 - PROCESS_SHIFT);

/// Returns the process that owns an id drawn from a process's range, or `None` for ids of a
/// lone server (process 0) and ids outside every range.
pub(super) fn owner_of(id: u64) -> Option<u64> {
    Some(id >> PROCESS_SHIFT).filter(|p| *p > 0)
}

/// What a session's directory entry says.
pub(super) struct DirectoryEntry {
    /// The version the session negotiated.
    pub(super) version: String,
    /// The client's `initialize` params.
    pub(super) params: Value,
    /// The identity that created the session, as JSON (`null` without authorization).
    pub(super) owner: Value,
    /// The log level the client last set, if it set one.
    pub(super) level: Option<Value>,
    /// The process that holds the connection of a relayed session, which only it can serve.
    pub(super) relay: Option<u64>,
}

/// What another process asks this one to do with a session it may hold.
pub(super) enum BusEvent {
    /// Hand a message from the client to the session; a request forwarded to the process that
    /// holds a relayed session names the stream, minted by the sender, that its events go to.
    Deliver { session: String, message: JsonRpcMessage, stream: Option<u64> },
    /// The session was deleted: end it here too.
    End { session: String },
    /// The client set the session's log level through another process.
    Level { session: String, level: Value },
    /// A resource changed, announced through another process: this process's
    /// `subscriptions/listen` streams hear of it.
    ResourceUpdated { uri: String },
    /// Apply a command (cancel, or hand over input responses) to a task this process runs.
    Task { scope: String, task_id: String, command: Value },
}

/// A task's snapshot on its way into Redis, or a caller waiting for those before it.
enum TaskWrite {
    Save { key: String, index: String, task_id: String, retention_ms: u64, snapshot: String },
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// What the appending task gets: an SSE event to store, or a caller waiting for the events
/// before it to be stored.
enum Appending {
    Event(Append),
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// One SSE event on its way into Redis.
struct Append {
    key: String,
    /// The Redis entry id, or `*` for one Redis picks.
    entry: String,
    /// The encoded message; `None` marks the end of a stream whose request was cancelled.
    message: Option<Vec<u8>>,
    request: Option<String>,
    notice: String,
    /// The set of its session's request streams, for a request stream's event.
    streams: Option<String>,
    /// Whether it answers its request, which ends its stream.
    last: bool,
    /// What it holds in memory until it is written, counted against [`MAX_PENDING_APPENDS`].
    bytes: usize,
}

/// How many bytes of events a process holds on their way into Redis, all sessions together:
/// 16 MiB. Past it, while Redis is slow or away, notifications are shed (progress and logs,
/// which later ones supersede or which only a resumed stream would replay) with a warning;
/// answers are always kept, as the requests in flight bound them.
const MAX_PENDING_APPENDS: usize = 16 * 1024 * 1024;

/// How long the events of a request stream stay in Redis once its answer is stored: long
/// enough for a client cut off before the answer to resume the stream, short enough that Redis
/// holds the streams of live requests, not of every request a session ever made.
const FINISHED_STREAM_TTL: Duration = Duration::from_secs(60);

/// A process's link to the cluster's shared state.
pub(super) struct Cluster {
    options: ClusterOptions,
    /// The connection for commands on requests' paths.
    conn: ConnectionManager,
    /// This process's number (at least 1).
    process: u64,
    /// How long a session may stay unused, in seconds.
    session_ttl: u64,
    appends: mpsc::UnboundedSender<Appending>,
    /// The bytes of the events handed to the appending task and not written yet.
    pending: Arc<AtomicUsize>,
    /// Notifications shed since the last warning, and when that warning was.
    shed: Mutex<(u64, Option<Instant>)>,
    /// Resources whose subscribers are to be told of an update.
    updates: mpsc::UnboundedSender<String>,
    /// Task snapshots to store, in order.
    task_writes: mpsc::UnboundedSender<TaskWrite>,
    /// Followers of streams on this process, woken when events are appended anywhere.
    waiters: Mutex<HashMap<(String, u64), Arc<Notify>>>,
    tasks: Vec<JoinHandle<()>>,
    /// Fires when the process stops serving.
    stopped: CancellationToken,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stopped.cancel();
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Cluster {
    /// Connects to Redis, takes a process number, starts the liveness, appending and listening
    /// tasks, and returns the shared `requestState` key with the link; `on_event` gets what
    /// other processes ask of this one's sessions.
    pub(super) async fn connect(
        options: ClusterOptions,
        session_ttl: Duration,
        on_event: Arc<dyn Fn(BusEvent) + Send + Sync>,
    ) -> Result<(Arc<Cluster>, [u8; 32]), Unavailable> {
        let client = redis::Client::open(options.url.as_str())?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.command_timeout))
            .set_response_timeout(Some(options.command_timeout))
            .set_number_of_retries(1);
        let mut conn = client.get_connection_manager_with_config(config.clone()).await?;
        let appender = client.get_connection_manager_with_config(config).await?;
        let prefix = options.prefix.clone();
        let ttl_ms = u64::try_from(options.liveness_ttl.as_millis()).unwrap_or(u64::MAX);
        let process = claim_process_number(&mut conn, &prefix, ttl_ms).await?;
        let key = shared_key(&mut conn, &prefix).await?;
        let stopped = CancellationToken::new();
        let alive_key = format!("{prefix}:alive:{process}");
        let (appends, rx) = mpsc::unbounded_channel();
        let (updates, updated) = mpsc::unbounded_channel();
        let (task_writes, task_writes_rx) = mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        tasks.push(tokio::spawn(run_task_writes(appender.clone(), task_writes_rx)));
        tasks.push(tokio::spawn(keep_alive(conn.clone(), alive_key, options.liveness_ttl, stopped.clone())));
        let pending = Arc::new(AtomicUsize::new(0));
        let appending =
            Appender { max_events: options.max_events_per_stream, ttl: session_ttl, prefix: prefix.clone() };
        tasks.push(tokio::spawn(run_appends(appender, rx, appending, pending.clone())));
        let cluster = Arc::new_cyclic(|weak: &std::sync::Weak<Cluster>| {
            tasks.push(tokio::spawn(listen(client, prefix.clone(), process, weak.clone(), on_event, stopped.clone())));
            tasks.push(tokio::spawn(run_updates(weak.clone(), updated)));
            Cluster {
                options,
                conn,
                process,
                session_ttl: session_ttl.as_secs().max(1),
                appends,
                pending,
                shed: Mutex::default(),
                updates,
                task_writes,
                waiters: Mutex::default(),
                tasks,
                stopped,
            }
        });
        tracing::info!(process, "joined the cluster");
        Ok((cluster, key))
    }

    /// Returns this process's number.
    pub(super) fn process(&self) -> u64 {
        self.process
    }

    /// Returns the first id of this process's range, for request and stream ids.
    pub(super) fn id_base(&self) -> u64 {
        self.process << PROCESS_SHIFT
    }

    fn key(&self, what: &str) -> String {
        format!("{}:{what}", self.options.prefix)
    }

    fn events_key(&self, session: &str, stream: u64) -> String {
        format!("{}:events:{session}:{stream}", self.options.prefix)
    }

    /// The key of the set of a session's request streams, which go with the session.
    fn streams_key(&self, session: &str) -> String {
        format!("{}:streams:{session}", self.options.prefix)
    }

    /// Hands an event to the appending task, or sheds it when it is a notification and the
    /// events not yet written hold [`MAX_PENDING_APPENDS`] bytes.
    fn hand_over(&self, append: Append, notification: bool) {
        let bytes = append.bytes;
        if notification && self.pending.load(Ordering::Relaxed) + bytes > MAX_PENDING_APPENDS {
            let mut shed = lock(&self.shed);
            shed.0 += 1;
            if shed.1.is_none_or(|at| at.elapsed() >= Duration::from_secs(10)) {
                tracing::warn!(
                    shed = shed.0,
                    "Redis does not keep up: notifications were not stored (a resumed stream will miss them)"
                );
                *shed = (0, Some(Instant::now()));
            }
            return;
        }
        self.pending.fetch_add(bytes, Ordering::Relaxed);
        if self.appends.send(Appending::Event(append)).is_err() {
            self.pending.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    /// Records a new session in the directory; `relay` names the process holding the
    /// connection of a relayed session (this one).
    pub(super) async fn create(
        &self,
        session: &str,
        version: &str,
        params: &Value,
        owner: &Value,
        relay: Option<u64>,
    ) -> Result<(), Unavailable> {
        let key = self.key(&format!("session:{session}"));
        let mut fields =
            vec![("version", version.to_owned()), ("params", params.to_string()), ("owner", owner.to_string())];
        if let Some(process) = relay {
            fields.push(("relay", process.to_string()));
        }
        let mut conn = self.conn.clone();
        let () = redis::pipe()
            .atomic()
            .hset_multiple(&key, &fields)
            .ignore()
            .expire(&key, self.session_ttl as i64)
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Records the log level a client set, for the processes that restore its session later,
    /// and tells the processes that hold it now.
    pub(super) async fn set_level(&self, session: &str, level: &Value) -> Result<(), Unavailable> {
        let mut conn = self.conn.clone();
        let notice = json!({ "k": "level", "s": session, "from": self.process, "level": level }).to_string();
        let () = redis::pipe()
            .hset(self.key(&format!("session:{session}")), "level", level.to_string())
            .ignore()
            .publish(self.key("bus"), notice)
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    /// Records whether `session` is subscribed to updates of `uri`.
    pub(super) async fn set_subscribed(&self, session: &str, uri: &str, subscribed: bool) -> Result<(), Unavailable> {
        let key = self.key(&format!("subscribers:{uri}"));
        let mut conn = self.conn.clone();
        if subscribed {
            let () = redis::pipe()
                .sadd(&key, session)
                .ignore()
                .expire(&key, self.session_ttl as i64)
                .ignore()
                .query_async(&mut conn)
                .await?;
        } else {
            let _: u64 = conn.srem(&key, session).await?;
        }
        Ok(())
    }

    /// Tells every session of the cluster subscribed to `uri`, and the other processes'
    /// `subscriptions/listen` streams, that the resource changed, in the background.
    pub(super) fn resource_updated(&self, uri: &str) {
        let _ = self.updates.send(uri.to_owned());
    }

    async fn send_resource_updated(&self, uri: &str) -> Result<(), Unavailable> {
        let key = self.key(&format!("subscribers:{uri}"));
        let mut conn = self.conn.clone();
        let notice = json!({ "k": "resource", "uri": uri, "from": self.process }).to_string();
        let (sessions, _): (Vec<String>, u64) =
            redis::pipe().smembers(&key).publish(self.key("bus"), notice).query_async(&mut conn).await?;
        if sessions.is_empty() {
            return Ok(());
        }
        let mut exists = redis::pipe();
        for session in &sessions {
            exists.exists(self.key(&format!("session:{session}")));
        }
        let alive: Vec<bool> = exists.query_async(&mut conn).await?;
        let message = JsonRpcMessage::notification(
            crate::model::methods::NOTIFICATIONS_RESOURCES_UPDATED,
            Some(json!({ "uri": uri })),
        );
        let mut gone = Vec::new();
        for (session, alive) in sessions.iter().zip(alive) {
            if alive {
                self.append_standalone(session, &message);
            } else {
                gone.push(session);
            }
        }
        if !gone.is_empty() {
            let _: u64 = conn.srem(&key, gone).await?;
        }
        Ok(())
    }

    /// Renews a session's expiry; returns false when the directory no longer has it, or when
    /// `relay`, the process holding the connection of a relayed session, is no longer alive.
    pub(super) async fn touch(&self, session: &str, relay: Option<u64>) -> Result<bool, Unavailable> {
        let mut conn = self.conn.clone();
        let key = self.key(&format!("session:{session}"));
        let Some(process) = relay.filter(|p| *p != self.process) else {
            return Ok(conn.expire(key, self.session_ttl as i64).await?);
        };
        let (kept, alive): (bool, bool) = redis::pipe()
            .expire(key, self.session_ttl as i64)
            .exists(self.key(&format!("alive:{process}")))
            .query_async(&mut conn)
            .await?;
        Ok(kept && alive)
    }

    /// Returns whether the directory has a session, without renewing its expiry.
    pub(super) async fn exists(&self, session: &str) -> Result<bool, Unavailable> {
        let mut conn = self.conn.clone();
        Ok(conn.exists(self.key(&format!("session:{session}"))).await?)
    }

    /// Reads a session's directory entry, renewing its expiry.
    pub(super) async fn load(&self, session: &str) -> Result<Option<DirectoryEntry>, Unavailable> {
        let key = self.key(&format!("session:{session}"));
        let mut conn = self.conn.clone();
        let (fields, _): (HashMap<String, String>, bool) =
            redis::pipe().hgetall(&key).expire(&key, self.session_ttl as i64).query_async(&mut conn).await?;
        let parse = |name: &str| fields.get(name).and_then(|v| serde_json::from_str::<Value>(v).ok());
        let (Some(version), Some(params)) = (fields.get("version"), parse("params")) else { return Ok(None) };
        Ok(Some(DirectoryEntry {
            version: version.clone(),
            params,
            owner: parse("owner").unwrap_or(Value::Null),
            level: parse("level"),
            relay: fields.get("relay").and_then(|p| p.parse().ok()),
        }))
    }

    /// Deletes a session everywhere: its directory entry, its standalone events and those of
    /// its request streams, and its copies on other processes.
    pub(super) async fn delete(&self, session: &str) -> Result<(), Unavailable> {
        let mut conn = self.conn.clone();
        let notice = json!({ "k": "end", "s": session }).to_string();
        let streams_key = self.streams_key(session);
        let mut keys: Vec<String> = conn.smembers(&streams_key).await?;
        keys.extend([
            self.key(&format!("session:{session}")),
            self.events_key(session, 0),
            self.key(&format!("delivered:{session}")),
            streams_key,
        ]);
        let () =
            redis::pipe().del(&keys).ignore().publish(self.key("bus"), notice).ignore().query_async(&mut conn).await?;
        Ok(())
    }

    /// Sends a message from the client to the copies of `session` on other processes: to the
    /// one process `target` when given, else to all; a request for a relayed session names the
    /// `stream` its events are to be stored in. Returns how many processes heard it.
    pub(super) async fn forward(
        &self,
        target: Option<u64>,
        session: &str,
        message: &JsonRpcMessage,
        stream: Option<u64>,
    ) -> Result<u64, Unavailable> {
        let channel = match target {
            Some(process) => self.key(&format!("process:{process}")),
            None => self.key("bus"),
        };
        let mut payload = json!({ "k": "deliver", "s": session, "from": self.process, "m": message });
        if let Some(stream) = stream {
            payload["st"] = json!(stream);
        }
        let mut conn = self.conn.clone();
        Ok(conn.publish(channel, payload.to_string()).await?)
    }

    fn task_key(&self, scope: &str, task_id: &str) -> String {
        format!("{}:task:{scope}:{task_id}", self.options.prefix)
    }

    fn task_index(&self, scope: &str) -> String {
        format!("{}:tasks:{scope}", self.options.prefix)
    }

    /// Reads a task's snapshot; one whose owner died while it ran reads as failed.
    async fn load_task(&self, scope: &str, task_id: &str) -> Result<Option<Value>, Unavailable> {
        let mut conn = self.conn.clone();
        let stored: Option<String> = conn.get(self.task_key(scope, task_id)).await?;
        let Some(mut snapshot) = stored.and_then(|s| serde_json::from_str::<Value>(&s).ok()) else { return Ok(None) };
        let running = !matches!(snapshot["task"]["status"].as_str(), Some("completed" | "failed" | "cancelled"));
        if let Some(owner) = snapshot["owner"].as_u64()
            && running
            && owner != self.process
            && !self.is_alive(owner).await?
        {
            snapshot["task"]["status"] = json!("failed");
            snapshot["task"]["statusMessage"] =
                json!(format!("the server process that ran this task (process {owner}) ended before it finished"));
            if let Value::Object(map) = &mut snapshot {
                map.remove("inputRequests");
            }
        }
        Ok(Some(snapshot))
    }

    /// Reads the snapshots of a scope's tasks, oldest first, forgetting those that expired.
    async fn list_tasks(&self, scope: &str) -> Result<Vec<Value>, Unavailable> {
        let index = self.task_index(scope);
        let mut conn = self.conn.clone();
        let ids: Vec<String> = conn.zrange(&index, 0, -1).await?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = ids.iter().map(|id| self.task_key(scope, id)).collect();
        let stored: Vec<Option<String>> = redis::cmd("MGET").arg(&keys).query_async(&mut conn).await?;
        let gone: Vec<&String> = ids.iter().zip(&stored).filter(|(_, s)| s.is_none()).map(|(id, _)| id).collect();
        if !gone.is_empty() {
            let _: u64 = conn.zrem(&index, gone).await?;
        }
        Ok(stored.into_iter().flatten().filter_map(|s| serde_json::from_str(&s).ok()).collect())
    }

    /// Sends a command for one of its tasks to process `owner`.
    async fn send_task_command(&self, owner: u64, scope: &str, task_id: &str, command: Value) -> Result<(), ErrorData> {
        let payload = json!({ "k": "task", "s": scope, "id": task_id, "c": command }).to_string();
        let mut conn = self.conn.clone();
        let heard: u64 = conn.publish(self.key(&format!("process:{owner}")), payload).await.map_err(task_error)?;
        if heard == 0 {
            return Err(ErrorData::internal_error(format!(
                "the server process running task {task_id} (process {owner}) is gone"
            )));
        }
        Ok(())
    }

    /// Returns whether process `process` has shown a sign of life recently.
    pub(super) async fn is_alive(&self, process: u64) -> Result<bool, Unavailable> {
        let mut conn = self.conn.clone();
        Ok(conn.exists(self.key(&format!("alive:{process}"))).await?)
    }

    /// Stores an event of a request stream under its sequence number, in order with the others
    /// this process stores.
    pub(super) fn append(&self, session: &str, stream: u64, seq: u64, request: &RequestId, message: &JsonRpcMessage) {
        let encoded = message.encode();
        let key = self.events_key(session, stream);
        let notice = notice(session, stream);
        let bytes = encoded.len() + 2 * key.len() + notice.len() + 64;
        let append = Append {
            key,
            entry: format!("{seq}-0"),
            message: Some(encoded),
            request: serde_json::to_string(request).ok(),
            notice,
            streams: Some(self.streams_key(session)),
            last: message.answers() == Some(request),
            bytes,
        };
        self.hand_over(append, matches!(message, JsonRpcMessage::Notification(_)));
    }

    /// Marks the end of a request stream whose request was cancelled, as its event `seq`: the
    /// processes following it end it there, with no answer, as a lone server ends it.
    pub(super) fn end_stream(&self, session: &str, stream: u64, seq: u64) {
        let key = self.events_key(session, stream);
        let notice = notice(session, stream);
        let bytes = 2 * key.len() + notice.len() + 64;
        let append = Append {
            key,
            entry: format!("{seq}-0"),
            message: None,
            request: None,
            notice,
            streams: Some(self.streams_key(session)),
            last: true,
            bytes,
        };
        self.hand_over(append, false);
    }

    /// Stores a message of a session's standalone stream, for whichever process holds the
    /// client's GET stream.
    pub(super) fn append_standalone(&self, session: &str, message: &JsonRpcMessage) {
        let encoded = message.encode();
        let key = self.events_key(session, 0);
        let notice = notice(session, 0);
        let bytes = encoded.len() + key.len() + notice.len() + 64;
        let append = Append {
            key,
            entry: "*".to_owned(),
            message: Some(encoded),
            request: None,
            notice,
            streams: None,
            last: false,
            bytes,
        };
        self.hand_over(append, matches!(message, JsonRpcMessage::Notification(_)));
    }

    /// Completes once every event this process handed over so far is stored (or failed to be),
    /// so that a client that got a response finds in Redis what was sent before it.
    pub(super) async fn appended(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.appends.send(Appending::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    fn waiter(&self, session: &str, stream: u64) -> Arc<Notify> {
        lock(&self.waiters).entry((session.to_owned(), stream)).or_default().clone()
    }

    fn wake(&self, session: &str, stream: u64) {
        if let Some(waiter) = lock(&self.waiters).get(&(session.to_owned(), stream)) {
            waiter.notify_waiters();
        }
    }

    fn forget_waiter(&self, session: &str, stream: u64, waiter: &Arc<Notify>) {
        let mut waiters = lock(&self.waiters);
        // Only the map and this follower hold it: no other follower of the stream is left.
        if Arc::strong_count(waiter) <= 2 {
            waiters.remove(&(session.to_owned(), stream));
        }
    }

    /// Reads the events of a stream after entry `after` (`-` for all), at most 256.
    async fn read(&self, session: &str, stream: u64, after: &str) -> Result<Vec<Entry>, Unavailable> {
        let start = if after == "-" { "-".to_owned() } else { format!("({after}") };
        let mut conn = self.conn.clone();
        let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
            .arg(self.events_key(session, stream))
            .arg(start)
            .arg("+")
            .arg("COUNT")
            .arg(256)
            .query_async(&mut conn)
            .await?;
        Ok(entries.into_iter().filter_map(Entry::parse).collect())
    }

    /// Returns the oldest entry of a stream still stored, if any.
    async fn oldest(&self, session: &str, stream: u64) -> Result<Option<Entry>, Unavailable> {
        let mut conn = self.conn.clone();
        let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
            .arg(self.events_key(session, stream))
            .arg("-")
            .arg("+")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut conn)
            .await?;
        Ok(entries.into_iter().next().and_then(Entry::parse))
    }

    /// Opens the client's view of a stream stored in Redis from just after `after` (a Redis
    /// entry id, or `None` to start after what an earlier GET stream delivered), checking that
    /// nothing was trimmed in between. Events then arrive on the returned queue; a request
    /// stream ends after its response, or with an error when the process that produces it died
    /// (`producer`, by default the one whose range the stream id is drawn from), and the
    /// standalone stream of a relayed session ends when `producer` died. `guard` is dropped when
    /// the stream ends.
    #[allow(clippy::too_many_arguments)] // one follower's whole setting, given once
    pub(super) async fn follow(
        self: &Arc<Self>,
        session: String,
        stream: u64,
        after: Option<String>,
        producer: Option<u64>,
        queue: usize,
        closed: CancellationToken,
        guard: impl Send + 'static,
    ) -> Result<Result<mpsc::Receiver<Box<Frame>>, &'static str>, Unavailable> {
        let mut request = None;
        let after = match after {
            Some(after) => {
                // A request stream's entries are numbered without gaps: an oldest entry past the
                // one after the client's means events were trimmed. The standalone stream's ids
                // are Redis's own, and there only an emptied stream tells.
                let oldest = self.oldest(&session, stream).await?;
                let after_seq = parse_entry(&after).0;
                if stream != 0 && oldest.as_ref().is_some_and(|o| parse_entry(&o.id).0 > after_seq.saturating_add(1)) {
                    return Ok(Err("the events after Last-Event-ID are gone"));
                }
                // Every entry of a request stream names the request.
                request = oldest.and_then(|o| o.request);
                after
            }
            None => {
                let mut conn = self.conn.clone();
                let delivered: Option<String> = conn.get(self.key(&format!("delivered:{session}"))).await?;
                delivered.unwrap_or_else(|| "-".to_owned())
            }
        };
        let (tx, rx) = mpsc::channel(queue.max(1));
        let cluster = self.clone();
        tokio::spawn(async move {
            let _guard = guard;
            let waiter = cluster.waiter(&session, stream);
            let position = Position { session: session.clone(), stream, after, request, producer };
            let result = cluster.run_follower(position, &tx, &waiter, &closed).await;
            cluster.forget_waiter(&session, stream, &waiter);
            if let Err(Unavailable(e)) = result {
                tracing::warn!(session, stream, error = %e, "a followed stream ended: Redis failed");
            }
        });
        Ok(Ok(rx))
    }

    async fn run_follower(
        &self,
        position: Position,
        tx: &mpsc::Sender<Box<Frame>>,
        waiter: &Arc<Notify>,
        closed: &CancellationToken,
    ) -> Result<(), Unavailable> {
        let Position { session, stream, mut after, mut request, producer } = position;
        let session = session.as_str();
        let delivered_key = self.key(&format!("delivered:{session}"));
        let mut idle_rounds = 0u32;
        loop {
            let woken = waiter.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let entries = self.read(session, stream, &after).await?;
            let fetched = entries.len();
            for entry in entries {
                after = entry.id.clone();
                if request.is_none() {
                    request = entry.request.clone();
                }
                let Some(message) = entry.message else { return Ok(()) };
                let is_final = request.is_some() && message.answers() == request.as_ref();
                let event_id = EventId::Written(format!("{stream}_{}", client_entry(stream, &entry.id)));
                if tx.send(Box::new(Frame::Event(event_id, message))).await.is_err() {
                    return Ok(());
                }
                if is_final {
                    return Ok(());
                }
            }
            if stream == 0 && fetched > 0 {
                let mut conn = self.conn.clone();
                let () = conn.set_ex(&delivered_key, &after, self.session_ttl).await?;
            }
            if fetched == 256 {
                continue;
            }
            let tick = tokio::time::sleep(Duration::from_secs(1));
            tokio::select! {
                _ = woken => idle_rounds = 0,
                _ = tick => idle_rounds += 1,
                _ = closed.cancelled() => return Ok(()),
                _ = tx.closed() => return Ok(()),
                _ = self.stopped.cancelled() => return Ok(()),
            }
            if idle_rounds > 0 && idle_rounds.is_multiple_of(2) {
                if stream == 0 {
                    if !self.touch(session, producer).await? {
                        return Ok(());
                    }
                } else if let Some(process) = producer.or_else(|| owner_of(stream))
                    && process != self.process
                    && !self.is_alive(process).await?
                {
                    // Nothing more comes: the events appended before the end are read once
                    // more, then the request fails.
                    for entry in self.read(session, stream, &after).await? {
                        after = entry.id.clone();
                        let Some(message) = entry.message else { return Ok(()) };
                        let event_id = EventId::Written(format!("{stream}_{}", client_entry(stream, &entry.id)));
                        if tx.send(Box::new(Frame::Event(event_id, message))).await.is_err() {
                            return Ok(());
                        }
                    }
                    let error = ErrorData::internal_error(format!(
                        "the server process that ran this request (process {process}) ended before it finished"
                    ));
                    let seq = after.split('-').next().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
                    let message = JsonRpcMessage::error(request.clone(), error);
                    let event_id = EventId::Local(stream, seq.saturating_add(1));
                    let _ = tx.send(Box::new(Frame::Event(event_id, message))).await;
                    return Ok(());
                }
            }
        }
    }
}

/// The JSON-RPC error for a task request that needed Redis while it failed.
fn task_error(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("the shared task store (Redis) cannot be reached: {e}"))
}

/// The cluster as the server's tasks see it: where they are shared.
pub(super) struct ClusterTasks(pub(super) std::sync::Weak<Cluster>);

impl ClusterTasks {
    fn cluster(&self) -> Result<Arc<Cluster>, ErrorData> {
        self.0.upgrade().ok_or_else(|| task_error("this process left the cluster"))
    }
}

impl crate::server::TaskShare for ClusterTasks {
    fn process(&self) -> u64 {
        self.0.upgrade().map_or(0, |c| c.process)
    }

    fn save(&self, scope: &str, task_id: &str, retention: Duration, snapshot: Value) {
        let Some(cluster) = self.0.upgrade() else { return };
        let _ = cluster.task_writes.send(TaskWrite::Save {
            key: cluster.task_key(scope, task_id),
            index: cluster.task_index(scope),
            task_id: task_id.to_owned(),
            retention_ms: u64::try_from(retention.as_millis()).unwrap_or(u64::MAX).max(1),
            snapshot: snapshot.to_string(),
        });
    }

    fn flush(&self) -> futures::future::BoxFuture<'static, ()> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if let Some(cluster) = self.0.upgrade() {
            let _ = cluster.task_writes.send(TaskWrite::Flush(tx));
        }
        Box::pin(async move {
            let _ = rx.await;
        })
    }

    fn load(
        &self,
        scope: &str,
        task_id: &str,
    ) -> futures::future::BoxFuture<'static, Result<Option<Value>, ErrorData>> {
        let (cluster, scope, task_id) = (self.cluster(), scope.to_owned(), task_id.to_owned());
        Box::pin(async move { cluster?.load_task(&scope, &task_id).await.map_err(|e| task_error(e.0)) })
    }

    fn list(&self, scope: &str) -> futures::future::BoxFuture<'static, Result<Vec<Value>, ErrorData>> {
        let (cluster, scope) = (self.cluster(), scope.to_owned());
        Box::pin(async move { cluster?.list_tasks(&scope).await.map_err(|e| task_error(e.0)) })
    }

    fn command(
        &self,
        owner: u64,
        scope: &str,
        task_id: &str,
        command: Value,
    ) -> futures::future::BoxFuture<'static, Result<(), ErrorData>> {
        let (cluster, scope, task_id) = (self.cluster(), scope.to_owned(), task_id.to_owned());
        Box::pin(async move { cluster?.send_task_command(owner, &scope, &task_id, command).await })
    }
}

/// Stores task snapshots in the order they were made, many per round trip, and answers those
/// waiting for them to be stored.
async fn run_task_writes(mut conn: ConnectionManager, mut rx: mpsc::UnboundedReceiver<TaskWrite>) {
    let mut batch = Vec::with_capacity(16);
    while rx.recv_many(&mut batch, 256).await > 0 {
        let mut pipe = redis::pipe();
        let mut waiting = Vec::new();
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis();
        for write in batch.drain(..) {
            match write {
                TaskWrite::Save { key, index, task_id, retention_ms, snapshot } => {
                    pipe.cmd("SET").arg(&key).arg(snapshot).arg("PX").arg(retention_ms).ignore();
                    pipe.cmd("ZADD").arg(&index).arg("NX").arg(now_ms as f64).arg(task_id).ignore();
                    // The index lives as long as its longest-lived task.
                    let keep = retention_ms.max(UNLIMITED_TASK_RETENTION_MS);
                    pipe.cmd("PEXPIRE").arg(&index).arg(keep).ignore();
                }
                TaskWrite::Flush(done) => waiting.push(done),
            }
        }
        let written: Result<(), _> = pipe.query_async(&mut conn).await;
        if let Err(e) = written {
            tracing::warn!(error = %e, "task snapshots could not be stored in Redis: other processes will not see them");
        }
        for done in waiting {
            let _ = done.send(());
        }
    }
}

/// How long a scope's index of tasks is kept after its last change, at least: as long as a
/// task without a retention time.
const UNLIMITED_TASK_RETENTION_MS: u64 = 24 * 3600 * 1000;

/// Where a follower stands in a stream.
struct Position {
    session: String,
    stream: u64,
    /// The last entry delivered (`-` before the first).
    after: String,
    /// The request a request stream answers, once known.
    request: Option<RequestId>,
    /// The process whose death ends the stream, when it is not the one whose range the
    /// stream id is drawn from (a relayed session's).
    producer: Option<u64>,
}

/// One stored event read back.
struct Entry {
    id: String,
    /// The message; `None` for the end of a stream whose request was cancelled.
    message: Option<JsonRpcMessage>,
    request: Option<RequestId>,
}

impl Entry {
    fn parse((id, fields): (String, Vec<String>)) -> Option<Entry> {
        let mut message = None;
        let mut ended = false;
        let mut request = None;
        for pair in fields.chunks(2) {
            match (pair[0].as_str(), pair.get(1)) {
                ("m", Some(m)) => message = JsonRpcMessage::decode(m.as_bytes()).ok(),
                ("e", Some(_)) => ended = true,
                ("r", Some(r)) => request = serde_json::from_str(r).ok(),
                _ => {}
            }
        }
        if message.is_none() && !ended {
            return None;
        }
        Some(Entry { id, message, request })
    }
}

/// The part of an event id after the stream: the sequence number for a request stream, the
/// Redis entry id for the standalone stream.
fn client_entry(stream: u64, entry: &str) -> String {
    if stream == 0 { entry.to_owned() } else { entry.split('-').next().unwrap_or(entry).to_owned() }
}

/// Turns the part of a client's `Last-Event-ID` after the stream into a Redis entry id.
pub(super) fn entry_of(stream: u64, part: &str) -> Option<String> {
    let parse = |s: &str| s.parse::<u64>().ok();
    if stream == 0 {
        let (ms, n) = part.split_once('-')?;
        Some(format!("{}-{}", parse(ms)?, parse(n)?))
    } else {
        Some(format!("{}-0", parse(part)?))
    }
}

fn parse_entry(id: &str) -> (u64, u64) {
    let (a, b) = id.split_once('-').unwrap_or((id, "0"));
    (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
}

fn notice(session: &str, stream: u64) -> String {
    json!({ "k": "events", "s": session, "st": stream }).to_string()
}

/// Picks this process's number at random and claims it with its liveness key, so that two
/// running processes never share one, even after Redis lost its data (a counter would start
/// over and hand out numbers that running processes hold).
async fn claim_process_number(conn: &mut ConnectionManager, prefix: &str, ttl_ms: u64) -> Result<u64, Unavailable> {
    for _ in 0..16 {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| Unavailable(format!("no random process number: {e}")))?;
        let process = u64::from_le_bytes(bytes) % (PROCESS_LIMIT - 1) + 1;
        let claimed: bool = redis::cmd("SET")
            .arg(format!("{prefix}:alive:{process}"))
            .arg(1u8)
            .arg("NX")
            .arg("PX")
            .arg(ttl_ms)
            .query_async::<Option<String>>(conn)
            .await?
            .is_some();
        if claimed {
            return Ok(process);
        }
    }
    Err(Unavailable("no free process number was found".to_owned()))
}

/// Reads the cluster's `requestState` key, making it when this is the first process.
async fn shared_key(conn: &mut ConnectionManager, prefix: &str) -> Result<[u8; 32], Unavailable> {
    let name = format!("{prefix}:request-state-key");
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| Unavailable(format!("no random key: {e}")))?;
    let fresh_hex: String = fresh.iter().map(|b| format!("{b:02x}")).collect();
    let (_, stored): (bool, String) = redis::pipe().set_nx(&name, &fresh_hex).get(&name).query_async(conn).await?;
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        let pair = stored.get(i * 2..i * 2 + 2).ok_or_else(|| Unavailable("a malformed shared key".to_owned()))?;
        *byte = u8::from_str_radix(pair, 16).map_err(|_| Unavailable("a malformed shared key".to_owned()))?;
    }
    Ok(key)
}

/// Renews this process's liveness key until the process stops.
async fn keep_alive(mut conn: ConnectionManager, key: String, ttl: Duration, stopped: CancellationToken) {
    let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
    loop {
        tokio::select! {
            _ = tokio::time::sleep(ttl / 3) => {}
            _ = stopped.cancelled() => break,
        }
        let renewed: Result<(), _> = conn.pset_ex(&key, 1u8, ttl_ms).await;
        if let Err(e) = renewed {
            tracing::warn!(error = %e, "could not renew this process's liveness in Redis");
        }
    }
    let _: Result<(), _> = conn.del(&key).await;
}

/// How the appending task writes events: the bound of each stream and how long they stay.
struct Appender {
    max_events: usize,
    ttl: Duration,
    prefix: String,
}

/// Writes events into Redis in the order they were produced, many per round trip, and counts
/// their bytes off `pending` once written (or failed).
async fn run_appends(
    mut conn: ConnectionManager,
    mut rx: mpsc::UnboundedReceiver<Appending>,
    appender: Appender,
    pending: Arc<AtomicUsize>,
) {
    let ttl = appender.ttl.as_secs().max(1) as i64;
    let finished_ttl = FINISHED_STREAM_TTL.as_secs() as i64;
    let bus = format!("{}:bus", appender.prefix);
    let mut batch = Vec::with_capacity(64);
    while rx.recv_many(&mut batch, 256).await > 0 {
        let mut pipe = redis::pipe();
        let mut notices = HashSet::new();
        let mut keys = HashSet::new();
        let mut finished = HashSet::new();
        let mut sets: HashMap<String, HashSet<String>> = HashMap::new();
        let mut waiting = Vec::new();
        let mut events = 0usize;
        let mut bytes = 0usize;
        for appending in batch.drain(..) {
            let append = match appending {
                Appending::Event(append) => append,
                Appending::Flush(done) => {
                    waiting.push(done);
                    continue;
                }
            };
            events += 1;
            bytes += append.bytes;
            let mut xadd = redis::cmd("XADD");
            xadd.arg(&append.key).arg("MAXLEN").arg("~").arg(appender.max_events).arg(&append.entry);
            match &append.message {
                Some(message) => xadd.arg("m").arg(message),
                None => xadd.arg("e").arg(1u8),
            };
            if let Some(request) = &append.request {
                xadd.arg("r").arg(request);
            }
            pipe.add_command(xadd).ignore();
            if let Some(set) = append.streams {
                sets.entry(set).or_default().insert(append.key.clone());
            }
            if append.last {
                finished.insert(append.key.clone());
            }
            keys.insert(append.key);
            notices.insert(append.notice);
        }
        for (set, members) in &sets {
            pipe.sadd(set, members.iter().collect::<Vec<_>>()).ignore().expire(set, ttl).ignore();
        }
        for key in keys {
            let ttl = if finished.contains(&key) { finished_ttl } else { ttl };
            pipe.expire(key, ttl).ignore();
        }
        for notice in notices {
            pipe.publish(&bus, notice).ignore();
        }
        if events > 0 {
            let written: Result<(), _> = pipe.query_async(&mut conn).await;
            if let Err(e) = written {
                tracing::warn!(error = %e, "SSE events could not be stored in Redis: a resumed stream will miss them");
            }
            pending.fetch_sub(bytes, Ordering::Relaxed);
        }
        for done in waiting {
            let _ = done.send(());
        }
    }
}

/// Tells subscribers of resource updates, one update after the other.
async fn run_updates(cluster: std::sync::Weak<Cluster>, mut updated: mpsc::UnboundedReceiver<String>) {
    while let Some(uri) = updated.recv().await {
        let Some(cluster) = cluster.upgrade() else { return };
        if let Err(Unavailable(e)) = cluster.send_resource_updated(&uri).await {
            tracing::warn!(uri, error = %e, "a resource update could not reach its subscribers: Redis failed");
        }
    }
}

/// Listens on the cluster's channel and this process's own, reconnecting when Redis goes away,
/// and acts on what arrives.
async fn listen(
    client: redis::Client,
    prefix: String,
    process: u64,
    cluster: std::sync::Weak<Cluster>,
    on_event: Arc<dyn Fn(BusEvent) + Send + Sync>,
    stopped: CancellationToken,
) {
    let channels = [format!("{prefix}:bus"), format!("{prefix}:process:{process}")];
    let mut delay = Duration::from_millis(100);
    while !stopped.is_cancelled() {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channels).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        let pubsub = match subscribed.await {
            Ok(pubsub) => pubsub,
            Err(e) => {
                tracing::warn!(error = %e, "could not subscribe to the cluster's channels; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = stopped.cancelled() => return,
                }
                delay = (delay * 2).min(Duration::from_secs(2));
                continue;
            }
        };
        delay = Duration::from_millis(100);
        let mut messages = pubsub.into_on_message();
        loop {
            let message = tokio::select! {
                message = messages.next() => message,
                _ = stopped.cancelled() => return,
            };
            let Some(message) = message else { break };
            let Ok(payload) = serde_json::from_slice::<Value>(message.get_payload_bytes()) else { continue };
            if payload["k"] == "resource" && payload["from"].as_u64() != Some(process) {
                if let Some(uri) = payload["uri"].as_str() {
                    on_event(BusEvent::ResourceUpdated { uri: uri.to_owned() });
                }
                continue;
            }
            let Some(session) = payload["s"].as_str().map(str::to_owned) else { continue };
            match payload["k"].as_str() {
                Some("events") => {
                    if let (Some(cluster), Some(stream)) = (cluster.upgrade(), payload["st"].as_u64()) {
                        cluster.wake(&session, stream);
                    }
                }
                Some("end") => on_event(BusEvent::End { session }),
                Some("task") => {
                    let Some(task_id) = payload["id"].as_str().map(str::to_owned) else { continue };
                    on_event(BusEvent::Task { scope: session, task_id, command: payload["c"].clone() });
                }
                Some("level") if payload["from"].as_u64() != Some(process) => {
                    on_event(BusEvent::Level { session, level: payload["level"].clone() });
                }
                Some("deliver") if payload["from"].as_u64() != Some(process) => {
                    let Ok(message) = serde_json::from_value::<JsonRpcMessage>(payload["m"].clone()) else { continue };
                    on_event(BusEvent::Deliver { session, message, stream: payload["st"].as_u64() });
                }
                _ => {}
            }
        }
        tracing::warn!("the cluster's channels were lost; resubscribing");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_url_is_not_shown() {
        let options = ClusterOptions::new("redis://app:s3cret@cache:6379/0");
        let shown = format!("{options:?}");
        assert!(!shown.contains("s3cret") && shown.contains("redis://app:***@cache:6379/0"), "{shown}");
        assert_eq!(redacted("redis://:s3cret@cache"), "redis://:***@cache");
        assert_eq!(redacted("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }

    #[test]
    fn ids_name_the_process_that_minted_them() {
        assert_eq!(owner_of(3 << PROCESS_SHIFT | 17), Some(3));
        assert_eq!(owner_of(17), None, "a lone server's ids belong to no process");
        assert_eq!(entry_of(0, "1700000000000-3").as_deref(), Some("1700000000000-3"));
        assert_eq!(entry_of(5, "12").as_deref(), Some("12-0"));
        assert_eq!(entry_of(5, "x"), None);
        assert_eq!(client_entry(5, "12-0"), "12");
    }
}
