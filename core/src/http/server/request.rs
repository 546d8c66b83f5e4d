//! What the endpoint reads of a request: the headers it needs, in one pass, and the body, within
//! its size, its time and the bytes all bodies still arriving may hold.

use std::time::Duration;

use axum::{
    body::{Bytes, HttpBody},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    response::Response,
};

use crate::http::response::error_response;

use super::{PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER};

/// The `Mcp-Session-Id` header's name, parsed once: a lookup by a string parses it each time.
static SESSION_ID: HeaderName = HeaderName::from_static(SESSION_ID_HEADER);
/// The `MCP-Protocol-Version` header's name, parsed once.
static PROTOCOL_VERSION: HeaderName = HeaderName::from_static(PROTOCOL_VERSION_HEADER);
/// The `Last-Event-ID` header's name, parsed once.
static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The media types of `Accept` this endpoint looks for, as bits.
pub(super) const ACCEPTS_JSON: u8 = 1;
/// `text/event-stream` in `Accept`.
pub(super) const ACCEPTS_SSE: u8 = 2;

/// The headers this endpoint reads, found in one pass over a request's headers instead of a
/// lookup (and a hash of the name) each time one is needed.
///
/// Each is the first value of its name, as text; a first value that is not visible ASCII counts
/// as absent. `Accept` is read from all its values.
pub(super) struct RequestHeaders<'a> {
    pub(super) host: Option<&'a str>,
    pub(super) origin: Option<&'a str>,
    pub(super) protocol_version: Option<&'a str>,
    pub(super) session_id: Option<&'a str>,
    pub(super) content_type: Option<&'a str>,
    pub(super) last_event_id: Option<&'a str>,
    /// The `ACCEPTS_*` bits of the media types `Accept` names; all of them for `*/*`.
    accepts: u8,
}

impl<'a> RequestHeaders<'a> {
    /// Finds the headers this endpoint reads in `headers`.
    pub(super) fn read(headers: &'a HeaderMap) -> Self {
        let mut host = None;
        let mut origin = None;
        let mut protocol_version = None;
        let mut session_id = None;
        let mut content_type = None;
        let mut last_event_id = None;
        let mut accepts = 0;
        for (name, value) in headers {
            let first: &mut Option<&HeaderValue> = if name == header::HOST {
                &mut host
            } else if name == header::ACCEPT {
                accepts |= accepted(value.as_bytes());
                continue;
            } else if name == header::CONTENT_TYPE {
                &mut content_type
            } else if name == SESSION_ID {
                &mut session_id
            } else if name == PROTOCOL_VERSION {
                &mut protocol_version
            } else if name == header::ORIGIN {
                &mut origin
            } else if name == LAST_EVENT_ID {
                &mut last_event_id
            } else {
                continue;
            };
            first.get_or_insert(value);
        }
        let text = |value: Option<&'a HeaderValue>| value.and_then(|v| v.to_str().ok());
        RequestHeaders {
            host: text(host),
            origin: text(origin),
            protocol_version: text(protocol_version),
            session_id: text(session_id),
            content_type: text(content_type),
            last_event_id: text(last_event_id),
            accepts,
        }
    }

    /// Returns whether `Accept` names every media type of `wanted` (`ACCEPTS_*` bits).
    pub(super) fn accept(&self, wanted: u8) -> bool {
        self.accepts & wanted == wanted
    }
}

/// The `ACCEPTS_*` bits of the media types one `Accept` value names.
fn accepted(value: &[u8]) -> u8 {
    let mut found = 0;
    let mut rest = value;
    while !rest.is_empty() {
        let end = memchr::memchr(b',', rest).unwrap_or(rest.len());
        let item = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or_default();
        let media_type = item[..memchr::memchr(b';', item).unwrap_or(item.len())].trim_ascii();
        // Media types are case-insensitive (RFC 9110 §8.3.1).
        if media_type == b"*/*" {
            return ACCEPTS_JSON | ACCEPTS_SSE;
        } else if media_type.eq_ignore_ascii_case(b"application/json") {
            found |= ACCEPTS_JSON;
        } else if media_type.eq_ignore_ascii_case(b"text/event-stream") {
            found |= ACCEPTS_SSE;
        }
    }
    found
}

