//! The least a stdio-to-HTTP proxy can do, which the proxy section measures beside `mcpweft
//! proxy URL`: one thread, blocking reads and writes, one keep-alive connection, no JSON parsed.
//!
//! `relay-floor HOST:PORT` posts each line it reads on stdin to `http://HOST:PORT/mcp` and writes
//! the body of each answer, a line, to stdout. It keeps the `mcp-session-id` the server gives and
//! expects plain JSON answers with a `content-length` (what the Rust echo servers send to a
//! client that does not stream); an answer without a body (a notification's 202) writes nothing.
//! It handles one message at a time, so requests sent at once are answered one after the other.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::ExitCode,
};

fn main() -> ExitCode {
    let Some(addr) = std::env::args().nth(1) else {
        eprintln!("usage: relay-floor HOST:PORT");
        return ExitCode::from(2);
    };
    match relay(&addr) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay-floor: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Relays stdin to the server at `addr` until stdin ends.
fn relay(addr: &str) -> std::io::Result<()> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    let mut answers = BufReader::new(stream.try_clone()?);
    let mut server = stream;
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let (mut session, mut line, mut header, mut request) = (None::<String>, String::new(), String::new(), Vec::new());
    loop {
        line.clear();
        if stdin.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let body = line.trim_end();
        request.clear();
        write!(
            request,
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            body.len()
        )?;
        if let Some(session) = &session {
            write!(request, "mcp-session-id: {session}\r\n")?;
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(body.as_bytes());
        server.write_all(&request)?;
        let mut length = 0;
        // The status line, then the headers up to the empty line.
        let mut status = true;
        loop {
            header.clear();
            if answers.read_line(&mut header)? == 0 {
                return Err(std::io::Error::other("the server closed the connection"));
            }
            let header = header.trim_end();
            if std::mem::take(&mut status) {
                continue;
            }
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else { continue };
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().map_err(std::io::Error::other)?;
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                session = Some(value.trim().to_owned());
            }
        }
        let mut answer = vec![0; length];
        answers.read_exact(&mut answer)?;
        if length > 0 {
            answer.push(b'\n');
            stdout.write_all(&answer)?;
            stdout.flush()?;
        }
    }
}
