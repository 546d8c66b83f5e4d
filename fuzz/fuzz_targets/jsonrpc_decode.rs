//! The JSON-RPC decoder: never panics, and whatever it accepts encodes to bytes it decodes to
//! the same message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpweft::jsonrpc::JsonRpcMessage;

fuzz_target!(|data: &[u8]| {
    match JsonRpcMessage::decode(data) {
        Ok(message) => {
            let again = JsonRpcMessage::decode(&message.encode()).expect("an encoded message decodes");
            assert_eq!(again, message);
            let first = data.iter().find(|b| !b.is_ascii_whitespace());
            assert_eq!(first, Some(&b'{'), "only an object is a message");
        }
        Err(e) => {
            // The error quotes little of the input, whatever its size.
            assert!(e.error.message.len() < 1024, "{} bytes of error message", e.error.message.len());
        }
    }
});