/// Reads a request's body whole, answering a body past `limit` bytes with 413, one that does
/// not arrive within `timeout` with 408, and one that would take the bytes held for bodies
/// still arriving past `budget` with 503.
///
/// A body that has already arrived, as a small one usually has, is read without arming the
/// timer: the read ends at the end the body announced (its length) instead of waiting for the
/// connection to confirm it.
pub(super) async fn read_body<B>(
    body: B,
    limit: usize,
    timeout: Duration,
    budget: &tokio::sync::Semaphore,
) -> Result<Bytes, Response>
where
    B: HttpBody<Data = Bytes>,
{
    let read = collect_body(body, limit, budget);
    tokio::pin!(read);
    let read = match futures::poll!(read.as_mut()) {
        std::task::Poll::Ready(read) => read,
        std::task::Poll::Pending => match tokio::time::timeout(timeout, read).await {
            Ok(read) => read,
            Err(_) => {
                let message = format!("Request Timeout: the body did not arrive within {timeout:?}");
                return Err(error_response(StatusCode::REQUEST_TIMEOUT, -32600, &message));
            }
        },
    };
    read.map_err(|fault| match fault {
        BodyFault::TooLarge => {
            let message = format!("Payload Too Large: the limit is {limit} bytes");
            error_response(StatusCode::PAYLOAD_TOO_LARGE, -32600, &message)
        }
        BodyFault::Broken => error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: the body could not be read"),
        BodyFault::Busy => {
            let message = "Service Unavailable: the server holds as many request bodies as it may; retry later";
            let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, -32000, message);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            response
        }
    })
}

/// Why a request's body was not read.
enum BodyFault {
    /// It is longer than the limit.
    TooLarge,
    /// Its transfer failed midway (a broken chunked encoding, a client gone).
    Broken,
    /// Holding it would take the bytes held for bodies still arriving past their budget.
    Busy,
}

/// Gathers a body's data up to `limit` bytes, taking from `budget` the bytes of the buffer that
/// a body arriving in several pieces is gathered into, until the body is whole.
async fn collect_body<B: HttpBody<Data = Bytes>>(
    body: B,
    limit: usize,
    budget: &tokio::sync::Semaphore,
) -> Result<Bytes, BodyFault> {
    tokio::pin!(body);
    // The length a body announces sizes the buffer once, when it comes in several pieces.
    let announced = usize::try_from(body.size_hint().lower()).unwrap_or(0).min(limit);
    let mut first: Option<Bytes> = None;
    let mut rest = Vec::new();
    let mut held: Option<tokio::sync::SemaphorePermit<'_>> = None;
    let mut len = 0usize;
    while !body.is_end_stream() {
        let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await else { break };
        let Ok(data) = frame.map_err(|_| BodyFault::Broken)?.into_data() else { continue };
        len = len.checked_add(data.len()).filter(|&n| n <= limit).ok_or(BodyFault::TooLarge)?;
        match &first {
            None => first = Some(data),
            Some(head) => {
                // The buffer's size is counted before it is allocated, and only it: the pieces
                // hyper hands over are freed as they are copied.
                let needed = rest.len().max(head.len()) + data.len();
                if needed > rest.capacity() {
                    let capacity = if rest.is_empty() {
                        announced.max(needed)
                    } else {
                        needed.max((2 * rest.capacity()).min(limit))
                    };
                    let more = capacity - held.as_ref().map_or(0, |p| p.num_permits());
                    let permit = u32::try_from(more).ok().and_then(|n| budget.try_acquire_many(n).ok());
                    let permit = permit.ok_or(BodyFault::Busy)?;
                    match &mut held {
                        Some(held) => held.merge(permit),
                        None => held = Some(permit),
                    }
                    rest.reserve_exact(capacity - rest.len());
                }
                if rest.is_empty() {
                    rest.extend_from_slice(head);
                }
                rest.extend_from_slice(&data);
            }
        }
    }
    Ok(if rest.is_empty() { first.unwrap_or_default() } else { Bytes::from(rest) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headers_read_in_one_pass_are_the_first_of_each_name_and_every_accept() {
        let mut headers = HeaderMap::new();
        headers.append(header::HOST, HeaderValue::from_static("127.0.0.1:1"));
        headers.append(header::HOST, HeaderValue::from_static("evil.example"));
        headers.append(SESSION_ID.clone(), HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap());
        headers.append(SESSION_ID.clone(), HeaderValue::from_static("second"));
        headers.append(header::ACCEPT, HeaderValue::from_static("text/html, Application/JSON;q=0.9"));
        headers.append(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.append(HeaderName::from_static("mcp-protocol-version"), HeaderValue::from_static("2025-11-25"));
        let sent = RequestHeaders::read(&headers);
        assert_eq!(sent.host, Some("127.0.0.1:1"));
        assert_eq!(sent.session_id, None, "a first value that is not visible ASCII counts as absent");
        assert_eq!(sent.protocol_version, Some("2025-11-25"));
        assert_eq!((sent.origin, sent.content_type, sent.last_event_id), (None, None, None));
        assert!(sent.accept(ACCEPTS_JSON | ACCEPTS_SSE));
        assert!(!RequestHeaders::read(&HeaderMap::new()).accept(ACCEPTS_SSE));
        assert_eq!(accepted(b"text/event-stream"), ACCEPTS_SSE);
        assert_eq!(accepted(b"text/plain, */*;q=0.1"), ACCEPTS_JSON | ACCEPTS_SSE);
        assert_eq!(accepted(b"application/jsonx, ,"), 0);
    }
}
