//! `mcpweft`, the command line of mcpweft.
//!
//! Every command is built on the core's host and client; this crate holds no protocol logic of
//! its own. Logs go to stderr, filtered by `MCPWEFT_LOG` (warnings and errors by default).

use std::{io::IsTerminal as _, process::ExitCode};

use clap::Parser;
use tracing_subscriber::EnvFilter;

/// The `mcpweft` command.
#[derive(Debug, Parser)]
#[command(name = "mcpweft", version, about = "The command line of mcpweft.")]
struct Cli {}

fn main() -> ExitCode {
    let _cli = Cli::parse();
    let filter = EnvFilter::try_from_env("MCPWEFT_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();
    ExitCode::SUCCESS
}
