//! The Streamable HTTP client.
