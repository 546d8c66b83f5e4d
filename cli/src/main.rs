//! `mcpweft`, the command line of mcpweft (see the `mcpweft_cli` library, which is the whole
//! command).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(mcpweft_cli::run(std::env::args_os()))
}
