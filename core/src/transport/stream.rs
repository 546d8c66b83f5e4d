//! Newline-delimited JSON over byte streams: the stdio transport and its building block.

use std::{
    io,
    time::{Duration, Instant},
};
#[cfg(unix)]
use std::{
    os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd},
    pin::Pin,
    task::{Context, Poll, ready},
};

use async_trait::async_trait;
use bytes::BytesMut;
use futures::FutureExt;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
#[cfg(unix)]
use tokio::io::{ReadBuf, unix::AsyncFd};

use super::{Inbound, Outbound, Transport, TransportReader, TransportWriter};
use crate::{
    Error,
    jsonrpc::{DecodeError, ErrorData, JsonRpcMessage},
};

/// The largest message accepted by default: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// How long the reader keeps polling for the peer's next message by default, while the peer
/// answers quickly: 100 µs.
pub const DEFAULT_POLL_WINDOW: Duration = Duration::from_micros(100);

/// A transport that exchanges newline-delimited JSON-RPC messages over a reader and a writer.
///
/// Each message is one line of compact JSON. A line longer than the size limit is skipped and
/// reported as an invalid request, so one oversized message never ends the session.
///
/// While the peer sends its messages in quick succession, the reader polls for the next one
/// for a short window (see [`StreamTransport::with_poll_window`]) before it sleeps: waking a
/// sleeping thread costs far more than the work of a small call on a virtual machine, and
/// the window is only spent in bursts, never while the peer is idle.
pub struct StreamTransport<R, W> {
    reader: R,
    writer: W,
    max_message_size: usize,
    poll_window: Duration,
}

impl<R, W> StreamTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Creates a transport over the given halves with the default size limit.
    pub fn new(reader: R, writer: W) -> Self {
        StreamTransport { reader, writer, max_message_size: DEFAULT_MAX_MESSAGE_SIZE, poll_window: DEFAULT_POLL_WINDOW }
    }

    /// Sets the largest message, in bytes, that the reader accepts.
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how long the reader polls for the peer's next bytes before it sleeps, when the
    /// peer's previous message came within twice that time of the reader starting to wait.
    ///
    /// Polling spends up to this much processor time per wait in a burst of messages, in
    /// exchange for the wake-up of a sleeping thread (tens of microseconds on a virtual
    /// machine). `Duration::ZERO` turns polling off. The default is [`DEFAULT_POLL_WINDOW`].
    pub fn with_poll_window(mut self, window: Duration) -> Self {
        self.poll_window = window;
        self
    }
}

impl<R, W> Transport for StreamTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>) {
        (
            Box::new(LineWriter { writer: self.writer, buf: Vec::with_capacity(8192) }),
            Box::new(LineReader::new(self.reader, self.max_message_size, self.poll_window)),
        )
    }
}

/// Returns a transport over this process's stdin and stdout, for a server a client spawned.
///
/// On Unix, when stdin and stdout are pipes or sockets they are driven directly by the reactor,
/// which avoids a thread hop per read and write; otherwise Tokio's blocking stdio is used. On
/// Windows Tokio's stdio is always used: it reads and writes on a blocking thread.
#[cfg(unix)]
pub fn stdio() -> StreamTransport<Box<dyn AsyncRead + Send + Unpin>, Box<dyn AsyncWrite + Send + Unpin>> {
    let reader: Box<dyn AsyncRead + Send + Unpin> = match PipeFd::dup(0) {
        Some(fd) => Box::new(fd),
        None => Box::new(tokio::io::stdin()),
    };
    let writer: Box<dyn AsyncWrite + Send + Unpin> = match PipeFd::dup(1) {
        Some(fd) => Box::new(fd),
        None => Box::new(tokio::io::stdout()),
    };
    StreamTransport::new(reader, writer)
}

