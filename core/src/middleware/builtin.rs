//! The middleware that come with the crate: timing and logging, a rate limit per caller, and a
//! response cache that honours the `ttlMs` and `cacheScope` of 2026-07-28 results.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use serde_json::Value;

use super::{Direction, Message, Middleware, Next};
use crate::{
    Error,
    jsonrpc::{ErrorData, TOO_MANY_REQUESTS},
    model::methods,
    sync::lock,
};

/// Logs every message through `tracing` with how long its outcome took: requests at `info`
/// (failures at `warn`), notifications at `debug`, under the target `mcpweft::middleware`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing;

#[async_trait]
impl Middleware for Timing {
    async fn handle(&self, message: Message, next: Next) -> Result<Value, Error> {
        let method = message.method.clone();
        let target = message.target().map(str::to_owned);
        let (direction, role, is_request) = (message.direction, message.role, message.is_request);
        let started = Instant::now();
        let outcome = next.run(message).await;
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let target = target.as_deref().unwrap_or("");
        let (direction, role) = (direction.as_str(), role.as_str());
        match (&outcome, is_request) {
            (Ok(_), true) => {
                tracing::info!(target: "mcpweft::middleware", method, target, direction, role, micros, "request done");
            }
            (Err(error), true) => {
                tracing::warn!(target: "mcpweft::middleware", method, target, direction, role, micros, %error, "request failed");
            }
            (_, false) => {
                tracing::debug!(target: "mcpweft::middleware", method, target, direction, role, micros, "notification");
            }
        }
        outcome
    }
}

/// Whose requests a [`RateLimit`] counts together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateLimitKey {
    /// Each authenticated identity, or each session when requests are not authenticated
    /// ([`Message::caller`]).
    #[default]
    Caller,
    /// Each session, whoever sends its requests.
    Session,
    /// All requests together.
    Global,
}

/// One caller's budget: tokens refill at the limit's rate up to its burst.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// How many callers a rate limit remembers before it forgets those whose budget is full again.
const REMEMBERED_CALLERS: usize = 10_000;

/// Refuses received requests beyond a rate, per caller, with [`TOO_MANY_REQUESTS`] and a
/// `retryAfterMs` in the error's data: a token bucket that refills `per_second` requests each
/// second up to `burst`. Notifications and what this side sends are not counted; neither are
/// `initialize` and `ping`.
#[derive(Debug)]
pub struct RateLimit {
    per_second: f64,
    burst: f64,
    key: RateLimitKey,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimit {
    /// Allows `per_second` requests each second on average and `burst` at once, per caller.
    ///
    /// A rate that is not positive and finite allows nothing but the burst, once.
    pub fn new(per_second: f64, burst: u32) -> Self {
        let per_second = if per_second.is_finite() && per_second > 0.0 { per_second } else { 0.0 };
        RateLimit { per_second, burst: f64::from(burst.max(1)), key: RateLimitKey::Caller, buckets: Mutex::default() }
    }

    /// Sets whose requests are counted together.
    pub fn per(mut self, key: RateLimitKey) -> Self {
        self.key = key;
        self
    }

    /// Takes one token of `key`'s budget, or says how long until one is there.
    fn take(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut buckets = lock(&self.buckets);
        if buckets.len() >= REMEMBERED_CALLERS && !buckets.contains_key(key) {
            let (rate, burst) = (self.per_second, self.burst);
            buckets.retain(|_, b| b.tokens + rate * now.duration_since(b.at).as_secs_f64() < burst);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: self.burst, at: now });
        let refill = self.per_second * now.duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + refill).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        if self.per_second == 0.0 {
            return Err(Duration::MAX);
        }
        Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.per_second))
    }
}

#[async_trait]
impl Middleware for RateLimit {
    async fn handle(&self, message: Message, next: Next) -> Result<Value, Error> {
        let counted = message.direction == Direction::Received
            && message.is_request
            && message.method != methods::INITIALIZE
            && message.method != methods::PING;
        if counted {
            let key = match self.key {
                RateLimitKey::Caller => message.caller(),
                RateLimitKey::Session => message.session(),
                RateLimitKey::Global => String::new(),
            };
            if let Err(wait) = self.take(&key, Instant::now()) {
                let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
                let error = ErrorData::new(
                    TOO_MANY_REQUESTS,
                    format!(
                        "Rate limit exceeded: {} requests per second; retry in {retry_after_ms} ms",
                        self.per_second
                    ),
                )
                .with_data(serde_json::json!({ "retryAfterMs": retry_after_ms }));
                return Err(Error::Rpc(error));
            }
        }
        next.run(message).await
    }
}

