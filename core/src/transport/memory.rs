//! An in-memory transport pair, for tests and for running a client and server in one process.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{Inbound, Outbound, Transport, TransportReader, TransportWriter};
use crate::Error;

/// One end of an in-memory connection; messages pass as values, without encoding.
pub struct MemoryTransport {
    tx: mpsc::UnboundedSender<Inbound>,
    rx: mpsc::UnboundedReceiver<Inbound>,
}

/// Returns two connected in-memory transports: what one sends, the other receives.
pub fn memory_pair() -> (MemoryTransport, MemoryTransport) {
    let (a_tx, b_rx) = mpsc::unbounded_channel();
    let (b_tx, a_rx) = mpsc::unbounded_channel();
    (MemoryTransport { tx: a_tx, rx: a_rx }, MemoryTransport { tx: b_tx, rx: b_rx })
}

impl Transport for MemoryTransport {
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>) {
        (Box::new(MemoryWriter(Some(self.tx))), Box::new(MemoryReader(self.rx)))
    }
}

struct MemoryWriter(Option<mpsc::UnboundedSender<Inbound>>);

#[async_trait]
impl TransportWriter for MemoryWriter {
    async fn send(&mut self, message: Outbound) -> Result<(), Error> {
        let tx = self.0.as_ref().ok_or(Error::TransportClosed)?;
        tx.send(Inbound::Message(message.message)).map_err(|_| Error::TransportClosed)
    }

    async fn close(&mut self) -> Result<(), Error> {
        self.0 = None;
        Ok(())
    }
}

struct MemoryReader(mpsc::UnboundedReceiver<Inbound>);

#[async_trait]
impl TransportReader for MemoryReader {
    async fn recv(&mut self) -> Result<Option<Inbound>, Error> {
        Ok(self.0.recv().await)
    }
}