/// Returns a transport over this process's stdin and stdout, for a server a client spawned.
///
/// Tokio's stdio is used, which reads and writes on a blocking thread.
#[cfg(not(unix))]
pub fn stdio() -> StreamTransport<Box<dyn AsyncRead + Send + Unpin>, Box<dyn AsyncWrite + Send + Unpin>> {
    StreamTransport::new(Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
}

/// How many bytes of messages the reader hands out before it lets the other tasks run.
///
/// A peer that pipelines large messages would otherwise have them all read and decoded before
/// the first handler runs (a reader with data waiting does not yield on its own for a while),
/// so that every message in flight is held at once. Small messages never reach it between the
/// yields the runtime imposes anyway.
const YIELD_BYTES: usize = 64 * 1024;

/// A reader that splits a byte stream into lines and decodes each one.
pub(crate) struct LineReader<R> {
    reader: R,
    buf: BytesMut,
    max: usize,
    /// How far `buf` has been searched for a newline.
    scanned: usize,
    /// True while the rest of an oversized line is being thrown away.
    discarding: bool,
    /// The bytes of the messages handed out since the reader last yielded.
    unyielded: usize,
    /// How long to poll for more bytes before sleeping; zero never polls.
    poll_window: Duration,
    /// Whether the last wait for bytes was short enough to poll during the next one.
    polling: bool,
}

impl<R: AsyncRead + Send + Unpin + 'static> LineReader<R> {
    /// Creates a reader of lines up to `max` bytes that polls for up to `poll_window` before it
    /// sleeps, during bursts (zero never polls).
    pub(crate) fn new(reader: R, max: usize, poll_window: Duration) -> Self {
        LineReader {
            reader,
            buf: BytesMut::with_capacity(16 * 1024),
            max,
            scanned: 0,
            discarding: false,
            unyielded: 0,
            poll_window,
            polling: false,
        }
    }

    /// Reads more bytes into the buffer, returning how many (zero at the end of the stream).
    ///
    /// When the previous wait was short, the read is first retried for up to the poll window,
    /// yielding to the runtime between tries so that every other task (a writer, a handler)
    /// still runs and the reactor still learns of the new bytes. A wait longer than twice the
    /// window ends polling until a wait is short again, so an idle peer costs nothing.
    async fn fill(&mut self) -> io::Result<usize> {
        if self.poll_window.is_zero() {
            return self.reader.read_buf(&mut self.buf).await;
        }
        let started = Instant::now();
        if self.polling {
            let until = started + self.poll_window;
            loop {
                if let Some(read) = std::pin::pin!(self.reader.read_buf(&mut self.buf)).now_or_never() {
                    return read;
                }
                if Instant::now() >= until {
                    break;
                }
                tokio::task::yield_now().await;
            }
        }
        let read = self.reader.read_buf(&mut self.buf).await;
        self.polling = started.elapsed() <= 2 * self.poll_window;
        read
    }

    fn too_large(&self) -> Inbound {
        Inbound::Invalid(DecodeError {
            id: None,
            error: ErrorData::invalid_request(format!("message exceeds the limit of {} bytes", self.max)),
            answerable: true,
        })
    }
}

#[async_trait]
impl<R: AsyncRead + Send + Unpin + 'static> TransportReader for LineReader<R> {
    async fn recv(&mut self) -> Result<Option<Inbound>, Error> {
        if self.unyielded >= YIELD_BYTES {
            self.unyielded = 0;
            tokio::task::yield_now().await;
        }
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let end = self.scanned + pos;
                let line = self.buf.split_to(end + 1);
                self.scanned = 0;
                if std::mem::take(&mut self.discarding) {
                    return Ok(Some(self.too_large()));
                }
                let mut line = &line[..end];
                if let [rest @ .., b'\r'] = line {
                    line = rest;
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if line.len() > self.max {
                    return Ok(Some(self.too_large()));
                }
                self.unyielded += line.len();
                return Ok(Some(match JsonRpcMessage::decode(line) {
                    Ok(message) => Inbound::Message(message),
                    Err(e) => Inbound::Invalid(e),
                }));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > self.max {
                self.discarding = true;
                self.buf.clear();
                self.scanned = 0;
            }
            if self.buf.capacity() - self.buf.len() < 4096 {
                self.buf.reserve(16 * 1024);
            }
            if self.fill().await? == 0 {
                if self.buf.iter().all(u8::is_ascii_whitespace) && !self.discarding {
                    return Ok(None);
                }
                // A last message without its newline still counts.
                self.buf.extend_from_slice(b"\n");
            }
        }
    }
}

/// A writer that encodes each message as one line and buffers until flushed.
struct LineWriter<W> {
    writer: W,
    buf: Vec<u8>,
}

#[async_trait]
impl<W: AsyncWrite + Send + Unpin + 'static> TransportWriter for LineWriter<W> {
    async fn send(&mut self, message: Outbound) -> Result<(), Error> {
        message.message.encode_into(&mut self.buf);
        self.buf.push(b'\n');
        if self.buf.len() >= 64 * 1024 {
            self.flush().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Error> {
        if !self.buf.is_empty() {
            self.writer.write_all(&self.buf).await?;
            self.buf.clear();
        }
        self.writer.flush().await?;
        Ok(())
    }

    async fn close(&mut self) -> Result<(), Error> {
        self.flush().await?;
        self.writer.shutdown().await?;
        Ok(())
    }
}

/// A pipe or socket file descriptor driven by the Tokio reactor in non-blocking mode.
#[cfg(unix)]
pub(crate) struct PipeFd(AsyncFd<OwnedFd>);

#[cfg(unix)]
impl PipeFd {
    /// Duplicates `fd` and wraps the copy, when it is a pipe or a socket.
    fn dup(fd: RawFd) -> Option<PipeFd> {
        // SAFETY: fstat and dup only read the descriptor table; the new descriptor is owned below.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 {
                return None;
            }
            let kind = st.st_mode & libc::S_IFMT;
            if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
                return None;
            }
            let copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3);
            if copy < 0 {
                return None;
            }
            let owned = OwnedFd::from_raw_fd(copy);
            let flags = libc::fcntl(copy, libc::F_GETFL);
            if flags < 0 || libc::fcntl(copy, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                return None;
            }
            AsyncFd::register(owned).ok().map(PipeFd)
        }
    }
}

