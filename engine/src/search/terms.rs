//! The term dictionary and its postings: each term once, by a small id, with the nodes it occurs
//! in (sorted by node id) and its count in each; the live terms in text order, for prefix and
//! one-typo expansion. Node ids can be remapped in place when a graph is rebuilt, and a term no
//! node uses any more is dropped (its id is reused). Each term's text is stored once.

use hashbrown::HashTable;

use crate::graph::string_hash as term_hash;

/// A node id no node maps to: the node is gone, or its entries are made again.
pub(super) const GONE: u32 = u32::MAX;

/// Terms and postings.
#[derive(Debug, Default)]
pub(super) struct Terms {
    /// Each term's text, by id; empty for a free id.
    text: Vec<Box<str>>,
    /// The live ids, found by their text's hash (the text itself is `text`'s: a kernel's
    /// million terms stored twice held tens of megabytes).
    ids: HashTable<u32>,
    /// (node, count) of each term, by id, sorted by node.
    postings: Vec<Vec<(u32, u16)>>,
    /// Live term ids, in text order.
    sorted: Vec<u32>,
    /// Ids of dropped terms, for new ones.
    free: Vec<u32>,
    /// Ids given since the last `settle`.
    added: Vec<u32>,
    /// Ids whose postings `remap` emptied (some may have gained postings since).
    emptied: Vec<u32>,
    /// Ids whose postings `post` left out of node order.
    unsorted: Vec<u32>,
}

impl Terms {
    /// The id of `term`, if some node has it.
    pub(super) fn id(&self, term: &str) -> Option<u32> {
        self.ids
            .find(term_hash(term), |&id| self.text(id) == term)
            .copied()
    }

    /// The text of term `id`.
    pub(super) fn text(&self, id: u32) -> &str {
        self.text.get(id as usize).map_or("", |t| t)
    }

    /// The (node, count) postings of term `id`, by node.
    pub(super) fn postings(&self, id: u32) -> &[(u32, u16)] {
        self.postings.get(id as usize).map_or(&[], Vec::as_slice)
    }

    /// Live term ids in text order.
    pub(super) fn sorted(&self) -> &[u32] {
        &self.sorted
    }

    /// How many terms are live.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The id of `term`, given one if it is new (it joins the text order at the next `settle`).
    pub(super) fn intern(&mut self, term: &str) -> u32 {
        let hash = term_hash(term);
        let Terms { text, ids, .. } = self;
        let text_of = |id: u32| text.get(id as usize).map_or("", |t| &**t);
        if let Some(&id) = ids.find(hash, |&id| text_of(id) == term) {
            return id;
        }
        let id = match self.free.pop() {
            Some(id) => {
                if let Some(slot) = self.text.get_mut(id as usize) {
                    *slot = term.into();
                }
                id
            }
            None => {
                self.text.push(term.into());
                self.postings.push(Vec::new());
                (self.text.len() - 1) as u32
            }
        };
        let Terms { text, ids, .. } = self;
        ids.insert_unique(hash, id, |&i| {
            term_hash(text.get(i as usize).map_or("", |t| &**t))
        });
        self.added.push(id);
        id
    }

    /// Gives back the room the postings lists and tables grew beyond what they hold (lists grow
    /// by doubling as nodes are posted: a third of a kernel's postings room was spare).
    pub(super) fn shrink_to_fit(&mut self) {
        for list in &mut self.postings {
            list.shrink_to_fit();
        }
        let Terms { text, ids, .. } = self;
        ids.shrink_to_fit(|&i| term_hash(text.get(i as usize).map_or("", |t| &**t)));
    }

    /// Records that `node` has term `id` `count` times. Nodes are posted in increasing order
    /// (after a `remap`): a list they leave out of order is sorted at the next `settle`.
    pub(super) fn post(&mut self, id: u32, node: u32, count: u16) {
        let Some(list) = self.postings.get_mut(id as usize) else {
            return;
        };
        if list.last().is_some_and(|&(last, _)| last >= node) {
            self.unsorted.push(id);
        }
        list.push((node, count));
    }

    /// Renames every posting's node through `map` (old id → new id), dropping those mapped to
    /// [`GONE`] or beyond it; lists stay in node order.
    pub(super) fn remap(&mut self, map: &[u32]) {
        for (id, list) in self.postings.iter_mut().enumerate() {
            if list.is_empty() {
                continue;
            }
            list.retain_mut(|(node, _)| match map.get(*node as usize) {
                Some(&new) if new != GONE => {
                    *node = new;
                    true
                }
                _ => false,
            });
            if list.is_empty() {
                self.emptied.push(id as u32);
            } else if !list.is_sorted_by_key(|&(n, _)| n) {
                list.sort_unstable_by_key(|&(n, _)| n);
            }
        }
    }

