//! `mcpweft`, the command line of mcpweft (see the `mcpweft_cli` library, which is the whole
//! command).

use std::process::ExitCode;

/// The allocator of the command: a relay allocates and frees a few buffers for every message it
/// passes on, which mimalloc does in a fraction of the instructions of the C library's `malloc`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(mcpweft_cli::run(std::env::args_os()))
}
