//! The benchmark driver of mcpweft, over stdio and Streamable HTTP.
//!
//! The stdio section (see [`stdio`]) measures start-up, sequential latency,
//! pipelined throughput and peak memory of every stdio server. The HTTP
//! section (see [`http_bench`]) measures throughput and latency with 1, 16
//! and 64 concurrent sessions and the memory of an idle session. Each
//! section prints a table with the ratios of mcpweft versus rmcp, of
//! mcpweft's Python package versus FastMCP and of its Node package versus the
//! official TypeScript SDK, which drift less than absolute numbers. The memory section (see
//! [`input_memory`]) measures what a large answer to a request for input costs the mcpweft server
//! beside the same bytes sent as tool arguments.
//!
//! The host section (see [`host_bench`]) measures a call through a host beside a direct client
//! call, and the time a host takes to connect to ten stdio servers.
//!
//! The proxy section (see [`proxy_bench`]) measures calls through `mcpweft proxy URL` beside a
//! client that reaches the same HTTP server itself.
//!
//! Usage: `mcpweft-bench [--quick] [--stdio-only|--http-only|--memory-only|--host-only|--proxy-only|--cluster-only] [--cluster] [--python
//! PYTHON] [--node NODE] [--server NAME=COMMAND]... [--http-server
//! NAME=COMMAND]...`. The rmcp and mcpweft echo servers are looked up next to
//! the driver's own executable; `--python` (or `MCPWEFT_BENCH_PYTHON`) adds
//! the Python servers of `bench/python`, `--node` (or `MCPWEFT_BENCH_NODE`)
//! the Node servers of `bench/node`; `--server` adds stdio servers and
//! `--http-server` HTTP servers, whose commands are split on whitespace.

mod cluster_bench;
mod host_bench;
mod http;
mod http_bench;
mod input_memory;
mod proxy_bench;
mod report;
mod rpc;
mod servers;
mod stdio;

use std::{path::Path, process::ExitCode};

use rpc::Result;
use servers::{PORT, Server};

/// The command-line help.
const USAGE: &str =
    "usage: mcpweft-bench [--quick] [--stdio-only|--http-only|--memory-only|--host-only|--proxy-only|--cluster-only]
                    [--python PYTHON]
                    [--node NODE] [--server NAME=COMMAND]... [--http-server NAME=COMMAND]... [--cluster]

