//! The core's traces, written to stderr or handed to the host language's logging.
//!
//! [`init_logging`] installs the process's one `tracing` subscriber, once: it writes to stderr
//! what `MCPWEFT_LOG` selects (warnings and errors without it). [`init_logging_with`] installs
//! it with a [`LogSink`] instead, for a binding whose language has a logging system of its own
//! (Python's `logging`): records at or above the level the binding sets with
//! [`set_forwarded_level`] go to the sink, and stderr gets only what `MCPWEFT_LOG` selects
//! when it is set.
//!
//! The thread that emits a record never calls the sink: it formats the record and queues it
//! (at most [`QUEUED_RECORDS`]; beyond that records are dropped and counted), and one thread of
//! the bridge, `mcpweft-log`, hands the queued records to the sink in batches. A binding that
//! must lock its interpreter to log therefore does so once per batch, off the threads that
//! serve the protocol. Below the forwarded level a record costs what a disabled `tracing`
//! event costs: the level is part of the subscriber's maximum level, which `tracing`'s macros
//! check before anything else.

use std::{
    fmt::Write as _,
    sync::{
        Arc, Once,
        atomic::{AtomicU8, AtomicU64, Ordering},
        mpsc::{self, Receiver, SyncSender},
    },
};

pub use tracing::Level;
use tracing::{
    Event, Metadata, Subscriber,
    field::{Field, Visit},
    level_filters::LevelFilter,
    subscriber::Interest,
};
use tracing_subscriber::{
    EnvFilter, Layer,
    layer::{Context, Filter, SubscriberExt},
    util::SubscriberInitExt,
};

/// How many records may wait for the sink; later ones are dropped until it catches up.
pub const QUEUED_RECORDS: usize = 4096;

/// How many records the sink gets at most in one call.
const BATCH: usize = 256;

/// One trace of the core, formatted for a host language's logging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// The record's level.
    pub level: Level,
    /// The dotted logger name the record belongs to: `mcpweft` for the core's crate root, and
    /// a child per module below it, such as `mcpweft.http.server` for the target
    /// `mcpweft::http::server`; another crate's target is a child of `mcpweft` too
    /// (`mcpweft.mcpweft_bridge.pool`, `mcpweft.h2.proto`), so that one logger governs them all.
    pub logger: String,
    /// The record's `tracing` target, as it is.
    pub target: String,
    /// The message, followed by the record's other fields as ` name=value`.
    pub message: String,
}

/// Where forwarded records go: the host language's logging.
pub trait LogSink: Send + Sync + 'static {
    /// Delivers records, oldest first; called on the bridge's `mcpweft-log` thread only.
    fn deliver(&self, records: Vec<LogRecord>);
}

/// The most verbose level forwarded: 0 forwards nothing, 1 errors, ..., 5 traces.
static FORWARDED: AtomicU8 = AtomicU8::new(0);
/// Records dropped because the queue was full, not yet reported to the sink.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// How many records are queued and not yet delivered to the sink.
static PENDING: AtomicU64 = AtomicU64::new(0);

fn rank(level: Level) -> u8 {
    match level {
        Level::ERROR => 1,
        Level::WARN => 2,
        Level::INFO => 3,
        Level::DEBUG => 4,
        Level::TRACE => 5,
    }
}

