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

    /// Matches a URI, returning the variables on success; a variable named in several
    /// expressions takes the value of the first.
    ///
    /// Matching takes time linear in the URI's length (times the number of template parts):
    /// where a variable could end at several places, the shortest value after which the rest
    /// of the template still matches is taken, without trying each split point in turn.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        if let Some(Part::Literal(first)) = self.parts.first()
            && !uri.starts_with(first.as_str())
        {
            return None;
        }
        let input = Input::new(uri);
        let can = self.suffix_matches(&input);
        if !can[0][0] {
            return None;
        }
        let mut vars = HashMap::new();
        let mut at = 0;
        for (i, part) in self.parts.iter().enumerate() {
            // A name that appears in several parts keeps the value of its first one.
            let mut found = HashMap::new();
            at = input.capture(part, at, &can[i + 1], &mut found);
            for (name, value) in found {
                vars.entry(name).or_insert(value);
            }
        }
        Some(vars)
    }

    /// Returns, for each part and each position of the input, whether the parts from that one
    /// on match the input from that position to its end; the last row is the end itself.
    fn suffix_matches(&self, input: &Input<'_>) -> Vec<Vec<bool>> {
        let n = input.len();
        let mut rows = vec![vec![false; n + 1]; self.parts.len() + 1];
        rows[self.parts.len()][n] = true;
        for (i, part) in self.parts.iter().enumerate().rev() {
            let (head, tail) = rows.split_at_mut(i + 1);
            let (row, next) = (&mut head[i], &tail[0]);
            match part {
                Part::Var { greedy, .. } => {
                    // The nearest position at or after `q` where the rest matches.
                    let mut nearest = usize::MAX;
                    for p in (0..=n).rev() {
                        // A variable holds at least one character: it may end at `p + 1` or later.
                        let end = if p < n { input.nearest_after(p, &mut nearest, next) } else { usize::MAX };
                        let limit = if *greedy { n } else { input.segment_end(p) };
                        row[p] = input.boundary(p) && p < n && end <= limit;
                    }
                }
                _ => {
                    for (p, slot) in row.iter_mut().enumerate() {
                        *slot = input.boundary(p) && input.step(part, p).is_some_and(|end| next[end]);
                    }
                }
            }
        }
        rows
    }
}

/// A URI being matched, with the positions of its delimiters found once.
struct Input<'a> {
    text: &'a str,
    /// For each position, the first `/`, `?` or `#` at or after it (the length when none).
    next_delimiter: Vec<usize>,
    /// For each position, the first `#` at or after it (the length when none).
    next_hash: Vec<usize>,
}

