//! The client side of stdio: spawn a server process and talk to it over its stdin and stdout.

use std::{process::Stdio, time::Duration};

use async_trait::async_trait;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::{
    Outbound, Transport, TransportReader, TransportWriter,
    stream::{DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_POLL_WINDOW, LineReader, StreamTransport},
};
use crate::Error;

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
/// The child's stderr is forwarded to this process's stderr. Closing the transport closes the
/// child's stdin, waits for it to exit, then sends SIGTERM and finally SIGKILL, as the MCP
/// stdio transport prescribes. Windows has no SIGTERM: there the child is terminated
/// (`TerminateProcess`, through Tokio's `Child::kill`) once it has not exited after its stdin
/// was closed.
pub struct ChildProcessTransport {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    shutdown: ChildShutdown,
    max_message_size: usize,
    poll_window: Duration,
}

impl ChildProcessTransport {
    /// Spawns the command with piped stdin and stdout and inherited stderr; a program that
    /// cannot be started is an I/O error that names it.
    pub fn spawn(mut command: Command) -> Result<Self, Error> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| {
            let program = command.as_std().get_program().to_string_lossy().into_owned();
            Error::Io(std::io::Error::new(e.kind(), format!("could not start {program}: {e}")))
        })?;
        let stdin = child.stdin.take().ok_or(Error::TransportClosed)?;
        let stdout = child.stdout.take().ok_or(Error::TransportClosed)?;
        Ok(ChildProcessTransport {
            child,
            stdin,
            stdout,
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
        let reader = LineReader::new(self.stdout, self.max_message_size, self.poll_window);
        (Box::new(ChildWriter { inner: Some(writer), child: self.child, shutdown: self.shutdown }), Box::new(reader))
    }
}

struct ChildWriter {
    inner: Option<Box<dyn TransportWriter>>,
    child: Child,
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
        if tokio::time::timeout(self.shutdown.after_close, self.child.wait()).await.is_ok() {
            return Ok(());
        }
        #[cfg(unix)]
        if let Some(pid) = self.child.id() {
            // SAFETY: signalling our own child by the pid Tokio reports while it has not been reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
            if tokio::time::timeout(self.shutdown.after_terminate, self.child.wait()).await.is_ok() {
                return Ok(());
            }
        }
        // SIGKILL after an unheeded SIGTERM; Windows has no signal that asks a process to end,
        // so there the child is terminated as soon as it outlives `after_close`.
        self.child.kill().await?;
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
}
