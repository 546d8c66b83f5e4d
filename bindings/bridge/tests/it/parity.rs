//! Every public entry point of the bridge is exposed by every binding, unless an exemption below
//! says why not.
//!
//! The test reads the bridge's sources for the `pub fn`s of its public types (those `lib.rs`
//! re-exports) and its public free functions, then reads each binding's glue for the calls it
//! makes. An entry point counts as exposed by a binding when the glue names it: `Type::name`,
//! or `.name` / `::name` for a method (`Type::new` for constructors), or the bare name for a
//! free function. Methods of different types that share a name (`close`, `notify`...) are told
//! apart only by that name, so the test catches a whole entry point gone missing, not a call
//! made on the wrong handle.
//!
//! When it fails, expose the entry point in the binding named (and test it there), or add an
//! exemption below with the reason.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// The glue of each binding, relative to the bridge's manifest.
const BINDINGS: [(&str, &str); 3] = [("python", "../python/src"), ("node", "../node/src"), ("swift", "../swift/src")];

/// Public types whose methods are not entry points: values and handles each binding uses as its
/// language needs, not features a user reaches.
const PLUMBING: &[(&str, &str)] = &[
    ("Error", "the flat error: each binding maps it once, with the constructors it needs"),
    ("ErrorKind", "the kinds of the flat error, exported as the table of error_kinds"),
    ("Task", "a bridge future: each binding awaits it in its own way (on_complete, cancel_on)"),
    ("TaskHandle", "what Task::on_complete returns, used as a binding's event loop needs"),
    ("CancelHandle", "a cancellation token for languages that cannot drop a future (Swift)"),
    ("HttpRequest", "a plain struct the bindings fill in, with no methods"),
    ("HttpResponse", "a plain struct the bindings read, with no methods"),
];

/// Entry points that no binding exposes, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    ("Server::core", "hands the core server to Rust programs; no other language can hold it"),
    ("spawn", "runs Rust futures on the bridge's runtime, for the bridge and Rust callers"),
    ("run_blocking", "the blocking pool's entry for the bridge's own callbacks"),
    ("init_logging", "the runtime calls it when it starts; Python calls it early, at import"),
    ("CallOptions::new", "for Rust callers: every binding hands its options over as JSON (CallOptions::from_json)"),
    ("CallOptions::with_timeout", "for Rust callers: every binding hands its options over as JSON"),
    ("CallOptions::with_progress", "for Rust callers: every binding hands its options over as JSON"),
    ("CallOptions::with_task", "for Rust callers: every binding hands its options over as JSON"),
    ("CallOptions::with_meta", "for Rust callers: every binding hands its options over as JSON"),
];

