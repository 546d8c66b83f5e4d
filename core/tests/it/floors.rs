//! Checks the floors of ARCHITECTURE.md against the sources: every module of `core/src` uses
//! only modules on lower floors, or a module of its own floor that its row lists under
//! "depends on". The table is read from ARCHITECTURE.md itself, so the page and the code cannot
//! drift apart: a new module needs a row, and a use that climbs a floor fails here.

use std::{
    collections::{BTreeSet, HashMap},
    path::{Path, PathBuf},
};

/// One row of the table of floors.
struct Floor {
    level: u32,
    /// The words of the row's "depends on" column.
    depends_on: BTreeSet<String>,
}

/// Reads the table under "Layers of the core" in ARCHITECTURE.md: module name → its floor.
fn floors(architecture: &str) -> HashMap<String, Floor> {
    let section = architecture.split("## Layers of the core").nth(1).expect("ARCHITECTURE.md has the layers section");
    let mut floors = HashMap::new();
    for row in section.lines().take_while(|line| !line.starts_with("## ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let [_, level, modules, _, depends_on, ..] = cells.as_slice() else { continue };
        let Ok(level) = level.parse::<u32>() else { continue };
        let depends_on: BTreeSet<String> = depends_on
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect();
        for module in modules.split('`').skip(1).step_by(2) {
            let name = module.trim_end_matches('/').trim_end_matches(".rs").to_owned();
            floors.insert(name, Floor { level, depends_on: depends_on.clone() });
        }
    }
    floors
}

/// The names `lib.rs` re-exports at the crate root, with the module each comes from
/// (`pub use client::{Client, ClientHandler};` gives `Client → client`, …).
fn reexports(lib: &str) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ").and_then(|rest| rest.strip_suffix(';')) else { continue };
        let Some((module, items)) = rest.split_once("::") else { continue };
        for item in items.trim_matches(['{', '}']).split(',') {
            names.insert(item.trim().to_owned(), module.to_owned());
        }
    }
    names
}

/// The first identifier of each item of a `use` group, such as `a`, `b` and `C` in
/// `a, b::{x, y}, C`.
fn group_heads(group: &str) -> Vec<String> {
    let (mut heads, mut item, mut depth) = (Vec::new(), String::new(), 0);
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => heads.push(std::mem::take(&mut item)),
            _ => {}
        }
        if c != ',' || depth != 0 {
            item.push(c);
        }
    }
    heads.push(item);
    heads
        .iter()
        .filter_map(|item| {
            let head: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!head.is_empty()).then_some(head)
        })
        .collect()
}

/// The names a source file reaches through `crate::`: the first segment of each path.
fn crate_uses(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut uses = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            uses.extend(group_heads(&group[..end]));
        } else {
            let head: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            uses.push(head);
        }
    }
    uses
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read core/src") {
        let path = entry.expect("read core/src").path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_module_uses_one_above_its_floor() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let floors = floors(&std::fs::read_to_string(root.join("../ARCHITECTURE.md")).expect("read ARCHITECTURE.md"));
    let src = root.join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let reexports = reexports(&lib);
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut problems = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under core/src").to_string_lossy().replace('\\', "/");
        if relative == "lib.rs" {
            continue;
        }
        let module = relative.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_owned();
        let Some(own) = floors.get(&module) else {
            problems.push(format!("{relative}: module `{module}` has no row in ARCHITECTURE.md's table of floors"));
            continue;
        };
        let source = std::fs::read_to_string(&file).expect("read a source file");
        for name in crate_uses(&source) {
            let used =
                if floors.contains_key(&name) { name.clone() } else { reexports.get(&name).cloned().unwrap_or(name) };
            if used == module {
                continue;
            }
            let Some(floor) = floors.get(&used) else {
                problems.push(format!("{relative}: `crate::{used}` is no module of the table of floors"));
                continue;
            };
            let allowed = floor.level < own.level || (floor.level == own.level && own.depends_on.contains(&used));
            if !allowed {
                problems.push(format!(
                    "{relative}: `{module}` (floor {}) uses `{used}` (floor {})",
                    own.level, floor.level
                ));
            }
        }
    }
    assert!(problems.is_empty(), "the floors of ARCHITECTURE.md are broken:\n{}", problems.join("\n"));
}

#[test]
fn the_reader_finds_grouped_and_plain_uses() {
    let uses = crate_uses("use crate::{a::{b, c}, D, e};\nlet x = crate::f::g(); // crate::h\n");
    assert_eq!(uses, ["a", "D", "e", "f"]);
    let table = "## Layers of the core\n| floor | module | concern | depends on |\n| --- | --- | --- | --- |\n\
                 | 0 | `x.rs`, `y/` | things | serde, `x` |\n## Next\n| 9 | `z.rs` | no | no |\n";
    let floors = floors(table);
    assert_eq!(floors["x"].level, 0);
    assert!(floors["y"].depends_on.contains("x"));
    assert!(!floors.contains_key("z"));
}
