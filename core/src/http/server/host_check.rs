//! The `Host` and `Origin` checks that keep a DNS rebinding attack out: the accepted values
//! follow the settings, and the first refusal of each header is logged.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{HttpServerOptions, LOG_TARGET};

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Returns whether `host` (a `Host` value, or an origin without its scheme) is a loopback name
/// with a port or without one. The name is what tells a DNS rebinding attack apart (its page's
/// name is the attacker's), so the port is not checked: a reverse proxy or a balancer on the
/// same machine may use its own, or none.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty() => name,
        _ => host,
    };
    LOOPBACK_NAMES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The `Host` and `Origin` values a server accepts.
pub(super) struct HostCheck {
    /// The accepted `Host` values, when the options list them.
    hosts: Vec<String>,
    /// The accepted `Origin` values, when they are not the loopback origins.
    origins: Vec<String>,
    /// Whether the loopback names on any port are the accepted hosts (no hosts listed).
    loopback_hosts: bool,
    /// Whether the loopback origins on any port are the accepted origins (neither hosts nor
    /// origins listed).
    loopback_origins: bool,
    /// Whether a refused `Host` header was logged; only the first one is.
    host_refusal_logged: AtomicBool,
    /// Whether a refused `Origin` header was logged; only the first one is.
    origin_refusal_logged: AtomicBool,
}

impl HostCheck {
    /// Reads the accepted values from `options`: the hosts listed, or the loopback names on any
    /// port, and the origins listed, or those of the accepted hosts.
    pub(super) fn new(options: &HttpServerOptions) -> Self {
        let hosts = options.allowed_hosts.clone().unwrap_or_default();
        let origins = options
            .allowed_origins
            .clone()
            .unwrap_or_else(|| hosts.iter().flat_map(|h| [format!("http://{h}"), format!("https://{h}")]).collect());
        let loopback_hosts = options.allowed_hosts.is_none();
        let loopback_origins = loopback_hosts && options.allowed_origins.is_none();
        HostCheck {
            hosts,
            origins,
            loopback_hosts,
            loopback_origins,
            host_refusal_logged: AtomicBool::default(),
            origin_refusal_logged: AtomicBool::default(),
        }
    }

    /// Returns whether a request's `Host` header is accepted; a request without one is not.
    pub(super) fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        if self.loopback_hosts {
            return is_loopback_host(host);
        }
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Logs the first refused `Host` or `Origin` header of this server with the value seen and
    /// the setting that would accept it; later refusals are not logged.
    pub(super) fn log_refusal(&self, header: &str, value: Option<&str>) {
        let (logged, setting, allowed) = if header == "Host" {
            (&self.host_refusal_logged, "allowed hosts", &self.hosts)
        } else {
            (&self.origin_refusal_logged, "allowed origins", &self.origins)
        };
        if logged.swap(true, Ordering::Relaxed) {
            return;
        }
        let loopback = if header == "Host" { self.loopback_hosts } else { self.loopback_origins };
        let allowed = if loopback { "loopback names on any port".to_owned() } else { allowed.join(", ") };
        tracing::warn!(
            target: LOG_TARGET,
            "refused a request with {header} {}: accepted are {allowed}; set the server's {setting} to the names \
             clients reach it by (later refusals are not logged)",
            value.map_or_else(|| "(none)".to_owned(), |v| format!("{v:?}")),
        );
    }

    /// Returns whether a request's `Origin` header is accepted; a request without one is.
    pub(super) fn origin_allowed(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else { return true };
        if self.loopback_origins {
            let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
            return rest.is_some_and(is_loopback_host);
        }
        self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
    }
}
