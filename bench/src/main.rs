//! The benchmark driver of mcpkit, over stdio and Streamable HTTP.
//!
//! The stdio section (see [`stdio`]) measures start-up, sequential latency,
//! pipelined throughput and peak memory of every stdio server. The HTTP
//! section (see [`http_bench`]) measures throughput and latency with 1, 16
//! and 64 concurrent sessions and the memory of an idle session. Each
//! section prints a table with the ratios of mcpkit versus rmcp, which drift
//! less than absolute numbers.
//!
//! Usage: `mcpkit-bench [--quick] [--stdio-only|--http-only]
//! [--server NAME=COMMAND]...`. The rmcp and mcpkit echo servers are looked
//! up next to the driver's own executable; `--server` adds stdio servers,
//! whose command is split on whitespace.

mod http;
mod http_bench;
mod report;
mod rpc;
mod stdio;

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use rpc::Result;
use stdio::Server;

/// The command-line help.
const USAGE: &str = "usage: mcpkit-bench [--quick] [--stdio-only|--http-only] [--server NAME=COMMAND]...

Measures MCP servers over stdio and Streamable HTTP: the rmcp and mcpkit echo
servers next to this executable, and over stdio any added with --server
(COMMAND is split on spaces).
  --quick        divide every request and spawn count by 10
  --stdio-only   run only the stdio section
  --http-only    run only the Streamable HTTP section";

/// What the command line asks for.
struct Options {
    quick: bool,
    stdio: bool,
    http: bool,
    /// The stdio servers to measure.
    servers: Vec<Server>,
    /// The HTTP servers to measure: row name and executable.
    http_servers: Vec<(String, PathBuf)>,
}

/// Finds the known servers next to the driver: row name and executable.
fn known_servers(dir: &Path, known: &[(&str, &str)]) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for (name, file) in known {
        let path = dir.join(file);
        if path.is_file() {
            found.push(((*name).to_owned(), path));
        } else {
            eprintln!("skipping {name}: {} not found", path.display());
        }
    }
    found
}

/// Parses the command line.
fn parse_args() -> Result<Options> {
    let mut quick = false;
    let mut only = None;
    let mut servers = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--stdio-only" | "--http-only" => {
                if only.replace(arg.clone()).is_some_and(|previous| previous != arg) {
                    return Err("--stdio-only and --http-only exclude each other".into());
                }
            }
            "--server" => {
                let spec = args.next().ok_or("--server needs NAME=COMMAND")?;
                let (name, command) = spec.split_once('=').ok_or("--server needs NAME=COMMAND")?;
                let command: Vec<String> = command.split_whitespace().map(Into::into).collect();
                if name.is_empty() || command.is_empty() {
                    return Err("--server needs NAME=COMMAND".into());
                }
                servers.push(Server { name: name.into(), command });
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    let stdio = only.as_deref() != Some("--http-only");
    let http = only.as_deref() != Some("--stdio-only");
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    if stdio {
        let known = known_servers(dir, &stdio::KNOWN_SERVERS)
            .into_iter()
            .map(|(name, path)| Server { name, command: vec![path.to_string_lossy().into_owned()] });
        servers.splice(0..0, known);
    }
    let http_servers = if http { known_servers(dir, &http_bench::KNOWN_SERVERS) } else { Vec::new() };
    Ok(Options { quick, stdio, http, servers, http_servers })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("mcpkit-bench: {error}");
            return ExitCode::from(2);
        }
    };
    let mut ok = true;
    if options.stdio {
        ok &= stdio::run(&options.servers, options.quick).await;
    }
    if options.http {
        if options.stdio {
            println!();
        }
        ok &= http_bench::run(&options.http_servers, options.quick).await;
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