#[cfg(unix)]
impl AsyncRead for PipeFd {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.0.poll_read_ready(cx))?;
            // The kernel writes into the unfilled part as it is, so it is not zeroed first
            // (which had cost more than the rest of reading a small message).
            // SAFETY: no byte of the unfilled part is read, and none is uninitialized by `read`.
            let unfilled = unsafe { buf.unfilled_mut() };
            let result = guard.try_io(|fd| {
                // SAFETY: the buffer is valid for writes of `unfilled.len()` bytes.
                let n = unsafe { libc::read(fd.as_raw_fd(), unfilled.as_mut_ptr().cast(), unfilled.len()) };
                if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
            });
            match result {
                Ok(Ok(n)) => {
                    // SAFETY: `read` wrote the first `n` bytes of the unfilled part.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

#[cfg(unix)]
impl AsyncWrite for PipeFd {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.0.poll_write_ready(cx))?;
            let result = guard.try_io(|fd| {
                // SAFETY: the buffer is valid for `data.len()` bytes.
                let n = unsafe { libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len()) };
                if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
            });
            match result {
                Ok(r) => return Poll::Ready(r),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: shutting down the write side of our own duplicate only affects sockets; for a
        // pipe the peer sees the end once every copy is closed, which dropping this value does.
        unsafe { libc::shutdown(self.0.as_raw_fd(), libc::SHUT_WR) };
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &'static [u8], max: usize) -> Vec<Inbound> {
        let mut reader = LineReader::new(input, max, Duration::ZERO);
        let mut out = Vec::new();
        while let Some(item) = reader.recv().await.unwrap() {
            out.push(item);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_skips_blank_ones() {
        let items =
            read_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}", 1024).await;
        let methods: Vec<_> = items
            .iter()
            .map(|i| match i {
                Inbound::Message(m) => m.method().unwrap().to_owned(),
                Inbound::Invalid(e) => panic!("unexpected {e}"),
            })
            .collect();
        assert_eq!(methods, ["a", "b"]);
    }

    fn method(item: Option<Inbound>) -> String {
        match item {
            Some(Inbound::Message(m)) => m.method().unwrap().to_owned(),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn polling_reader_delivers_every_message_and_the_end() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let mut reader = LineReader::new(ours, 1024, Duration::from_micros(100));
        let sender = tokio::spawn(async move {
            peer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n").await.unwrap();
            tokio::time::sleep(Duration::from_millis(2)).await;
            peer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n{\"jsonrpc\":").await.unwrap();
            tokio::task::yield_now().await;
            peer.write_all(b"\"2.0\",\"method\":\"c\"}\n").await.unwrap();
        });
        assert_eq!(method(reader.recv().await.unwrap()), "a");
        assert_eq!(method(reader.recv().await.unwrap()), "b");
        assert_eq!(method(reader.recv().await.unwrap()), "c");
        sender.await.unwrap();
        assert!(reader.recv().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn polling_follows_how_quickly_the_peer_sends() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let mut reader = LineReader::new(ours, 1024, Duration::from_millis(50));
        assert!(!reader.polling);
        peer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"quick\"}\n").await.unwrap();
        assert_eq!(method(reader.recv().await.unwrap()), "quick");
        assert!(reader.polling, "a message that was already there starts polling");
        let late = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            peer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"late\"}\n").await.unwrap();
            peer
        });
        assert_eq!(method(reader.recv().await.unwrap()), "late");
        assert!(!reader.polling, "a wait longer than twice the window stops polling");
        drop(late.await.unwrap());
        assert!(reader.recv().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn oversized_line_is_reported_and_skipped() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"");
        input.extend(std::iter::repeat_n(b'x', 300));
        input.extend_from_slice(b"\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n");
        let input: &'static [u8] = Box::leak(input.into_boxed_slice());
        let items = read_all(input, 64).await;
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0], Inbound::Invalid(e) if e.error.code == crate::jsonrpc::INVALID_REQUEST));
        assert!(matches!(&items[1], Inbound::Message(m) if m.method() == Some("ok")));
    }
}