/// Settings of a [`Cache`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CacheOptions {
    /// How long a result without `ttlMs` (every result of 2025-11-25 and older) stays fresh;
    /// `None`, the default, caches only results that carry a positive `ttlMs`.
    pub default_ttl: Option<Duration>,
    /// The longest any result is kept, whatever its `ttlMs` says; one hour by default.
    pub max_ttl: Duration,
    /// How many results the cache holds at most; 1,024 by default.
    pub max_entries: usize,
    /// The requests whose results are cached: by default those 2026-07-28 marks cacheable
    /// (`server/discover`, the four lists and `resources/read`).
    pub methods: Vec<String>,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            default_ttl: None,
            max_ttl: Duration::from_secs(3600),
            max_entries: 1024,
            methods: [
                methods::SERVER_DISCOVER,
                methods::TOOLS_LIST,
                methods::PROMPTS_LIST,
                methods::RESOURCES_LIST,
                methods::RESOURCES_TEMPLATES_LIST,
                methods::RESOURCES_READ,
            ]
            .map(str::to_owned)
            .to_vec(),
        }
    }
}

impl CacheOptions {
    /// Creates the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Caches results without `ttlMs` for `ttl`.
    pub fn with_default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = Some(ttl);
        self
    }

    /// Sets the longest any result is kept.
    pub fn with_max_ttl(mut self, ttl: Duration) -> Self {
        self.max_ttl = ttl;
        self
    }

    /// Sets how many results the cache holds at most.
    pub fn with_max_entries(mut self, entries: usize) -> Self {
        self.max_entries = entries;
        self
    }

    /// Sets the methods whose results are cached (`tools/call` may be one).
    pub fn with_methods<S: Into<String>>(mut self, methods: impl IntoIterator<Item = S>) -> Self {
        self.methods = methods.into_iter().map(Into::into).collect();
        self
    }
}

/// One cached result.
#[derive(Debug)]
struct Entry {
    result: Value,
    expires: Instant,
    method: String,
    uri: Option<String>,
}

/// Answers repeated requests from the results of earlier ones while they are fresh, as
/// 2026-07-28's caching hints say: a result is fresh for its `ttlMs` (0: not cached), and a
/// `cacheScope` of `"private"` (or none) keeps it for the caller that asked, while `"public"`
/// shares it. Results are keyed by the method and the parameters without `_meta`.
///
/// It works in both directions: a client's cache in front of what it sends, or a server's in
/// front of its handlers. A list change the peer or this side notifies (`notifications/*/
/// list_changed`, and `notifications/resources/updated` for one resource) drops what it makes
/// stale. Share one cache only among clients with the same credentials.
#[derive(Debug)]
pub struct Cache {
    options: CacheOptions,
    entries: Mutex<HashMap<String, Entry>>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new(CacheOptions::default())
    }
}

impl Cache {
    /// Creates a cache with these settings.
    pub fn new(options: CacheOptions) -> Self {
        Cache { options, entries: Mutex::default() }
    }

    /// Returns how many results the cache holds, fresh or not.
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    /// Returns whether the cache holds no result.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every result.
    pub fn clear(&self) {
        lock(&self.entries).clear();
    }

    /// The key of a request's result in `scope` (a caller, or none for public results).
    fn key(message: &Message, scope: Option<&str>) -> String {
        let mut params = message.params.clone().unwrap_or(Value::Null);
        if let Value::Object(map) = &mut params {
            map.remove("_meta");
        }
        format!("{}\n{}\n{params}", scope.unwrap_or(""), message.method)
    }

    /// Drops what a notification makes stale.
    fn invalidate(&self, message: &Message) {
        let stale: &[&str] = match message.method.as_str() {
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED => &[methods::TOOLS_LIST],
            methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED => &[methods::PROMPTS_LIST],
            methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED => {
                &[methods::RESOURCES_LIST, methods::RESOURCES_TEMPLATES_LIST]
            }
            methods::NOTIFICATIONS_RESOURCES_UPDATED => {
                let uri = message.target();
                lock(&self.entries).retain(|_, e| e.method != methods::RESOURCES_READ || e.uri.as_deref() != uri);
                return;
            }
            _ => return,
        };
        lock(&self.entries).retain(|_, e| !stale.contains(&e.method.as_str()));
    }

