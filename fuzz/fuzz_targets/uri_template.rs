//! The URI template matcher: never panics, and on short inputs agrees with the straightforward
//! backtracking matcher it replaced (which tries every split point, shortest first).
//!
//! Input: the template, a newline, then the URI.

#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use mcpweft::server::UriTemplate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some((template, uri)) = text.split_once('\n') else { return };
    let Ok(parsed) = UriTemplate::parse(template) else {
        assert!(reference::parse(template).is_none(), "only the reference parses {template:?}");
        return;
    };
    let found = parsed.matches(uri);
    // The reference takes exponential time: compare on short inputs only. Where a name
    // repeats across expressions the reference keeps an accident of its recursion order, so
    // only whether the URI matches is compared.
    if uri.len() <= 24 {
        let parts = reference::parse(template).expect("the reference parses what the matcher parses");
        let expected = reference::matches(&parts, uri);
        if reference::names_repeat(&parts) {
            assert_eq!(found.is_some(), expected.is_some(), "template {template:?}, URI {uri:?}");
        } else {
            assert_eq!(found, expected, "template {template:?}, URI {uri:?}");
        }
    }
});

/// The matcher as it was before it was made linear, kept to check the new one against.
mod reference {
    use super::HashMap;

    pub(crate) enum Part {
        Literal(String),
        Var { name: String, greedy: bool },
        Prefixed { prefix: char, names: Vec<String> },
    }

    pub(crate) fn parse(template: &str) -> Option<Vec<Part>> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..].find('}')? + open;
            let expr = &rest[open + 1..close];
            let (op, names) = match expr.chars().next() {
                Some(c @ ('+' | '#' | '/' | '?' | '&' | '.' | ';')) => (Some(c), &expr[1..]),
                _ => (None, expr),
            };
            let names: Vec<String> =
                names.split(',').map(|n| n.trim_end_matches('*').split(':').next().unwrap_or("").to_owned()).collect();
            if names.iter().any(String::is_empty) {
                return None;
            }
            parts.push(match op {
                None => Part::Var { name: names[0].clone(), greedy: false },
                Some('+') => Part::Var { name: names[0].clone(), greedy: true },
                Some(prefix) => Part::Prefixed { prefix, names },
            });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Some(parts)
    }

    /// Whether a variable name appears in more than one expression.
    pub(crate) fn names_repeat(parts: &[Part]) -> bool {
        let mut seen = std::collections::HashSet::new();
        parts.iter().any(|part| {
            let names: Vec<&String> = match part {
                Part::Literal(_) => Vec::new(),
                Part::Var { name, .. } => vec![name],
                Part::Prefixed { names, .. } => names.iter().collect(),
            };
            let mut own = std::collections::HashSet::new();
            names.into_iter().filter(|n| own.insert(*n)).any(|n| !seen.insert(n.clone()))
        })
    }

    pub(crate) fn matches(parts: &[Part], uri: &str) -> Option<HashMap<String, String>> {
        let mut vars = HashMap::new();
        match_parts(parts, uri, &mut vars).then_some(vars)
    }

    fn match_parts(parts: &[Part], input: &str, vars: &mut HashMap<String, String>) -> bool {
        let Some((first, rest)) = parts.split_first() else { return input.is_empty() };
        match first {
            Part::Literal(lit) => input.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars)),
            Part::Var { name, greedy } => {
                if input.is_empty() {
                    return false;
                }
                for (end, _) in input.char_indices().skip(1).chain(std::iter::once((input.len(), ' '))) {
                    let value = &input[..end];
                    if !*greedy && value.contains(['/', '?', '#']) {
                        break;
                    }
                    // The old matcher let a failed attempt leave its variables behind (a bug
                    // this comparison found); the reference discards them.
                    let mut attempt = vars.clone();
                    if match_parts(rest, &input[end..], &mut attempt) {
                        *vars = attempt;
                        vars.insert(name.clone(), percent_decode(value));
                        return true;
                    }
                }
                false
            }
            Part::Prefixed { prefix: '/', names } => {
                let mut tail = input;
                for name in names {
                    let Some(after) = tail.strip_prefix('/') else { break };
                    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
                    vars.insert(name.clone(), percent_decode(&after[..end]));
                    tail = &after[end..];
                }
                match_parts(rest, tail, vars)
            }
            Part::Prefixed { prefix: '?' | '&', names } => {
                let (query, tail) = match input.strip_prefix(['?', '&']) {
                    Some(q) => q.split_at(q.find('#').unwrap_or(q.len())),
                    None => ("", input),
                };
                for pair in query.split('&').filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    if names.iter().any(|n| n == k) {
                        vars.insert(k.to_owned(), percent_decode(v));
                    }
                }
                match_parts(rest, tail, vars)
            }
            Part::Prefixed { prefix, names } => {
                let Some(after) = input.strip_prefix(*prefix) else { return match_parts(rest, input, vars) };
                let end = after.find(['/', '?', '#']).unwrap_or(after.len());
                if let Some(name) = names.first() {
                    vars.insert(name.clone(), percent_decode(&after[..end]));
                }
                match_parts(rest, &after[end..], vars)
            }
        }
    }

    fn percent_decode(s: &str) -> String {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%'
                && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(hex), bytes.get(i + 2).and_then(hex))
            {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    fn hex(b: &u8) -> Option<u8> {
        (*b as char).to_digit(16).map(|d| d as u8)
    }
}
