//! The HTTP client's event-stream parser: never panics, and yields the same events however the
//! bytes are split into chunks.
//!
//! Input: one byte that seeds the chunk sizes, then the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpweft::fuzzing::parse_sse;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, stream)) = data.split_first() else { return };
    let whole = parse_sse([stream]);
    let mut chunks = Vec::new();
    let mut rest = stream;
    let mut size = usize::from(seed % 7) + 1;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        chunks.push(chunk);
        rest = tail;
        size = size % 7 + 1;
    }
    let split = parse_sse(chunks);
    assert_eq!(whole, split, "chunking changed the events");
});
