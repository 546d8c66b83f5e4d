//! An ordered, paginated registry of named entries that can change while sessions run.

use std::{collections::BTreeMap, sync::Arc};

use crate::{jsonrpc::ErrorData, sync::FastMap};

/// Entries keyed by name, listed in registration order, with cursors that survive changes.
///
/// A cursor is the sequence number of the next entry to list, so removing or adding entries
/// between two pages neither repeats nor skips the entries that stayed.
pub(crate) struct Registry<T> {
    by_seq: BTreeMap<u64, Arc<T>>,
    /// Names are the server's own (a client only looks them up), so a fast hash is safe.
    by_name: FastMap<String, u64>,
    next_seq: u64,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry { by_seq: BTreeMap::new(), by_name: FastMap::default(), next_seq: 0 }
    }
}

impl<T> Registry<T> {
    /// Adds or replaces an entry; a replaced entry keeps its place.
    pub(crate) fn insert(&mut self, name: String, entry: T) {
        let seq = match self.by_name.get(&name) {
            Some(seq) => *seq,
            None => {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.by_name.insert(name, seq);
                seq
            }
        };
        self.by_seq.insert(seq, Arc::new(entry));
    }

    /// Removes an entry, returning whether it existed.
    pub(crate) fn remove(&mut self, name: &str) -> bool {
        match self.by_name.remove(name) {
            Some(seq) => self.by_seq.remove(&seq).is_some(),
            None => false,
        }
    }

    /// Returns the entry with this name.
    pub(crate) fn get(&self, name: &str) -> Option<Arc<T>> {
        self.by_name.get(name).and_then(|seq| self.by_seq.get(seq)).cloned()
    }

    /// Returns whether an entry has this name.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Returns whether the registry is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_seq.is_empty()
    }

    /// Iterates over the entries in registration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<T>> {
        self.by_seq.values()
    }

    /// Returns one page starting at `cursor` and the cursor of the next page, if any.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(Vec<Arc<T>>, Option<String>), ErrorData> {
        let start = match cursor {
            None => 0,
            Some(c) => decode_cursor(c).ok_or_else(|| ErrorData::invalid_params(format!("Invalid cursor: {c:?}")))?,
        };
        let mut iter = self.by_seq.range(start..);
        let page: Vec<_> = iter.by_ref().take(page_size).map(|(_, v)| v.clone()).collect();
        let next = iter.next().map(|(seq, _)| encode_cursor(*seq));
        Ok((page, next))
    }
}

fn encode_cursor(seq: u64) -> String {
    format!("mcpweft-{seq:x}")
}

fn decode_cursor(cursor: &str) -> Option<u64> {
    u64::from_str_radix(cursor.strip_prefix("mcpweft-")?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_in_registration_order_and_survive_removal() {
        let mut r = Registry::default();
        for name in ["c", "a", "b", "d", "e"] {
            r.insert(name.to_owned(), name.to_owned());
        }
        let (page, next) = r.page(None, 2).unwrap();
        assert_eq!(page.iter().map(|s| s.as_str()).collect::<Vec<_>>(), ["c", "a"]);
        r.remove("c");
        r.remove("b");
        let (page, next) = r.page(next.as_deref(), 2).unwrap();
        assert_eq!(page.iter().map(|s| s.as_str()).collect::<Vec<_>>(), ["d", "e"]);
        assert_eq!(next, None);
        assert!(r.page(Some("garbage"), 2).is_err());
    }
}
