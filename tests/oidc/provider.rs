//! Starts the authorization server of `provider.mjs` (the npm package `oidc-provider` on
//! loopback) for the Rust tests that log in against it: the core's `auth_oidc` and the command
//! line's `oauth_oidc`, which both include this file.

use std::{process::Stdio, time::Duration};

use tokio::{
    io::{AsyncBufReadExt as _, BufReader},
    process::{Child, ChildStdout, Command},
};

/// The authorization server, running until dropped.
pub(crate) struct Provider {
    /// Its issuer URL, on 127.0.0.1.
    pub(crate) issuer: String,
    _process: Child,
    /// The provider's standard output, kept open so that nothing it prints fails.
    _stdout: BufReader<ChildStdout>,
}

/// Starts the provider with the `node` on PATH and waits for the issuer it prints.
pub(crate) async fn start() -> Provider {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/oidc/provider.mjs");
    let mut process = Command::new("node")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs tests/oidc/provider.mjs (make test-oidc installs its packages)");
    let mut stdout = BufReader::new(process.stdout.take().expect("a stdout pipe"));
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line))
        .await
        .expect("the provider starts within 30 s")
        .expect("the provider's issuer");
    let issuer = line.trim().to_owned();
    assert!(issuer.starts_with("http://127.0.0.1:"), "the provider printed {line:?}");
    Provider { issuer, _process: process, _stdout: stdout }
}
