//! The command line of mcpweft: lists, calls and reads what any MCP server offers, serves a
//! remote Streamable HTTP server over stdio and a stdio server over Streamable HTTP, and serves
//! the servers of a configuration at one Streamable HTTP endpoint.
//!
//! Every command is built on the core's host and client; this crate holds no protocol logic of
//! its own. Logs go to stderr, filtered by `MCPWEFT_LOG` (warnings and errors by default).
//!
//! [`run`] is the whole command: the `mcpweft` binary calls it with its arguments, and the
//! Python and Node packages call it from their native modules (their `mcpweft` console script
//! and `npx mcpweft`), so that one build of the core serves both the library and the command.

mod args;
mod cluster;
mod commands;
mod failure;
mod gateway;
mod listen;
mod login;
mod passthrough;
mod proxy;
mod render;
mod target;
mod tokens;

use std::{ffi::OsString, io::IsTerminal as _};

use clap::Parser as _;
use tracing_subscriber::EnvFilter;

/// Runs the command `args` (the program's name first, as `std::env::args_os` gives them) to its
/// end and returns the process's exit code: 0 success, 1 a failed call or a tool error, 2 a
/// usage or configuration mistake, 3 a server that cannot be started or reached.
///
/// It writes the protocol (when proxying) and the results to stdout and everything else to
/// stderr, and installs a `tracing` subscriber writing to stderr unless the process has one.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match args::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and the version go to stdout with code 0, mistakes to stderr with code 2.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    // The host's own warning about a server it cannot reach is left out by default: the
    // command reports that failure itself, with the server's stderr.
    let filter = EnvFilter::try_from_env("MCPWEFT_LOG").unwrap_or_else(|_| EnvFilter::new("warn,mcpweft::host=error"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
    // The gateway and the listening proxy serve many clients at once on every core; the other
    // commands make one connection and need one thread.
    let mut builder = match &cli.command {
        args::Command::Gateway(_) => tokio::runtime::Builder::new_multi_thread(),
        args::Command::Proxy(proxy) if proxy.listen.is_some() => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpweft: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let outcome = runtime.block_on(commands::run(cli.command));
    // Every command has closed its connections; a read of stdin still blocked on a thread of
    // its own (a terminal's) must not hold up the exit.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => 0,
        Err(failure) => {
            failure.report();
            failure.exit_code()
        }
    }
}
