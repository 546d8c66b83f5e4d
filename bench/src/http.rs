//! A minimal HTTP/1.1 client speaking MCP's Streamable HTTP transport.
//!
//! Like the stdio client, it is deliberately raw: one keep-alive TCP
//! connection per MCP session, requests written with a single `write`,
//! responses parsed with `httparse` and de-chunked by hand, so that the
//! numbers measure the servers and both servers are driven the same way.
//! A reply may be `application/json` or an SSE stream, whose `data` fields
//! are searched for the response.

use std::{io::Write, net::SocketAddr};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::rpc::{
    INITIALIZE_ID, INITIALIZED, PROTOCOL_VERSION, Result, check_echo_response, echo_request_with, initialize_request,
    parse_response,
};

/// The path of the MCP endpoint on every server.
const PATH: &str = "/mcp";
/// The most headers a response may have.
const MAX_HEADERS: usize = 32;
/// How many bytes the receive buffer grows by before each read.
const READ_SIZE: usize = 16 * 1024;

/// The parts of an HTTP response that the client uses.
struct Response {
    status: u16,
    session_id: Option<String>,
    event_stream: bool,
    body: Vec<u8>,
}

/// How the length of a response body is known.
enum Framing {
    Length(usize),
    Chunked,
}

/// One keep-alive HTTP/1.1 connection to a server.
struct Connection {
    stream: TcpStream,
    host: String,
    /// Received bytes that have not been consumed yet.
    buffer: Vec<u8>,
    /// The request being written, kept to reuse its allocation.
    request: Vec<u8>,
}

impl Connection {
    /// Connects to `addr` with Nagle's algorithm off.
    async fn connect(addr: SocketAddr) -> Result<Self> {
        let stream = TcpStream::connect(addr).await.map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            host: addr.to_string(),
            buffer: Vec::with_capacity(READ_SIZE),
            request: Vec::with_capacity(1024),
        })
    }

    /// POSTs the JSON `body` to the MCP endpoint, with the session and
    /// protocol-version headers when given, and reads the whole response.
    async fn post(&mut self, session: Option<(&str, &str)>, body: &str) -> Result<Response> {
        self.request.clear();
        write!(
            self.request,
            "POST {PATH} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.host,
            body.len()
        )?;
        if let Some((id, version)) = session {
            write!(self.request, "Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: {version}\r\n")?;
        }
        self.request.extend_from_slice(b"\r\n");
        self.request.extend_from_slice(body.as_bytes());
        self.stream.write_all(&self.request).await?;
        self.read_response().await
    }

    /// POSTs the JSON `body` of a 2026-07-28 request for `method` (naming `name`, the tool) to
    /// the MCP endpoint, with the headers that revision requires and no session, and reads the
    /// whole response.
    async fn post_2026(&mut self, method: &str, name: &str, body: &str) -> Result<Response> {
        self.request.clear();
        write!(
            self.request,
            "POST {PATH} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\n\r\n",
            self.host,
            body.len()
        )?;
        self.request.extend_from_slice(body.as_bytes());
        self.stream.write_all(&self.request).await?;
        self.read_response().await
    }

    /// Reads more bytes into the buffer, failing if the server closed the
    /// connection.
    async fn fill(&mut self) -> Result<()> {
        self.buffer.reserve(READ_SIZE);
        if self.stream.read_buf(&mut self.buffer).await? == 0 {
            return Err("the server closed the connection".into());
        }
        Ok(())
    }

    /// Reads until the buffer holds a CRLF and returns the length of the line
    /// before it.
    async fn line(&mut self) -> Result<usize> {
        let mut searched = 0;
        loop {
            if let Some(at) = self.buffer[searched..].windows(2).position(|pair| pair == b"\r\n") {
                return Ok(searched + at);
            }
            searched = self.buffer.len().saturating_sub(1);
            self.fill().await?;
        }
    }

    /// Reads until the buffer holds at least `len` bytes.
    async fn at_least(&mut self, len: usize) -> Result<()> {
        while self.buffer.len() < len {
            self.fill().await?;
        }
        Ok(())
    }

    /// Reads one response: its head, then its body by length or chunks.
    async fn read_response(&mut self) -> Result<Response> {
        let (head_len, status, session_id, event_stream, framing) = loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut parsed = httparse::Response::new(&mut headers);
            if let httparse::Status::Complete(head_len) = parsed.parse(&self.buffer)? {
                let status = parsed.code.ok_or("response without a status")?;
                let mut session_id = None;
                let mut event_stream = false;
                let mut framing = None;
                for header in parsed.headers.iter() {
                    let value = std::str::from_utf8(header.value)?;
                    if header.name.eq_ignore_ascii_case("mcp-session-id") {
                        session_id = Some(value.to_owned());
                    } else if header.name.eq_ignore_ascii_case("content-type") {
                        event_stream = value.trim_start().starts_with("text/event-stream");
                    } else if header.name.eq_ignore_ascii_case("content-length") {
                        framing = Some(Framing::Length(value.trim().parse()?));
                    } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
                        if !value.trim().eq_ignore_ascii_case("chunked") {
                            return Err(format!("unsupported transfer encoding {value:?}").into());
                        }
                        framing = Some(Framing::Chunked);
                    }
                }
                let framing = match (framing, status) {
                    (Some(framing), _) => framing,
                    (None, 204 | 304) => Framing::Length(0),
                    (None, _) => return Err(format!("HTTP {status} response without a length").into()),
                };
                break (head_len, status, session_id, event_stream, framing);
            }
            self.fill().await?;
        };
        self.buffer.drain(..head_len);
        let body = match framing {
            Framing::Length(len) => {
                self.at_least(len).await?;
                self.buffer.drain(..len).collect()
            }
            Framing::Chunked => self.read_chunks().await?,
        };
        Ok(Response { status, session_id, event_stream, body })
    }

    /// Reads a chunked body up to its last chunk and trailers, and returns
    /// the concatenated chunks.
    async fn read_chunks(&mut self) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = self.line().await?;
            let size = std::str::from_utf8(&self.buffer[..line])?;
            let size = size.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16).map_err(|e| format!("bad chunk size {size:?}: {e}"))?;
            self.buffer.drain(..line + 2);
            if size == 0 {
                // Skip the trailers, up to the empty line that ends the body.
                loop {
                    let line = self.line().await?;
                    self.buffer.drain(..line + 2);
                    if line == 0 {
                        return Ok(body);
                    }
                }
            }
            self.at_least(size + 2).await?;
            body.extend_from_slice(&self.buffer[..size]);
            self.buffer.drain(..size + 2);
        }
    }
}

