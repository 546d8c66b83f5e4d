//! The core's end-to-end tests, one module per subject, built as a single test binary: every
//! binary would link the whole engine again, and the shared helpers live once in `common`,
//! `http_common` and `auth_common`. Run one subject with `cargo test -p mcpweft --test it
//! SUBJECT::`.

mod apps;
mod auth_client;
mod auth_common;
mod auth_oidc;
mod auth_server;
mod client_2026;
mod client_features;
#[cfg(feature = "redis")]
mod cluster;
mod common;
mod config;
mod floors;
mod hardening;
mod host;
mod http_client;
mod http_common;
mod http_hardening;
mod http_server;
mod lifecycle;
mod middleware;
mod resources_prompts;
mod revision_2026;
mod robustness;
mod schema;
mod skills;
mod stdio;
mod tasks;
mod tls;
mod tools;
mod utilities;