impl<'a> Input<'a> {
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut next_delimiter = vec![n; n + 1];
        let mut next_hash = vec![n; n + 1];
        for p in (0..n).rev() {
            next_delimiter[p] = if matches!(bytes[p], b'/' | b'?' | b'#') { p } else { next_delimiter[p + 1] };
            next_hash[p] = if bytes[p] == b'#' { p } else { next_hash[p + 1] };
        }
        Input { text, next_delimiter, next_hash }
    }

    fn len(&self) -> usize {
        self.text.len()
    }

    fn boundary(&self, p: usize) -> bool {
        self.text.is_char_boundary(p)
    }

    /// The end of the segment that starts at `p`: a simple variable cannot span a delimiter.
    fn segment_end(&self, p: usize) -> usize {
        self.next_delimiter[p]
    }

    /// Updates `nearest` (called for decreasing `p`) and returns the nearest position after
    /// `p` where `next` holds.
    fn nearest_after(&self, p: usize, nearest: &mut usize, next: &[bool]) -> usize {
        if next[p + 1] {
            *nearest = p + 1;
        }
        *nearest
    }

    /// Where a part that is not a variable ends when it starts at `p`, or `None` when it cannot
    /// start there. These parts never have a choice to make.
    fn step(&self, part: &Part, p: usize) -> Option<usize> {
        let rest = &self.text[p..];
        match part {
            Part::Literal(lit) => rest.starts_with(lit.as_str()).then_some(p + lit.len()),
            Part::Var { .. } => None,
            Part::Prefixed { prefix: '/', names } => {
                let mut at = p;
                for _ in names {
                    if self.text.as_bytes().get(at) != Some(&b'/') {
                        break;
                    }
                    at = self.next_delimiter[at + 1];
                }
                Some(at)
            }
            Part::Prefixed { prefix: '?' | '&', .. } => {
                Some(if rest.starts_with(['?', '&']) { self.next_hash[p + 1] } else { p })
            }
            Part::Prefixed { prefix, .. } => {
                Some(if rest.starts_with(*prefix) { self.next_delimiter[p + prefix.len_utf8()] } else { p })
            }
        }
    }

    /// Reads the variables of `part`, which starts at `p`, and returns where it ends; `next`
    /// says where the parts after it can start.
    fn capture(&self, part: &Part, p: usize, next: &[bool], vars: &mut HashMap<String, String>) -> usize {
        match part {
            Part::Literal(lit) => p + lit.len(),
            Part::Var { name, .. } => {
                // The shortest value after which the rest matches; `suffix_matches` proved one
                // exists within the variable's reach.
                let end = (p + 1..next.len()).find(|&q| next[q]).unwrap_or(self.len());
                vars.insert(name.clone(), percent_decode(&self.text[p..end]));
                end
            }
            Part::Prefixed { prefix: '/', names } => {
                let mut at = p;
                for name in names {
                    if self.text.as_bytes().get(at) != Some(&b'/') {
                        break;
                    }
                    let end = self.next_delimiter[at + 1];
                    vars.insert(name.clone(), percent_decode(&self.text[at + 1..end]));
                    at = end;
                }
                at
            }
            Part::Prefixed { prefix: '?' | '&', names } => {
                let end = self.step(part, p).unwrap_or(p);
                if end > p {
                    for pair in self.text[p + 1..end].split('&').filter(|pair| !pair.is_empty()) {
                        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                        if names.iter().any(|n| n == k) {
                            vars.insert(k.to_owned(), percent_decode(v));
                        }
                    }
                }
                end
            }
            Part::Prefixed { prefix, names } => {
                let end = self.step(part, p).unwrap_or(p);
                if end > p
                    && let Some(name) = names.first()
                {
                    vars.insert(name.clone(), percent_decode(&self.text[p + prefix.len_utf8()..end]));
                }
                end
            }
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
    fn the_shortest_values_that_let_the_rest_match_are_taken() {
        assert_eq!(m("file:///{+path}/end", "file:///a/end/b/end"), Some(vec![("path".into(), "a/end/b".into())]));
        assert_eq!(m("x://{a}.{b}", "x://1.2.3"), Some(vec![("a".into(), "1".into()), ("b".into(), "2.3".into())]));
        assert_eq!(m("x://{a}{b}", "x://é1"), Some(vec![("a".into(), "é".into()), ("b".into(), "1".into())]));
        assert_eq!(m("x://{a}{b}", "x://é"), None);
        assert_eq!(m("x://{a}/{b}", "x://1/"), None);
        assert_eq!(
            m("x://{+a}{+b}{+c}.txt", "x://123.txt"),
            Some(vec![("a".into(), "1".into()), ("b".into(), "2".into()), ("c".into(), "3".into())])
        );
        assert_eq!(m("x://p{#frag}", "x://p#top"), Some(vec![("frag".into(), "top".into())]));
        assert_eq!(m("x://p{.ext}", "x://p"), Some(vec![]));
        assert_eq!(m("x://{a}/{a}", "x://1/2"), Some(vec![("a".into(), "1".into())]));
    }

    #[test]
    fn long_uris_match_in_one_pass() {
        // A backtracking matcher would try every way of splitting this between the variables.
        let template = UriTemplate::parse("x://{+a}{+b}{+c}{d}.txt").unwrap();
        let long = format!("x://{}", "a".repeat(200_000));
        assert_eq!(template.matches(&format!("{long}!")), None);
        let vars = template.matches(&format!("{long}.txt")).unwrap();
        assert_eq!(vars["d"].len(), 200_000 - 3);
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
