//! Matching URIs against RFC 6570 templates, for resource templates.

use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Literal(String),
    /// A variable; `greedy` variables (`{+var}`, `{#var}`) may span `/`.
    Var {
        name: String,
        greedy: bool,
    },
    /// A `{/var}` path segment or `{?a,b}` query expansion.
    Prefixed {
        prefix: char,
        names: Vec<String>,
    },
}

/// A parsed URI template that can match concrete URIs and extract their variables.
#[derive(Clone, Debug, PartialEq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template; fails on an unclosed or empty expression.
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..].find('}').ok_or_else(|| format!("unclosed expression in {template:?}"))? + open;
            let expr = &rest[open + 1..close];
            let (op, names) = match expr.chars().next() {
                Some(c @ ('+' | '#' | '/' | '?' | '&' | '.' | ';')) => (Some(c), &expr[1..]),
                _ => (None, expr),
            };
            let names: Vec<String> =
                names.split(',').map(|n| n.trim_end_matches('*').split(':').next().unwrap_or("").to_owned()).collect();
            if names.iter().any(String::is_empty) {
                return Err(format!("empty variable in {template:?}"));
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
        Ok(UriTemplate { parts })
    }

    /// Matches a URI, returning the variables on success.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let mut vars = HashMap::new();
        match_parts(&self.parts, uri, &mut vars).then_some(vars)
    }
}

fn match_parts(parts: &[Part], input: &str, vars: &mut HashMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else { return input.is_empty() };
    match first {
        Part::Literal(lit) => input.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars)),
        Part::Var { name, greedy } => {
            // A variable matches at least one character: `x://{id}` does not match `x://`.
            if input.is_empty() {
                return false;
            }
            // Try every split point, shortest first, so a following literal anchors the match.
            for (end, _) in input.char_indices().skip(1).chain(std::iter::once((input.len(), ' '))) {
                let value = &input[..end];
                if !*greedy && value.contains(['/', '?', '#']) {
                    break;
                }
                if match_parts(rest, &input[end..], vars) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let mut v: Vec<_> = UriTemplate::parse(t).unwrap().matches(uri)?.into_iter().collect();
        v.sort();
        Some(v)
    }

    #[test]
    fn simple_variables_match_one_segment() {
        assert_eq!(m("test://template/{id}/data", "test://template/123/data"), Some(vec![("id".into(), "123".into())]));
        assert_eq!(m("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(m("calc://constants/{name}", "calc://constants/pi"), Some(vec![("name".into(), "pi".into())]));
        assert_eq!(m("calc://constants/{name}", "calc://constants/"), None);
        assert_eq!(m("x://{a}-{b}", "x://1-2"), Some(vec![("a".into(), "1".into()), ("b".into(), "2".into())]));
    }

    #[test]
    fn reserved_and_query_expansions() {
        assert_eq!(m("file:///{+path}", "file:///a/b%20c.txt"), Some(vec![("path".into(), "a/b c.txt".into())]));
        assert_eq!(
            m("search://items{?q,limit}", "search://items?q=rust&limit=5"),
            Some(vec![("limit".into(), "5".into()), ("q".into(), "rust".into())])
        );
        assert_eq!(
            m("x://root{/a,b}", "x://root/one/two"),
            Some(vec![("a".into(), "one".into()), ("b".into(), "two".into())])
        );
    }
}
