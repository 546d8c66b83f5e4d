//! Prints the public API of a crate, one item per line, from the rustdoc JSON file named by its
//! only argument: the text `release/public-api.sh` compares with `core/public-api.txt`.
//!
//! Blanket and auto-trait implementations are left out: they follow from the items themselves
//! and change with the standard library, not with this project.

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(json) = std::env::args_os().nth(1) else {
        eprintln!("usage: mcpweft-public-api RUSTDOC_JSON");
        return ExitCode::from(2);
    };
    match public_api::Builder::from_rustdoc_json(json).omit_blanket_impls(true).omit_auto_trait_impls(true).build() {
        Ok(api) => {
            for item in api.items() {
                println!("{item}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("mcpweft-public-api: {error}");
            ExitCode::FAILURE
        }
    }
}