    /// How long `result` stays fresh, and whether it may be shared across callers.
    fn freshness(&self, result: &Value) -> Option<(Duration, bool)> {
        let ttl = match result.get("ttlMs").and_then(Value::as_u64) {
            Some(0) => return None,
            Some(ms) => Duration::from_millis(ms),
            None => self.options.default_ttl?,
        };
        let public = result.get("cacheScope").and_then(Value::as_str) == Some("public");
        Some((ttl.min(self.options.max_ttl), public))
    }

    /// Stores a fresh result, making room when the cache is full.
    fn store(&self, key: String, entry: Entry, now: Instant) {
        let mut entries = lock(&self.entries);
        if entries.len() >= self.options.max_entries && !entries.contains_key(&key) {
            entries.retain(|_, e| e.expires > now);
            if entries.len() >= self.options.max_entries
                && let Some(oldest) = entries.iter().min_by_key(|(_, e)| e.expires).map(|(k, _)| k.clone())
            {
                entries.remove(&oldest);
            }
        }
        if self.options.max_entries > 0 {
            entries.insert(key, entry);
        }
    }

    /// A fresh result under `key`, dropping a stale one.
    fn fresh(&self, key: &str, now: Instant) -> Option<Value> {
        let mut entries = lock(&self.entries);
        match entries.get(key) {
            Some(entry) if entry.expires > now => Some(entry.result.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }
}

#[async_trait]
impl Middleware for Cache {
    async fn handle(&self, message: Message, next: Next) -> Result<Value, Error> {
        if !message.is_request {
            self.invalidate(&message);
            return next.run(message).await;
        }
        if !self.options.methods.contains(&message.method) {
            return next.run(message).await;
        }
        let now = Instant::now();
        let public_key = Self::key(&message, None);
        let private_key = Self::key(&message, Some(&message.caller()));
        if let Some(result) = self.fresh(&public_key, now).or_else(|| self.fresh(&private_key, now)) {
            return Ok(result);
        }
        let method = message.method.clone();
        let uri = (method == methods::RESOURCES_READ).then(|| message.target().map(str::to_owned)).flatten();
        let result = next.run(message).await?;
        if let Some((ttl, public)) = self.freshness(&result) {
            let key = if public { public_key } else { private_key };
            let now = Instant::now();
            self.store(key, Entry { result: result.clone(), expires: now + ttl, method, uri }, now);
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refills_at_its_rate_up_to_its_burst() {
        let limit = RateLimit::new(10.0, 2);
        let start = Instant::now();
        assert!(limit.take("a", start).is_ok());
        assert!(limit.take("a", start).is_ok());
        let wait = limit.take("a", start).expect_err("the burst is spent");
        assert_eq!(wait.as_millis(), 100);
        assert!(limit.take("b", start).is_ok(), "another caller has a budget of its own");
        assert!(limit.take("a", start + Duration::from_millis(100)).is_ok());
        assert!(limit.take("a", start + Duration::from_secs(60)).is_ok());
        assert!(limit.take("a", start + Duration::from_secs(60)).is_ok());
        assert!(limit.take("a", start + Duration::from_secs(60)).is_err(), "the budget never exceeds the burst");
    }

    #[test]
    fn a_zero_ttl_is_never_cached_and_a_missing_one_follows_the_default() {
        let cache = Cache::default();
        assert_eq!(cache.freshness(&serde_json::json!({"ttlMs": 0})), None);
        assert_eq!(cache.freshness(&serde_json::json!({})), None);
        assert_eq!(
            cache.freshness(&serde_json::json!({"ttlMs": 5000, "cacheScope": "public"})),
            Some((Duration::from_secs(5), true))
        );
        let cache = Cache::new(CacheOptions::new().with_default_ttl(Duration::from_secs(2)));
        assert_eq!(cache.freshness(&serde_json::json!({})), Some((Duration::from_secs(2), false)));
        assert_eq!(
            cache.freshness(&serde_json::json!({"ttlMs": 86_400_000_u64})),
            Some((Duration::from_secs(3600), false))
        );
    }
}