Measures MCP servers over stdio and Streamable HTTP: the rmcp and mcpweft echo
servers next to this executable, the Python ones with --python, the Node ones
with --node, and any added with --server or --http-server (COMMAND is split on
spaces).
  --quick                    divide every request and spawn count by 10
  --stdio-only               run only the stdio section
  --http-only                run only the Streamable HTTP section
  --memory-only              run only the section on the memory of large answers
                             to requests for input
  --host-only                run only the host section (a call through a host
                             beside a direct call; connecting to ten servers)
  --proxy-only               run only the proxy section (calls through
                             mcpweft proxy URL beside a direct HTTP client)
  --cluster-only             run only the cluster section
  --python PYTHON            add the mcpweft-py and fastmcp rows, running
                             bench/python/*_echo.py with the interpreter PYTHON
                             (a venv made by bench/python/setup.sh); defaults
                             to $MCPWEFT_BENCH_PYTHON when set
  --node NODE                add the mcpweft-node and ts-sdk rows, running
                             bench/node/*_echo.mjs with the binary NODE (after
                             bench/node/setup.sh); defaults to
                             $MCPWEFT_BENCH_NODE when set
  --server NAME=COMMAND      add a stdio server
  --http-server NAME=COMMAND add an HTTP server; COMMAND must contain {port},
                             replaced by the loopback port to listen on
  --cluster                  add the cluster section: the mcpweft echo server alone,
                             then 1, 2 and 3 processes sharing sessions in Redis
                             behind haproxy (a build with the feature redis)";

/// What the command line asks for.
struct Options {
    quick: bool,
    stdio: bool,
    http: bool,
    /// Whether the memory section runs.
    memory: bool,
    /// Whether the host section runs.
    host: bool,
    /// Whether the proxy section runs.
    proxy: bool,
    /// The stdio servers to measure.
    servers: Vec<Server>,
    /// The HTTP servers to measure, whose commands contain [`PORT`].
    http_servers: Vec<Server>,
    /// Whether the cluster section runs.
    cluster: bool,
    /// The Python, Node and given servers the proxy section puts behind `proxy --listen`: each
    /// stdio server beside its own HTTP build.
    proxied: Vec<(Server, Server)>,
}

/// Parses the command line.
fn parse_args() -> Result<Options> {
    let mut quick = false;
    let mut cluster = false;
    let mut only = None;
    let mut python = std::env::var("MCPWEFT_BENCH_PYTHON").ok().filter(|python| !python.is_empty());
    let mut node = std::env::var("MCPWEFT_BENCH_NODE").ok().filter(|node| !node.is_empty());
    let mut extra_stdio = Vec::new();
    let mut extra_http = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--cluster" => cluster = true,
            "--stdio-only" | "--http-only" | "--memory-only" | "--host-only" | "--proxy-only" | "--cluster-only" => {
                if only.replace(arg.clone()).is_some_and(|previous| previous != arg) {
                    return Err(
                        "--stdio-only, --http-only, --memory-only, --host-only, --proxy-only and --cluster-only exclude each other"
                            .into(),
                    );
                }
            }
            "--python" => python = Some(args.next().ok_or("--python needs the path of an interpreter")?),
            "--node" => node = Some(args.next().ok_or("--node needs the path of a node binary")?),
            "--server" => extra_stdio.push(Server::parse(&args.next().unwrap_or_default(), "--server")?),
            "--http-server" => {
                let server = Server::parse(&args.next().unwrap_or_default(), "--http-server")?;
                if !server.takes_port() {
                    return Err(format!("the command of --http-server {} must contain {PORT}", server.name).into());
                }
                extra_http.push(server);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    let stdio = only.is_none() || only.as_deref() == Some("--stdio-only");
    let http = only.is_none() || only.as_deref() == Some("--http-only");
    let memory = only.is_none() || only.as_deref() == Some("--memory-only");
    let host = only.is_none() || only.as_deref() == Some("--host-only");
    let proxy = only.is_none() || only.as_deref() == Some("--proxy-only");
    let cluster = cluster || only.as_deref() == Some("--cluster-only");
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let mut others = Vec::new();
    others.extend(python.iter().flat_map(|python| servers::python(python, false)));
    others.extend(node.iter().flat_map(|node| servers::node(node, false)));
    others.extend(extra_stdio);
    let mut others_http = Vec::new();
    others_http.extend(python.iter().flat_map(|python| servers::python(python, true)));
    others_http.extend(node.iter().flat_map(|node| servers::node(node, true)));
    others_http.extend(extra_http);
    let proxied = if proxy {
        others
            .iter()
            .filter_map(|server| {
                let own = others_http.iter().find(|own| own.name == server.name)?;
                Some((server.clone(), own.clone()))
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut servers = Vec::new();
    if stdio {
        servers.extend(servers::rust_stdio(dir));
        servers.extend(others);
    }
    let mut http_servers = Vec::new();
    if http {
        http_servers.extend(servers::rust_http(dir));
        http_servers.extend(others_http);
    }
    Ok(Options { quick, stdio, http, memory, host, proxy, servers, http_servers, cluster, proxied })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("mcpweft-bench: {error}");
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
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().unwrap_or(Path::new("."));
    if options.memory {
        if options.stdio || options.http {
            println!();
        }
        ok &= input_memory::run(dir).await;
    }
    if options.host {
        if options.stdio || options.http || options.memory {
            println!();
        }
        ok &= host_bench::run(dir, options.quick).await;
    }
    if options.proxy {
        if options.stdio || options.http || options.memory || options.host {
            println!();
        }
        ok &= proxy_bench::run(dir, &options.proxied, options.quick).await;
    }
    if options.cluster {
        if options.stdio || options.http || options.memory || options.host || options.proxy {
            println!();
        }
        ok &= cluster_bench::run(dir, options.quick).await;
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
