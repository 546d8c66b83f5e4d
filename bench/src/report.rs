//! Statistics and table printing shared by the stdio and HTTP sections.

/// The pairs of rows compared by a ratio line, ours first: each mcpweft
/// flavour beside the official SDK of its language and beside rmcp (the
/// fastest official SDK), and the Node and Swift bindings beside the Rust
/// core they wrap (the cost of the binding's hop per call).
pub(crate) const RATIOS: [(&str, &str); 7] = [
    ("mcpweft", "rmcp"),
    ("mcpweft-py", "fastmcp"),
    ("mcpweft-py", "rmcp"),
    ("mcpweft-node", "ts-sdk"),
    ("mcpweft-node", "rmcp"),
    ("mcpweft-node", "mcpweft"),
    ("mcpweft-swift", "mcpweft"),
];

/// The median of `values`, which must not be empty.
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) { (values[mid - 1] + values[mid]) / 2.0 } else { values[mid] }
}

/// The nearest-rank `p`-th percentile (0 < p ≤ 100) of sorted `values`,
/// which must not be empty.
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Formats the ratio of `ours` to `theirs`, such as `2.10x`.
pub(crate) fn ratio(ours: f64, theirs: f64) -> String {
    format!("{:.2}x", ours / theirs)
}

/// Prints one line of a table: a left-aligned label, then right-aligned
/// cells.
pub(crate) fn print_line(label: &str, cells: &[String]) {
    print!("{label:<20}");
    for cell in cells {
        print!("{cell:>13}");
    }
    println!();
}
