//! The servers the driver measures and how their processes are started.
//!
//! A server is a row name and a command line. The Rust echo servers are
//! looked up next to the driver's executable; the Python ones run the
//! scripts of `bench/python` with a given interpreter, the Node ones those
//! of `bench/node` with a given `node`; any other comes from the command
//! line. An HTTP server's command holds the placeholder
//! [`PORT`], replaced by the loopback port it must listen on.

use std::path::{Path, PathBuf};

use crate::rpc::Result;

/// The placeholder for the port in the command of an HTTP server.
pub(crate) const PORT: &str = "{port}";
/// The Rust stdio servers looked up next to the driver: row name and
/// executable name.
const STDIO_BINARIES: [(&str, &str); 2] = [("rmcp", "rmcp-echo-server"), ("mcpweft", "mcpweft-echo-server")];
/// The Rust HTTP servers looked up next to the driver, which take the port
/// as their only argument.
const HTTP_BINARIES: [(&str, &str); 2] = [("rmcp", "rmcp-echo-http"), ("mcpweft", "mcpweft-echo-http")];
/// The Python servers: row name and script in [`PYTHON_DIR`], which serves
/// stdio without arguments and Streamable HTTP with `--http PORT`.
const PYTHON_SCRIPTS: [(&str, &str); 2] = [("mcpweft-py", "mcpweft_echo.py"), ("fastmcp", "fastmcp_echo.py")];
/// The directory of the Python servers' scripts.
const PYTHON_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python");
/// The Node servers: row name and script in [`NODE_DIR`], which serves stdio
/// without arguments and Streamable HTTP with `--http PORT`.
const NODE_SCRIPTS: [(&str, &str); 2] = [("mcpweft-node", "mcpweft_echo.mjs"), ("ts-sdk", "sdk_echo.mjs")];
/// The floor of a Node server over stdio: no library, a hand-written answer
/// per line, to tell Node's own costs apart from a package's.
const NODE_FLOOR: (&str, &str) = ("node-floor", "floor_echo.mjs");
/// The directory of the Node servers' scripts.
const NODE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/node");

/// A server to measure: its row name and its command line.
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) command: Vec<String>,
}

impl Server {
    /// Parses the `NAME=COMMAND` argument of `flag`, splitting `COMMAND` on
    /// whitespace.
    pub(crate) fn parse(spec: &str, flag: &str) -> Result<Self> {
        let usage = || format!("{flag} needs NAME=COMMAND");
        let (name, command) = spec.split_once('=').ok_or_else(usage)?;
        let command: Vec<String> = command.split_whitespace().map(Into::into).collect();
        if name.is_empty() || command.is_empty() {
            return Err(usage().into());
        }
        Ok(Self { name: name.into(), command })
    }

    /// The command with every [`PORT`] replaced by `port`.
    pub(crate) fn command_on(&self, port: u16) -> Vec<String> {
        self.command.iter().map(|arg| arg.replace(PORT, &port.to_string())).collect()
    }

    /// Returns whether the command says where to put the port.
    pub(crate) fn takes_port(&self) -> bool {
        self.command.iter().any(|arg| arg.contains(PORT))
    }
}

/// Finds the Rust servers next to the driver, warning about missing ones.
fn next_to_driver(dir: &Path, binaries: &[(&str, &str)], args: &[&str]) -> Vec<Server> {
    let mut found = Vec::new();
    for (name, file) in binaries {
        let path = dir.join(file);
        if path.is_file() {
            let mut command = vec![path.to_string_lossy().into_owned()];
            command.extend(args.iter().map(|arg| (*arg).to_owned()));
            found.push(Server { name: (*name).to_owned(), command });
        } else {
            eprintln!("skipping {name}: {} not found", path.display());
        }
    }
    found
}

/// The Rust stdio servers found in `dir`.
pub(crate) fn rust_stdio(dir: &Path) -> Vec<Server> {
    next_to_driver(dir, &STDIO_BINARIES, &[])
}

/// The Rust HTTP servers found in `dir`.
pub(crate) fn rust_http(dir: &Path) -> Vec<Server> {
    next_to_driver(dir, &HTTP_BINARIES, &[PORT])
}

/// The servers of the `scripts` in `dir` run by `interpreter`, over
/// Streamable HTTP when `http`.
fn scripts(interpreter: &str, dir: &str, scripts: &[(&str, &str)], http: bool) -> Vec<Server> {
    scripts
        .iter()
        .map(|(name, script)| {
            let script: PathBuf = [dir, script].iter().collect();
            let mut command = vec![interpreter.to_owned(), script.to_string_lossy().into_owned()];
            if http {
                command.extend(["--http".to_owned(), PORT.to_owned()]);
            }
            Server { name: (*name).to_owned(), command }
        })
        .collect()
}

/// The Python servers run by `python`, over Streamable HTTP when `http`.
pub(crate) fn python(python: &str, http: bool) -> Vec<Server> {
    scripts(python, PYTHON_DIR, &PYTHON_SCRIPTS, http)
}

/// The Node servers run by `node`, over Streamable HTTP when `http`; over
/// stdio the floor of any Node server comes too.
pub(crate) fn node(node: &str, http: bool) -> Vec<Server> {
    let mut servers = scripts(node, NODE_DIR, &NODE_SCRIPTS, http);
    if !http {
        servers.extend(scripts(node, NODE_DIR, &[NODE_FLOOR], false));
    }
    servers
}
