//! The client side of stdio: spawn a server process and talk to it over its stdin and stdout.

use std::{
    collections::VecDeque,
    process::{ExitStatus, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    process::{Child, ChildStderr, ChildStdin, ChildStdout, Command},
    task::JoinHandle,
};

use super::{
    Inbound, Outbound, Transport, TransportReader, TransportWriter,
    stream::{DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_POLL_WINDOW, LineReader, StreamTransport},
};
use crate::{CloseReason, Error, sync::lock};

/// How many of the last bytes a spawned server wrote to its stderr are kept, to tell in the
/// error of a connection that ended how it ended: 4 KiB.
pub const STDERR_TAIL_BYTES: usize = 4096;

/// How long a reader that met the end of the child's stdout waits for the child to exit and
/// for the rest of its stderr, before it reports what it knows.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// How long to wait at each step of a clean shutdown of the child.
///
/// Build it with [`ChildShutdown::new`] and the `with_*` methods; fields may be added in later
/// versions.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ChildShutdown {
    /// How long to wait for the child to exit after its stdin is closed.
    pub after_close: Duration,
    /// How long to wait after SIGTERM before sending SIGKILL (Unix only: on Windows the child
    /// is terminated as soon as `after_close` has passed).
    pub after_terminate: Duration,
}

impl Default for ChildShutdown {
    fn default() -> Self {
        ChildShutdown { after_close: Duration::from_secs(2), after_terminate: Duration::from_secs(2) }
    }
}

impl ChildShutdown {
    /// Creates the default steps: 2 seconds after closing stdin, 2 more after SIGTERM.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets how long to wait for the child to exit after its stdin is closed.
    pub fn with_after_close(mut self, wait: Duration) -> Self {
        self.after_close = wait;
        self
    }

    /// Sets how long to wait after SIGTERM before sending SIGKILL.
    pub fn with_after_terminate(mut self, wait: Duration) -> Self {
        self.after_terminate = wait;
        self
    }
}

/// A transport to a server process that this one spawned.
///
/// The child's stderr is read through a pipe and forwarded to this process's stderr, and its
/// last [`STDERR_TAIL_BYTES`] are kept: when the child ends the connection, requests fail with
/// [`Error::Disconnected`], which names its exit code or signal and ends with that tail. (A
/// child that inherited the stderr of its parent would lose it where the parent's descriptor 2
/// is not inheritable, as in Node.) Closing the transport closes the
/// child's stdin, waits for it to exit, then sends SIGTERM and finally SIGKILL, as the MCP
/// stdio transport prescribes. Windows has no SIGTERM: there the child is terminated
/// (`TerminateProcess`, through Tokio's `Child::kill`) once it has not exited after its stdin
/// was closed.
pub struct ChildProcessTransport {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: StderrForwarder,
    shutdown: ChildShutdown,
    max_message_size: usize,
    poll_window: Duration,
}

impl ChildProcessTransport {
    /// Spawns the command with piped stdin, stdout and stderr (forwarded to this process's
    /// stderr); a program that cannot be started is an I/O error that names it.
    pub fn spawn(mut command: Command) -> Result<Self, Error> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| {
            let program = command.as_std().get_program().to_string_lossy().into_owned();
            Error::Io(std::io::Error::new(e.kind(), format!("could not start {program}: {e}")))
        })?;
        let stdin = child.stdin.take().ok_or(Error::TransportClosed)?;
        let stdout = child.stdout.take().ok_or(Error::TransportClosed)?;
        let stderr = StderrForwarder::start(child.stderr.take().ok_or(Error::TransportClosed)?);
        Ok(ChildProcessTransport {
            child,
            stdin,
            stdout,
            stderr,
            shutdown: ChildShutdown::default(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            poll_window: DEFAULT_POLL_WINDOW,
        })
    }

    /// Spawns `program` with `args`, as [`ChildProcessTransport::spawn`] does.
    pub fn command<I, S>(program: impl AsRef<std::ffi::OsStr>, args: I) -> Result<Self, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = Command::new(program);
        command.args(args);
        Self::spawn(command)
    }

    /// Sets the waits of the shutdown sequence.
    pub fn with_shutdown(mut self, shutdown: ChildShutdown) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// Sets the largest message, in bytes, that the reader accepts.
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how long the reader polls for the child's next bytes before it sleeps, as
    /// [`StreamTransport::with_poll_window`] describes; `Duration::ZERO` turns polling off.
    pub fn with_poll_window(mut self, window: Duration) -> Self {
        self.poll_window = window;
        self
    }

    /// Returns the operating system's id of the child, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }
}

