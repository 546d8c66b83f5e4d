//! Transports: how messages travel between two peers.
//!
//! A transport is split once into a [`TransportWriter`] and a [`TransportReader`]; the session
//! runtime owns both halves, reading in one task and writing in another. Framing and decoding
//! happen here, so the session only ever sees decoded messages or decode failures to answer.

mod child;
#[cfg(feature = "http")]
pub mod http;
mod memory;
mod stream;

use async_trait::async_trait;

pub use child::{ChildProcessTransport, ChildShutdown, STDERR_TAIL_BYTES};
pub use memory::{MemoryTransport, memory_pair};
pub use stream::{DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_POLL_WINDOW, StreamTransport, stdio};

use crate::{
    CloseReason, Error,
    jsonrpc::{DecodeError, JsonRpcMessage, RequestId},
};

/// One message on its way out, with the request it belongs to.
#[derive(Clone, Debug)]
pub struct Outbound {
    /// The message to send.
    pub message: JsonRpcMessage,
    /// The incoming request this message answers or was sent while handling, if any.
    ///
    /// Transports with several streams (Streamable HTTP) use it to send the message on the
    /// stream of that request; single-stream transports ignore it.
    pub related_request: Option<RequestId>,
}

/// One item read from a transport.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Inbound {
    /// A well-formed message.
    Message(JsonRpcMessage),
    /// Bytes that were not a valid message; the session answers with the error it carries.
    Invalid(DecodeError),
}

/// The receiving half of a transport.
#[async_trait]
pub trait TransportReader: Send + 'static {
    /// Returns the next item, `Ok(None)` at the end of the stream, or a fatal error.
    async fn recv(&mut self) -> Result<Option<Inbound>, Error>;

    /// Says why the connection ended, once [`TransportReader::recv`] returned the end of the
    /// stream or an error; the session puts it in the error of every request that fails for
    /// it. A transport that knows nothing more than that its stream ended returns `None`.
    async fn close_reason(&mut self) -> Option<CloseReason> {
        None
    }
}

/// The sending half of a transport.
#[async_trait]
pub trait TransportWriter: Send + 'static {
    /// Queues one message; it may stay buffered until [`TransportWriter::flush`].
    async fn send(&mut self, message: Outbound) -> Result<(), Error>;

    /// Writes out everything queued so far.
    async fn flush(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// Ends the stream that carries the messages of `request` without ending the request, on
    /// transports that have one stream per request; the peer resumes it later. Others ignore
    /// it.
    async fn close_request_stream(&mut self, request: &RequestId) -> Result<(), Error> {
        let _ = request;
        Ok(())
    }

    /// Ends the connection; the peer's reader then sees the end of the stream.
    async fn close(&mut self) -> Result<(), Error>;
}

/// A connection to a peer that the session runtime can drive.
pub trait Transport: Send + 'static {
    /// Splits the transport into its two halves.
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>);
}
