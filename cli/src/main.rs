//! `mcpweft`, the command line of mcpweft: lists, calls and reads what any MCP server offers,
//! serves a remote Streamable HTTP server over stdio, and serves a stdio server over Streamable
//! HTTP.
//!
//! Every command is built on the core's host and client; this crate holds no protocol logic of
//! its own. Logs go to stderr, filtered by `MCPWEFT_LOG` (warnings and errors by default).

mod args;
mod commands;
mod failure;
mod listen;
mod proxy;
mod render;
mod target;

use std::{io::IsTerminal as _, process::ExitCode};

use clap::Parser as _;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    // The host's own warning about a server it cannot reach is left out by default: the
    // command reports that failure itself, with the server's stderr.
    let filter = EnvFilter::try_from_env("MCPWEFT_LOG").unwrap_or_else(|_| EnvFilter::new("warn,mcpweft::host=error"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpweft: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(commands::run(cli.command));
    // Every command has closed its connections; a read of stdin still blocked on a thread of
    // its own (a terminal's) must not hold up the exit.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            failure.report();
            failure.exit_code()
        }
    }
}