impl Transport for ChildProcessTransport {
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>) {
        let (writer, _) = StreamTransport::new(tokio::io::empty(), self.stdin).split();
        let lines = LineReader::new(self.stdout, self.max_message_size, self.poll_window);
        let child = Arc::new(tokio::sync::Mutex::new(self.child));
        let reader = ChildReader { lines, child: child.clone(), stderr: self.stderr };
        (Box::new(ChildWriter { inner: Some(writer), child, shutdown: self.shutdown }), Box::new(reader))
    }
}

/// Copies the child's stderr to this process's stderr and keeps its last bytes.
struct StderrForwarder {
    tail: Arc<Mutex<VecDeque<u8>>>,
    task: Option<JoinHandle<()>>,
}

impl StderrForwarder {
    fn start(mut from: ChildStderr) -> Self {
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let kept = tail.clone();
        let task = tokio::spawn(async move {
            let mut to = tokio::io::stderr();
            let mut forwarding = true;
            let mut buffer = vec![0; 8192];
            loop {
                let n = match from.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                {
                    let mut kept = lock(&kept);
                    kept.extend(&buffer[..n]);
                    let excess = kept.len().saturating_sub(STDERR_TAIL_BYTES);
                    kept.drain(..excess);
                }
                // The child's stderr is still read when ours fails, so that the child never
                // blocks on a full pipe.
                if forwarding {
                    forwarding = to.write_all(&buffer[..n]).await.is_ok() && to.flush().await.is_ok();
                }
            }
        });
        StderrForwarder { tail, task: Some(task) }
    }

    /// Waits (up to `deadline`) for the end of the child's stderr and returns its last bytes as
    /// text, or `None` when it wrote nothing.
    async fn tail(&mut self, deadline: tokio::time::Instant) -> Option<String> {
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout_at(deadline, task).await;
        }
        let bytes: Vec<u8> = lock(&self.tail).iter().copied().collect();
        // The tail may start inside a character: skip its continuation bytes.
        let start = bytes.iter().position(|b| b & 0xC0 != 0x80).unwrap_or(bytes.len());
        let text = String::from_utf8_lossy(&bytes[start..]).trim().to_owned();
        (!text.is_empty()).then_some(text)
    }
}

/// Reads the child's stdout, and tells how the child ended once it is over.
struct ChildReader {
    lines: LineReader<ChildStdout>,
    child: Arc<tokio::sync::Mutex<Child>>,
    stderr: StderrForwarder,
}

#[async_trait]
impl TransportReader for ChildReader {
    async fn recv(&mut self) -> Result<Option<Inbound>, Error> {
        self.lines.recv().await
    }

    async fn close_reason(&mut self) -> Option<CloseReason> {
        let deadline = tokio::time::Instant::now() + EXIT_WAIT;
        let child = self.child.clone();
        let status =
            tokio::time::timeout_at(deadline, async move { child.lock().await.wait().await.ok() }).await.ok().flatten();
        let mut reason = exit_reason(status);
        reason.stderr = self.stderr.tail(deadline).await;
        Some(reason)
    }
}

/// Describes how the child ended: its exit status, or none when it had not exited in time.
fn exit_reason(status: Option<ExitStatus>) -> CloseReason {
    let Some(status) = status else {
        return CloseReason::new("the server process closed its stdin or stdout without exiting");
    };
    let mut reason = CloseReason::new(format!("the server process exited with {status}"));
    reason.exit_code = status.code();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        reason.signal = status.signal();
    }
    if let Some(code) = reason.exit_code {
        reason.message = format!("the server process exited with code {code}");
    } else if let Some(signal) = reason.signal {
        reason.message = format!("the server process was ended by signal {signal}");
    }
    reason
}

