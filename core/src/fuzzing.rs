//! Entry points for the fuzz targets in `fuzz/`; not part of the supported API.
//!
//! Most of what the fuzzers exercise is public already (the JSON-RPC decoder, URI templates,
//! the HTTP server's router). This module only opens what is internal: the event-stream
//! parser of the HTTP client.

/// Feeds `chunks` to the HTTP client's event-stream parser, one after the other, and returns
/// the events it completed, or the reason it gave up.
///
/// Each event comes back as its id, its data and whether it set a reconnection delay.
#[cfg(feature = "http")]
pub fn parse_sse<'a>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Vec<(Option<String>, String, bool)>, String> {
    let mut parser = crate::transport::http::sse::SseParser::default();
    let mut out = std::collections::VecDeque::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out)?;
    }
    Ok(out.into_iter().map(|e| (e.id, e.data, e.retry.is_some())).collect())
}
