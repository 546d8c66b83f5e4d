//! The pinned `uniffi-bindgen` of the workspace; `bindings/swift/scripts/build.sh` runs it in
//! library mode on the `mcpweft_swift` cdylib to generate the Swift sources.

fn main() {
    uniffi::uniffi_bindgen_main()
}