struct ChildWriter {
    inner: Option<Box<dyn TransportWriter>>,
    child: Arc<tokio::sync::Mutex<Child>>,
    shutdown: ChildShutdown,
}

#[async_trait]
impl TransportWriter for ChildWriter {
    async fn send(&mut self, message: Outbound) -> Result<(), Error> {
        self.inner.as_mut().ok_or(Error::TransportClosed)?.send(message).await
    }

    async fn flush(&mut self) -> Result<(), Error> {
        self.inner.as_mut().ok_or(Error::TransportClosed)?.flush().await
    }

    async fn close(&mut self) -> Result<(), Error> {
        if let Some(mut writer) = self.inner.take() {
            let _ = writer.close().await;
        }
        let mut child = self.child.lock().await;
        if tokio::time::timeout(self.shutdown.after_close, child.wait()).await.is_ok() {
            return Ok(());
        }
        #[cfg(unix)]
        if let Some(pid) = child.id() {
            // SAFETY: signalling our own child by the pid Tokio reports while it has not been reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
            if tokio::time::timeout(self.shutdown.after_terminate, child.wait()).await.is_ok() {
                return Ok(());
            }
        }
        // SIGKILL after an unheeded SIGTERM; Windows has no signal that asks a process to end,
        // so there the child is terminated as soon as it outlives `after_close`.
        child.kill().await?;
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::time::Instant;

    use super::*;

    /// A child that ignores the end of its stdin is ended by the next step, SIGTERM, long
    /// before the SIGKILL that would follow `after_terminate`.
    #[tokio::test]
    async fn a_child_that_outlives_its_stdin_is_terminated() {
        let shutdown = ChildShutdown::new()
            .with_after_close(Duration::from_millis(50))
            .with_after_terminate(Duration::from_secs(20));
        let transport = ChildProcessTransport::command("sleep", ["30"]).unwrap().with_shutdown(shutdown);
        let (mut writer, _reader) = transport.split();
        let start = Instant::now();
        writer.close().await.unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "closing took {:?}", start.elapsed());
    }

    /// A child that fails is reported with its exit code and the end of its stderr, of which
    /// only the last `STDERR_TAIL_BYTES` are kept.
    #[tokio::test]
    async fn the_reason_names_the_exit_code_and_the_end_of_stderr() {
        let script = "head -c 5000 /dev/zero | tr '\\0' x >&2; echo >&2; echo 'boom: no config' >&2; exit 3";
        let transport = ChildProcessTransport::command("sh", ["-c", script]).unwrap();
        let (_writer, mut reader) = transport.split();
        assert!(tokio::time::timeout(Duration::from_secs(10), reader.recv()).await.unwrap().unwrap().is_none());
        let reason = reader.close_reason().await.expect("a reason");
        assert_eq!(reason.exit_code, Some(3));
        assert_eq!(reason.signal, None);
        assert_eq!(reason.message, "the server process exited with code 3");
        let stderr = reason.stderr.clone().expect("the stderr");
        assert!(stderr.ends_with("xxx\nboom: no config"), "{stderr:?}");
        assert!(stderr.len() <= STDERR_TAIL_BYTES, "{} bytes kept", stderr.len());
        assert!(reason.to_string().starts_with("the server process exited with code 3; its stderr ended with:\n"));
    }

    /// A child ended by a signal is reported with it, and one that wrote nothing to stderr
    /// has no stderr in its reason.
    #[tokio::test]
    async fn the_reason_names_the_signal() {
        let transport = ChildProcessTransport::command("sh", ["-c", "kill -9 $$"]).unwrap();
        let (_writer, mut reader) = transport.split();
        assert!(tokio::time::timeout(Duration::from_secs(10), reader.recv()).await.unwrap().unwrap().is_none());
        let reason = reader.close_reason().await.expect("a reason");
        assert_eq!((reason.exit_code, reason.signal, reason.stderr.as_deref()), (None, Some(9), None));
        assert_eq!(reason.to_string(), "the server process was ended by signal 9");
    }
}