/// Entry points that one binding does not expose, with the reason: `(binding, entry, why)`.
const EXEMPT_FOR: &[(&str, &str, &str)] = &[
    ("node", "set_blocking_scope", "Node's handlers never block a Tokio thread: they run on its own loop"),
    ("swift", "set_blocking_scope", "Swift's handlers run on Swift's pool, never on the blocking pool"),
    ("node", "set_blocking_limit", "Node's handlers never use the blocking pool"),
    ("swift", "set_blocking_limit", "Swift's handlers never use the blocking pool"),
    ("node", "blocking_limit", "Node's handlers never use the blocking pool"),
    ("swift", "blocking_limit", "Swift's handlers never use the blocking pool"),
    ("python", "parse_json", "Python hands values over as Python objects, never as JSON text"),
    (
        "node",
        "Reply::send",
        "a JavaScript call answers with JSON text, a string or a thrown error (resolve_json, resolve_text, reject)",
    ),
    (
        "swift",
        "Reply::send",
        "a Swift call answers with JSON text, a string or an error (resolve_json, resolve_text, reject)",
    ),
    ("swift", "Reply::is_answered", "the running Swift call, not the reply, says whether it answered"),
    (
        "python",
        "Reply::resolve_json",
        "Python's done callback sends the outcome it converted from Python objects (Reply::send)",
    ),
    (
        "python",
        "Reply::resolve_text",
        "Python's done callback sends the outcome it converted from Python objects (Reply::send)",
    ),
    (
        "python",
        "Reply::reject",
        "Python's done callback sends the outcome it converted from Python objects (Reply::send)",
    ),
    ("python", "Reply::is_answered", "Python's done callback answers once, when the asyncio task is done"),
    ("python", "Context::cancelled", "Python polls Context::is_cancelled from its own loop"),
    (
        "python",
        "Server::add_listed_resource_template",
        "the TypeScript SDK's ResourceTemplate list callback; FastMCP has none",
    ),
    ("python", "export_otlp", "Python exports spans through its own OpenTelemetry SDK"),
    ("python", "flush_telemetry", "Python exports spans through its own OpenTelemetry SDK"),
    ("node", "export_otlp", "Node exports spans through its own OpenTelemetry SDK"),
    ("node", "flush_telemetry", "Node exports spans through its own OpenTelemetry SDK"),
    ("swift", "telemetry_span", "Swift records spans through the Rust crates (the openTelemetry built-in)"),
    ("swift", "telemetry_outcome", "Swift records spans through the Rust crates (the openTelemetry built-in)"),
];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust sources under `dir`, with their comment lines dropped.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
                files.push((path, code.join("\n")));
            }
        }
    }
    files.sort();
    files
}

/// The names `lib.rs` re-exports with `pub use`.
fn reexports(lib: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = lib;
    while let Some(start) = rest.find("pub use ") {
        let tail = &rest[start + "pub use ".len()..];
        let end = tail.find(';').expect("a pub use ends with ';'");
        let items = &tail[..end];
        let list = match (items.find('{'), items.rfind('}')) {
            (Some(open), Some(close)) => &items[open + 1..close],
            _ => items.rsplit("::").next().unwrap(),
        };
        names.extend(list.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned));
        rest = &tail[end..];
    }
    names
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// The type an inherent `impl` line is for (`impl<T: Send> Task<T> {` is `Task`), if it is one.
fn inherent_impl(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("impl")?;
    if line.contains(" for ") || !line.trim_end().ends_with('{') {
        return None;
    }
    let rest = match rest.strip_prefix('<') {
        Some(generics) => {
            let mut depth = 1;
            let end = generics.char_indices().find_map(|(i, c)| {
                depth += match c {
                    '<' => 1,
                    '>' => -1,
                    _ => 0,
                };
                (depth == 0).then_some(i)
            })?;
            &generics[end + 1..]
        }
        None => rest,
    };
    Some(ident(rest.trim_start())).filter(|name| !name.is_empty())
}

/// The name of the function a `pub fn` line declares, at the given indentation.
fn pub_fn<'a>(line: &'a str, indent: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(indent)?;
    let rest = rest.strip_prefix("pub async fn ").or_else(|| rest.strip_prefix("pub fn "))?;
    Some(ident(rest))
}

