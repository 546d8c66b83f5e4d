//! The core's traces handed to a binding's logging: levels, logger names, the forwarded level
//! as `tracing`'s maximum level, and records dropped (and reported) when the sink falls behind.
//!
//! Logging is set up once per process, so this file holds one test.

use std::{
    sync::{Arc, Condvar, Mutex},
    time::{Duration, Instant},
};

use mcpweft_bridge::log::{Level, LogRecord, LogSink, QUEUED_RECORDS, init_logging_with, set_forwarded_level};
use tracing::level_filters::LevelFilter;

/// Collects what it is given; while `held` is set, the delivery waits for it to be cleared.
#[derive(Default)]
struct Collect {
    records: Mutex<Vec<LogRecord>>,
    held: Mutex<bool>,
    released: Condvar,
    threads: Mutex<Vec<String>>,
}

impl LogSink for Collect {
    fn deliver(&self, records: Vec<LogRecord>) {
        let name = std::thread::current().name().unwrap_or_default().to_owned();
        self.threads.lock().unwrap().push(name);
        let mut held = self.held.lock().unwrap();
        while *held {
            held = self.released.wait(held).unwrap();
        }
        drop(held);
        self.records.lock().unwrap().extend(records);
    }
}

impl Collect {
    /// Waits (up to 5 s) until a delivered record satisfies `pred`.
    fn wait_for(&self, pred: impl Fn(&LogRecord) -> bool) -> Option<LogRecord> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Some(found) = self.records.lock().unwrap().iter().find(|r| pred(r)) {
                return Some(found.clone());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    fn take(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *self.records.lock().unwrap())
    }
}

#[test]
fn records_reach_the_sink_at_the_forwarded_level() {
    let sink = Arc::new(Collect::default());
    assert!(init_logging_with(sink.clone()), "the first set-up installs the sink");
    assert!(!init_logging_with(sink.clone()), "logging is set up once");
    mcpweft_bridge::init_logging();
    // `tracing`'s maximum level is the forwarded one unless MCPWEFT_LOG adds stderr's.
    let max_level = |expected: LevelFilter| {
        if std::env::var_os("MCPWEFT_LOG").is_none() {
            assert_eq!(LevelFilter::current(), expected);
        }
    };

    // Nothing is forwarded until a level is set, and disabled levels are off for `tracing` itself.
    max_level(LevelFilter::OFF);
    tracing::error!(target: "mcpweft::http::server", "before any level");
    set_forwarded_level(Some(Level::WARN));
    max_level(LevelFilter::WARN);

    let port = 8080;
    tracing::info!(target: "mcpweft::http::server", "below the level");
    tracing::warn!(target: "mcpweft::http::server", port, host = "evil.example", "refused a request");
    let warning = sink.wait_for(|r| r.message.starts_with("refused")).expect("the warning is delivered");
    assert_eq!(
        warning,
        LogRecord {
            level: Level::WARN,
            logger: "mcpweft.http.server".to_owned(),
            target: "mcpweft::http::server".to_owned(),
            message: "refused a request port=8080 host=evil.example".to_owned(),
        }
    );
    let delivered = sink.take();
    assert_eq!(delivered.len(), 1, "neither the record before the level nor the one below it: {delivered:?}");
    assert!(sink.threads.lock().unwrap().iter().all(|t| t == "mcpweft-log"), "delivered on the logging thread");

    set_forwarded_level(Some(Level::TRACE));
    max_level(LevelFilter::TRACE);
    tracing::trace!(target: "mcpweft", detail = ?Some(1), "traced");
    let traced = sink.wait_for(|r| r.message.starts_with("traced")).expect("the trace is delivered");
    assert_eq!(
        (traced.level, traced.logger.as_str(), traced.message.as_str()),
        (Level::TRACE, "mcpweft", "traced detail=Some(1)")
    );
    sink.take();

    // A sink that does not keep up loses records past the queue's size, and hears how many.
    *sink.held.lock().unwrap() = true;
    tracing::info!(target: "mcpweft::session", "first");
    let deadline = Instant::now() + Duration::from_secs(5);
    while sink.threads.lock().unwrap().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let extra = 10;
    for i in 0..QUEUED_RECORDS + extra {
        tracing::info!(target: "mcpweft::session", i, "flood");
    }
    *sink.held.lock().unwrap() = false;
    sink.released.notify_all();
    let report = sink.wait_for(|r| r.message.contains("dropped")).expect("the loss is reported");
    assert_eq!(report.level, Level::WARN);
    assert_eq!(report.message, format!("{extra} log records were dropped: the host's logging did not keep up"));
    let flooded = || sink.records.lock().unwrap().iter().filter(|r| r.message.starts_with("flood")).count();
    let deadline = Instant::now() + Duration::from_secs(5);
    while flooded() < QUEUED_RECORDS && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(flooded(), QUEUED_RECORDS, "the queue holds its size while the sink is held");

    set_forwarded_level(None);
    max_level(LevelFilter::OFF);
}
