//! The command line's tests: the binary run as a process against the core's example servers.

mod cluster;
mod commands;
mod common;
mod gateway;
mod listen;
mod login;
mod oauth_oidc;
mod proxy;