    /// Puts postings back in node order, drops the terms no node has any more and puts the new
    /// ones in text order.
    pub(super) fn settle(&mut self) {
        for id in std::mem::take(&mut self.unsorted) {
            if let Some(list) = self.postings.get_mut(id as usize) {
                // Two sorted runs (kept, then posted): a stable sort merges them.
                list.sort_by_key(|&(n, _)| n);
            }
        }
        let mut dropped = 0;
        for id in std::mem::take(&mut self.emptied) {
            let Some(list) = self.postings.get_mut(id as usize) else {
                continue;
            };
            if list.is_empty() {
                *list = Vec::new();
                let hash = term_hash(self.text(id));
                if let Ok(entry) = self.ids.find_entry(hash, |&live| live == id) {
                    entry.remove();
                }
                if let Some(text) = self.text.get_mut(id as usize) {
                    *text = Box::default();
                }
                self.free.push(id);
                dropped += 1;
            }
        }
        if dropped > 0 {
            let postings = &self.postings;
            self.sorted
                .retain(|&id| postings.get(id as usize).is_some_and(|l| !l.is_empty()));
        }
        let mut added = std::mem::take(&mut self.added);
        if added.is_empty() {
            return;
        }
        let text = &self.text;
        let text_of = |id: u32| text.get(id as usize).map_or("", |t| &**t);
        added.sort_unstable_by(|&a, &b| text_of(a).cmp(text_of(b)));
        if self.sorted.is_empty() {
            self.sorted = added;
            return;
        }
        // Merge: each new term goes where a binary search of the old order puts it.
        let old = std::mem::take(&mut self.sorted);
        let mut merged = Vec::with_capacity(old.len() + added.len());
        let mut from = 0;
        for id in added {
            let rest = old.get(from..).unwrap_or_default();
            let at = from + rest.partition_point(|&t| text_of(t) < text_of(id));
            merged.extend_from_slice(old.get(from..at).unwrap_or_default());
            merged.push(id);
            from = at;
        }
        merged.extend_from_slice(old.get(from..).unwrap_or_default());
        self.sorted = merged;
    }

    /// Every live term with its postings, by text (for comparing indexes whose ids differ).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(super) fn by_text(&self) -> std::collections::BTreeMap<&str, &[(u32, u16)]> {
        self.ids
            .iter()
            .map(|&id| (self.text(id), self.postings(id)))
            .collect()
    }

    /// Checks the tables agree: ids and texts both ways, live terms have postings in node order,
    /// free ids have none, and `sorted` lists the live terms in text order.
    #[cfg(test)]
    pub(super) fn check(&self) {
        for &id in &self.ids {
            let text = self.text(id);
            assert_eq!(self.id(text), Some(id));
            let list = self.postings(id);
            assert!(!list.is_empty(), "live term {text:?} without postings");
            assert!(
                list.windows(2).all(|w| w[0].0 < w[1].0),
                "{text:?}: {list:?}"
            );
        }
        for &id in &self.free {
            assert!(self.text(id).is_empty() && self.postings(id).is_empty());
        }
        assert_eq!(self.ids.len() + self.free.len(), self.text.len());
        let texts: Vec<&str> = self.sorted.iter().map(|&id| self.text(id)).collect();
        let mut want: Vec<&str> = self.ids.iter().map(|&id| self.text(id)).collect();
        want.sort_unstable();
        assert_eq!(texts, want);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remapped_nodes_keep_their_order_and_unused_terms_go() {
        let mut terms = Terms::default();
        let (a, b, c) = (
            terms.intern("cart"),
            terms.intern("add"),
            terms.intern("zeta"),
        );
        terms.post(a, 0, 2);
        terms.post(a, 2, 1);
        terms.post(b, 1, 1);
        terms.post(c, 2, 3);
        terms.settle();
        terms.check();
        assert_eq!(terms.sorted(), [b, a, c]);
        // Node 1 is gone, node 0 and 2 swap places; node 2 (now 0) gains "bee".
        terms.remap(&[2, GONE, 0]);
        let bee = terms.intern("bee");
        terms.post(bee, 0, 1);
        terms.post(a, 1, 5);
        terms.settle();
        terms.check();
        assert_eq!(terms.postings(a), [(0, 1), (1, 5), (2, 2)]);
        assert_eq!(terms.id("add"), None);
        assert_eq!(terms.sorted(), [bee, a, c]);
        // The dropped term's id is given to the next new one.
        assert_eq!(terms.intern("new"), b);
        terms.post(b, 3, 1);
        terms.settle();
        terms.check();
        assert_eq!(terms.len(), 4);
    }

    #[test]
    fn shrunk_postings_hold_no_spare_room_and_every_term_is_still_found() {
        let mut terms = Terms::default();
        let words = ["alloc", "cache", "kmem", "kmem_cache_alloc", "free"];
        for node in 0..50u32 {
            for (i, word) in words.iter().enumerate() {
                if node % (i as u32 + 1) == 0 {
                    let id = terms.intern(word);
                    terms.post(id, node, 1);
                }
            }
        }
        terms.settle();
        terms.shrink_to_fit();
        terms.check();
        for word in words {
            let id = terms.id(word).expect("interned");
            assert_eq!(terms.text(id), word);
            let list = &terms.postings[id as usize];
            assert_eq!(list.capacity(), list.len(), "{word}");
        }
        assert_eq!(terms.id("kmem_cache"), None);
    }
}