impl Response {
    /// Returns the JSON-RPC message that answers request `id`: the whole
    /// body for JSON, or the `data` of one event for an SSE stream.
    fn into_message(self, id: u64) -> Result<Vec<u8>> {
        if self.status != 200 {
            let body = String::from_utf8_lossy(&self.body);
            return Err(format!("HTTP {} for request {id}: {}", self.status, body.trim_end()).into());
        }
        if !self.event_stream {
            return match parse_response(&self.body)? {
                Some(got) if got == id => Ok(self.body),
                got => Err(format!("expected response {id}, got {got:?}").into()),
            };
        }
        find_in_event_stream(&self.body, id)
    }
}

/// Returns the `data` of the SSE event in `body` that answers request `id`.
fn find_in_event_stream(body: &[u8], id: u64) -> Result<Vec<u8>> {
    // Events are separated by blank lines; the data lines of one event are
    // joined with newlines.
    let text = std::str::from_utf8(body)?.replace("\r\n", "\n");
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        let data = data.join("\n");
        if parse_response(data.as_bytes())? == Some(id) {
            return Ok(data.into_bytes());
        }
    }
    Err(format!("the SSE stream for request {id} ended without its response").into())
}

/// An initialized MCP session on its own connection.
pub(crate) struct HttpSession {
    connection: Connection,
    session_id: String,
    version: String,
    next_id: u64,
}

impl HttpSession {
    /// Connects to `addr`, sends `initialize`, reads the session id and the
    /// negotiated protocol version, and sends `notifications/initialized`.
    pub(crate) async fn open(addr: SocketAddr) -> Result<Self> {
        let mut connection = Connection::connect(addr).await?;
        let mut response = connection.post(None, &initialize_request()).await?;
        let session_id = response.session_id.take().ok_or("initialize reply without an Mcp-Session-Id header")?;
        let result: serde_json::Value = serde_json::from_slice(&response.into_message(INITIALIZE_ID)?)?;
        let version = result["result"]["protocolVersion"].as_str().unwrap_or(PROTOCOL_VERSION).to_owned();
        let response = connection.post(Some((&session_id, &version)), INITIALIZED).await?;
        if response.status != 202 {
            return Err(format!("HTTP {} for notifications/initialized", response.status).into());
        }
        Ok(Self { connection, session_id, version, next_id: INITIALIZE_ID + 1 })
    }

    /// Calls `echo` once and returns its raw response after checking that
    /// it is a success.
    pub(crate) async fn call_echo(&mut self) -> Result<Vec<u8>> {
        self.call_echo_with("hi").await
    }

    /// Calls `echo` once with `text` (which must need no JSON escaping) and returns its raw
    /// response after checking that it is a success.
    pub(crate) async fn call_echo_with(&mut self, text: &str) -> Result<Vec<u8>> {
        let id = self.next_id;
        self.next_id += 1;
        let session = Some((self.session_id.as_str(), self.version.as_str()));
        self.connection.post(session, &echo_request_with(id, text)).await?.into_message(id)
    }

    /// Calls `echo` once and checks that the text comes back.
    pub(crate) async fn check_echo(&mut self) -> Result<()> {
        check_echo_response(&self.call_echo().await?)
    }
}

/// Sends the 2026-07-28 `tools/call` of tool `name` whose JSON is `body` (its id is 1) on a new
/// connection to `addr`, and returns the response after checking that it is a success.
pub(crate) async fn call_2026(addr: SocketAddr, name: &str, body: &str) -> Result<serde_json::Value> {
    let mut connection = Connection::connect(addr).await?;
    let message = connection.post_2026("tools/call", name, body).await?.into_message(1)?;
    let message: serde_json::Value = serde_json::from_slice(&message)?;
    if message.get("result").is_none() {
        return Err(format!("tools/call {name} failed: {message}").into());
    }
    Ok(message)
}