/// The bridge's public entry points: `Type::method` and free function names.
fn entry_points() -> BTreeSet<String> {
    let src = manifest_dir().join("src");
    let public = reexports(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let plumbing: BTreeSet<&str> = PLUMBING.iter().map(|(name, _)| *name).collect();
    let mut entries = BTreeSet::new();
    for (_, code) in sources(&src) {
        let mut current: Option<&str> = None;
        for line in code.lines() {
            if let Some(ty) = inherent_impl(line) {
                current = Some(ty).filter(|ty| public.contains(*ty) && !plumbing.contains(ty));
            } else if line == "}" {
                current = None;
            } else if let (Some(ty), Some(name)) = (current, pub_fn(line, "    ")) {
                entries.insert(format!("{ty}::{name}"));
            } else if let Some(name) = pub_fn(line, "").filter(|name| public.contains(*name)) {
                entries.insert(name.to_owned());
            }
        }
    }
    entries
}

/// Whether `needle` occurs in `code` and is not the start of a longer identifier.
fn names(code: &str, needle: &str) -> bool {
    code.match_indices(needle).any(|(at, _)| {
        let after = code[at + needle.len()..].chars().next();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether the glue `code` calls `entry`.
fn exposes(code: &str, entry: &str) -> bool {
    match entry.split_once("::") {
        Some((_, method)) => {
            names(code, entry)
                || (method != "new" && (names(code, &format!(".{method}")) || names(code, &format!("::{method}"))))
        }
        None => code.match_indices(entry).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + entry.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        }),
    }
}

/// The glue code of `binding`, comments left out.
fn glue_of(binding: &str) -> String {
    let (_, dir) = BINDINGS.iter().find(|(name, _)| *name == binding).expect("a binding of BINDINGS");
    sources(&manifest_dir().join(dir)).into_iter().map(|(_, code)| code + "\n").collect()
}

#[test]
fn the_parser_finds_entry_points_and_calls() {
    assert_eq!(inherent_impl("impl<T: Send + 'static> Task<T> {"), Some("Task"));
    assert_eq!(inherent_impl("impl Server {"), Some("Server"));
    assert_eq!(inherent_impl("impl ToolHandler for Adapter {"), None);
    assert_eq!(pub_fn("    pub async fn serve(&self)", "    "), Some("serve"));
    assert_eq!(pub_fn("    pub(crate) fn hidden()", "    "), None);
    assert!(exposes("self.inner.add_tool(d, c, r)", "Server::add_tool"));
    assert!(!exposes("self.inner.add_tool_now(d)", "Server::add_tool"));
    assert!(exposes("Server::new(spec)", "Server::new"));
    assert!(!exposes("Client::new(spec)", "Server::new"));
    assert!(exposes("mcpweft_bridge::error_kinds()", "error_kinds"));
    assert!(!exposes("native_error_kinds()", "error_kinds"));
    let entries = entry_points();
    for expected in ["Server::add_tool", "Client::call_tool", "Context::ask", "error_kinds", "init_logging"] {
        assert!(entries.contains(expected), "{expected} is not found among {entries:?}");
    }
    assert!(!entries.iter().any(|e| e.starts_with("Error::") || e.starts_with("Task::")));
}

#[test]
fn every_binding_exposes_every_entry_point_of_the_bridge() {
    let entries = entry_points();
    let exempt: BTreeSet<&str> = EXEMPT.iter().map(|(entry, _)| *entry).collect();
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (binding, _) in BINDINGS {
        let glue = glue_of(binding);
        for entry in &entries {
            let excused =
                exempt.contains(entry.as_str()) || EXEMPT_FOR.iter().any(|(b, e, _)| *b == binding && e == entry);
            if !excused && !exposes(&glue, entry) {
                missing.entry(binding).or_default().push(entry);
            }
        }
    }
    let stale: Vec<&str> = EXEMPT
        .iter()
        .map(|(entry, _)| *entry)
        .chain(EXEMPT_FOR.iter().map(|(_, entry, _)| *entry))
        .filter(|entry| !entries.contains(*entry))
        .collect();
    let needless: Vec<String> = EXEMPT_FOR
        .iter()
        .filter(|(binding, entry, _)| exposes(&glue_of(binding), entry))
        .map(|(binding, entry, _)| format!("{entry} ({binding})"))
        .collect();
    let mut report = String::new();
    for (binding, entries) in &missing {
        report += &format!("\n  {binding} does not expose: {}", entries.join(", "));
    }
    if !stale.is_empty() {
        report += &format!("\n  exemptions name entry points the bridge no longer has: {}", stale.join(", "));
    }
    if !needless.is_empty() {
        report += &format!("\n  exemptions of entry points the binding now exposes: {}", needless.join(", "));
    }
    assert!(
        report.is_empty(),
        "bindings lag behind the bridge:{report}\nExpose each in the binding's glue (bindings/<language>/src) \
         with a test, or add it to EXEMPT or EXEMPT_FOR in bindings/bridge/tests/it/parity.rs with the reason."
    );
}
