//! Server-Sent Events as the HTTP client reads them: an incremental parser and a reader over a
//! response body.
//!
//! The parser follows the WHATWG event-stream rules: lines end with CRLF, LF or CR; a line
//! starting with a colon is a comment; `field: value` loses one space after the colon; an empty
//! line ends the event; `data` lines are joined with newlines.

use std::{collections::VecDeque, time::Duration};

use bytes::Bytes;
use futures::{StreamExt, stream::BoxStream};

use crate::transport::DEFAULT_MAX_MESSAGE_SIZE;

/// One event of an event stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SseEvent {
    /// The `id` field, when the event carried one.
    pub(crate) id: Option<String>,
    /// The `event` field, when the event carried one.
    pub(super) event: Option<String>,
    /// The `data` lines joined with newlines; empty for a priming event.
    pub(crate) data: String,
    /// The reconnection delay the `retry` field asked for.
    pub(crate) retry: Option<Duration>,
}

/// An incremental event-stream parser: feed it bytes, take out complete events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    /// Whether the current event has any field at all, so that blank lines alone yield nothing.
    started: bool,
    /// Whether the data buffer has a line yet, so that joining newlines are placed right.
    has_data: bool,
    /// Whether the last byte seen was a CR, so that a following LF is not a second line end.
    after_cr: bool,
}

impl SseParser {
    /// Parses `bytes`, appending every event they complete to `out`.
    ///
    /// Fails when a single line, or the data of one event, grows beyond the message size limit.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], out: &mut VecDeque<SseEvent>) -> Result<(), String> {
        if self.after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.after_cr = false;
        while let Some(pos) = bytes.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let line = if self.buf.is_empty() {
                &bytes[..pos]
            } else {
                self.buf.extend_from_slice(&bytes[..pos]);
                &self.buf[..]
            };
            let line = String::from_utf8_lossy(line).into_owned();
            self.buf.clear();
            self.line(&line, out);
            if self.current.data.len() > DEFAULT_MAX_MESSAGE_SIZE {
                return Err(format!("an event's data exceeds {DEFAULT_MAX_MESSAGE_SIZE} bytes"));
            }
            let cr = bytes[pos] == b'\r';
            bytes = &bytes[pos + 1..];
            if cr {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > DEFAULT_MAX_MESSAGE_SIZE {
            return Err(format!("an event-stream line exceeds {DEFAULT_MAX_MESSAGE_SIZE} bytes"));
        }
        Ok(())
    }

    fn line(&mut self, line: &str, out: &mut VecDeque<SseEvent>) {
        if line.is_empty() {
            if std::mem::take(&mut self.started) {
                self.has_data = false;
                out.push_back(std::mem::take(&mut self.current));
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if std::mem::replace(&mut self.has_data, true) {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
            }
            "event" => self.current.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.current.id = Some(value.to_owned()),
            "retry" => match value.parse::<u64>() {
                Ok(ms) => self.current.retry = Some(Duration::from_millis(ms)),
                Err(_) => return,
            },
            _ => return,
        }
        self.started = true;
    }
}

/// Reads the events of one HTTP response body.
pub(super) struct SseStream {
    body: BoxStream<'static, Result<Bytes, reqwest::Error>>,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
}

impl SseStream {
    /// Starts reading the body of `response`.
    pub(super) fn new(response: reqwest::Response) -> Self {
        SseStream { body: response.bytes_stream().boxed(), parser: SseParser::default(), ready: VecDeque::new() }
    }

    /// Returns the next event, or `None` when the stream ended or broke.
    ///
    /// An event still unterminated when the body ends is dropped, as the event-stream rules
    /// require.
    pub(super) async fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(event);
            }
            match self.body.next().await {
                Some(Ok(chunk)) => {
                    if let Err(e) = self.parser.feed(&chunk, &mut self.ready) {
                        tracing::debug!(error = %e, "dropping an event stream");
                        return None;
                    }
                }
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "an event stream broke");
                    return None;
                }
                None => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut out = VecDeque::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out).unwrap();
        }
        out.into_iter().collect()
    }

    #[test]
    fn parses_fields_comments_and_multiline_data() {
        let events = parse_chunks(&[b": hello\nid: 7\nevent: message\ndata: {\"a\":\ndata:1}\nretry: 250\n\n"]);
        assert_eq!(
            events,
            [SseEvent {
                id: Some("7".into()),
                event: Some("message".into()),
                data: "{\"a\":\n1}".into(),
                retry: Some(Duration::from_millis(250)),
            }]
        );
    }

    #[test]
    fn handles_every_line_ending_across_chunk_boundaries() {
        let events = parse_chunks(&[b"data: a\r", b"\ndata: b\r\r", b"data: c\n", b"\n", b"id: x\r\n\r\n"]);
        let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["a\nb", "c", ""]);
        assert_eq!(events[2].id.as_deref(), Some("x"));
    }

    #[test]
    fn priming_event_has_an_id_and_empty_data() {
        let events = parse_chunks(&[b"id: ev-1\nretry: 500\ndata: \n\n\n\n"]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].id.as_deref(), Some("ev-1"));
        assert_eq!(events[0].data, "");
        assert_eq!(events[0].retry, Some(Duration::from_millis(500)));
    }

    #[test]
    fn many_data_lines_cannot_grow_an_event_without_bound() {
        let mut parser = SseParser::default();
        let mut out = VecDeque::new();
        let line = format!("data: {}\n", "x".repeat(64 * 1024));
        let mut failed = false;
        for _ in 0..(DEFAULT_MAX_MESSAGE_SIZE / (64 * 1024) + 2) {
            if parser.feed(line.as_bytes(), &mut out).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed, "the parser kept {} bytes of data", parser.current.data.len());
        assert!(out.is_empty());
    }

    #[test]
    fn an_invalid_retry_is_ignored() {
        let events = parse_chunks(&[b"retry: soon\ndata: x\n\n"]);
        assert_eq!(events[0].retry, None);
        assert_eq!(events[0].data, "x");
    }
}
