//! Cluster mode (`--redis`) of `proxy --listen` and `gateway`: the options mapped to the
//! core's, which shares the sessions through Redis.

use mcpweft::http::ClusterOptions;

use crate::{args::ClusterArgs, failure::Failure};

/// The URL schemes of the Redis client.
const SCHEMES: [&str; 4] = ["redis://", "rediss://", "redis+unix://", "unix://"];

/// Reads the cluster of `args`, its keys under `args.redis_prefix` or else `default_prefix`;
/// `None` without `--redis`.
pub(crate) fn options(args: &ClusterArgs, default_prefix: &str) -> Result<Option<ClusterOptions>, Failure> {
    let Some(url) = &args.redis else { return Ok(None) };
    if !SCHEMES.iter().any(|scheme| url.starts_with(scheme)) {
        return Err(Failure::usage(format!(
            "--redis {url:?} is not a Redis URL: it starts with {}",
            SCHEMES.join(", ")
        )));
    }
    let prefix = args.redis_prefix.as_deref().unwrap_or(default_prefix);
    if prefix.is_empty() || prefix.contains(char::is_whitespace) {
        return Err(Failure::usage(format!("--redis-prefix {prefix:?} must be a word without spaces")));
    }
    Ok(Some(ClusterOptions::new(url.as_str()).with_prefix(prefix)))
}