fn forwarded_filter() -> LevelFilter {
    match FORWARDED.load(Ordering::Relaxed) {
        0 => LevelFilter::OFF,
        1 => LevelFilter::ERROR,
        2 => LevelFilter::WARN,
        3 => LevelFilter::INFO,
        4 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// Sets the most verbose level handed to the sink (`None`: nothing), such as the lowest level
/// the host language's loggers let through. Nothing is forwarded until it is first set.
///
/// Changing it rebuilds `tracing`'s cache of which call sites are enabled, so a binding calls
/// it when the level may have changed (when serving starts, after a batch), not per record.
pub fn set_forwarded_level(level: Option<Level>) {
    let value = level.map_or(0, rank);
    if FORWARDED.swap(value, Ordering::Relaxed) != value {
        tracing::callsite::rebuild_interest_cache();
    }
}

/// Waits, at most `limit`, until the records queued so far reached the sink; returns whether
/// they all did. A binding calls it when its process exits, so that the last records are not
/// lost (the sink must still be able to take them: Python's interpreter is not finalized yet).
pub fn flush_logs(limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while PENDING.load(Ordering::Acquire) > 0 {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    true
}

/// Sends the core's warnings and errors to stderr, or the traces the `MCPWEFT_LOG` environment
/// variable selects with a filter such as `debug`, `mcpweft=trace` or `off`.
///
/// It runs once, when the runtime starts; calling it again, or after [`init_logging_with`],
/// does nothing. stdout is never written, since it belongs to the stdio transport.
pub fn init_logging() {
    install(None);
}

/// Hands the core's traces to `sink` from now on, at the level [`set_forwarded_level`] sets
/// (nothing until it is set); stderr gets only what `MCPWEFT_LOG` selects, when it is set.
///
/// Returns `false`, and does nothing, when logging was set up already (by [`init_logging`],
/// which the runtime calls when it starts, or by another subscriber of the process): a binding
/// calls it when it is loaded, before anything else of the bridge.
pub fn init_logging_with(sink: Arc<dyn LogSink>) -> bool {
    install(Some(sink))
}

fn install(sink: Option<Arc<dyn LogSink>>) -> bool {
    static ONCE: Once = Once::new();
    let mut installed = false;
    ONCE.call_once(|| {
        let chosen = std::env::var("MCPWEFT_LOG").ok();
        let forwarding = sink.is_some();
        let stderr = match (&chosen, forwarding) {
            (Some(filter), _) => Some(EnvFilter::new(filter)),
            (None, false) => Some(EnvFilter::new("warn")),
            (None, true) => None,
        }
        .map(|filter| tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter));
        let forward = sink.map(|sink| {
            let (sender, receiver) = mpsc::sync_channel(QUEUED_RECORDS);
            let spawned =
                std::thread::Builder::new().name("mcpweft-log".to_owned()).spawn(move || deliver(&receiver, &*sink));
            Forward { sender: spawned.is_ok().then_some(sender) }.with_filter(Forwarded)
        });
        installed = tracing_subscriber::registry().with(stderr).with(forward).try_init().is_ok() && forwarding;
    });
    installed
}

/// The loop of the `mcpweft-log` thread: batches of queued records to the sink.
fn deliver(receiver: &Receiver<LogRecord>, sink: &dyn LogSink) {
    while let Ok(first) = receiver.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match receiver.try_recv() {
                Ok(record) => batch.push(record),
                Err(_) => break,
            }
        }
        let delivered = batch.len() as u64;
        let dropped = DROPPED.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            batch.push(LogRecord {
                level: Level::WARN,
                logger: "mcpweft".to_owned(),
                target: "mcpweft_bridge::log".to_owned(),
                message: format!("{dropped} log records were dropped: the host's logging did not keep up"),
            });
        }
        sink.deliver(batch);
        PENDING.fetch_sub(delivered, Ordering::AcqRel);
    }
}

/// The per-layer filter of forwarding: the level [`set_forwarded_level`] set.
struct Forwarded;

impl<S> Filter<S> for Forwarded {
    fn enabled(&self, meta: &Metadata<'_>, _cx: &Context<'_, S>) -> bool {
        rank(*meta.level()) <= FORWARDED.load(Ordering::Relaxed)
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        // Spans are not forwarded; events are asked each time, since the level changes.
        if meta.is_span() { Interest::never() } else { Interest::sometimes() }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(forwarded_filter())
    }
}

/// The layer that queues records for the sink.
struct Forward {
    /// `None` when the `mcpweft-log` thread could not be started.
    sender: Option<SyncSender<LogRecord>>,
}

impl<S: Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let Some(sender) = &self.sender else { return };
        let meta = event.metadata();
        let mut message = Message::default();
        event.record(&mut message);
        message.text.push_str(&message.fields);
        let record = LogRecord {
            level: *meta.level(),
            logger: logger_name(meta.target()),
            target: meta.target().to_owned(),
            message: message.text,
        };
        // Counted before it is queued, so that the log thread never takes it off below zero.
        PENDING.fetch_add(1, Ordering::AcqRel);
        if sender.try_send(record).is_err() {
            PENDING.fetch_sub(1, Ordering::AcqRel);
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Returns the dotted logger name of a `tracing` target.
fn logger_name(target: &str) -> String {
    if target == "mcpweft" {
        return target.to_owned();
    }
    let rest = target.strip_prefix("mcpweft::").unwrap_or(target);
    format!("mcpweft.{}", rest.replace("::", "."))
}

/// Collects an event's message and its other fields.
#[derive(Default)]
struct Message {
    text: String,
    fields: String,
}

impl Message {
    fn field(&mut self, field: &Field, value: std::fmt::Arguments<'_>) {
        if field.name() == "message" {
            let _ = self.text.write_fmt(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }
}

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.field(field, format_args!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_become_dotted_logger_names() {
        assert_eq!(logger_name("mcpweft"), "mcpweft");
        assert_eq!(logger_name("mcpweft::http::server"), "mcpweft.http.server");
        assert_eq!(logger_name("mcpweft_bridge::pool"), "mcpweft.mcpweft_bridge.pool");
        assert_eq!(logger_name("h2::proto"), "mcpweft.h2.proto");
        assert_eq!(logger_name("_native"), "mcpweft._native");
    }
}
