//! Which node of the previous index each node of a new graph takes its entries from. Both graphs
//! number nodes in the same order (by path), so a node's counterpart is almost always the one
//! after the last taken, or a few further on: those are looked at first; the previous nodes are
//! put in a table by key only once many nodes were not found near (a removed or moved block).
//! Any node of equal key will do (equal keys, equal entries); a node not found is tokenized
//! again, so a counterpart missed costs time only.

use rustc_hash::FxHashMap as HashMap;

use super::Doc;
use super::terms::GONE;

/// How many previous nodes after the expected one are looked at.
const NEAR: usize = 64;
/// How many nodes may be missing near before the table is made.
const MISSES_BEFORE_TABLE: usize = 32;

/// Finds counterparts among the previous index's nodes (`None` for nodes not indexed).
pub(super) struct Reuse<'a> {
    old: &'a [Option<Doc>],
    /// Old id → new id of each node taken, [`GONE`] for the others.
    map: Vec<u32>,
    /// The old node expected next: one past the last taken.
    next: usize,
    misses: usize,
    /// Once more than this many nodes are missing, most are new: nothing more is looked for.
    give_up: usize,
    /// The previous nodes by key (the lowest id), each linked to the next with its key.
    table: Option<(HashMap<u128, u32>, Vec<u32>)>,
}

impl<'a> Reuse<'a> {
    /// Counterparts among `old` for `new` nodes.
    pub(super) fn new(old: &'a [Option<Doc>], new: usize) -> Reuse<'a> {
        Reuse {
            old,
            map: vec![GONE; old.len()],
            next: 0,
            misses: 0,
            give_up: new / 2,
            table: None,
        }
    }

    /// The previous node new node `id` (of key `key`) takes its entries from, if any.
    pub(super) fn take(&mut self, key: u128, id: u32) -> Option<u32> {
        if self.misses > self.give_up {
            return None;
        }
        let near = self.next..self.old.len().min(self.next + NEAR);
        let found = near
            .into_iter()
            .find(|&o| self.is_free(o, key))
            .or_else(|| self.far(key))?;
        if let Some(slot) = self.map.get_mut(found) {
            *slot = id;
        }
        self.next = found + 1;
        Some(found as u32)
    }

    /// Old id → new id of every previous node taken, [`GONE`] for the others.
    pub(super) fn into_map(self) -> Vec<u32> {
        self.map
    }

    fn is_free(&self, old: usize, key: u128) -> bool {
        self.old.get(old).copied().flatten().map(|d| d.key) == Some(key)
            && self.map.get(old).is_some_and(|&m| m == GONE)
    }

    /// A free previous node of key `key` anywhere, once enough were missing near.
    fn far(&mut self, key: u128) -> Option<usize> {
        self.misses += 1;
        if self.misses <= MISSES_BEFORE_TABLE {
            return None;
        }
        let old = self.old;
        let (first, next_alike) = self.table.get_or_insert_with(|| {
            let mut first: HashMap<u128, u32> = HashMap::default();
            first.reserve(old.len());
            let mut next_alike = vec![GONE; old.len()];
            for (o, doc) in old.iter().enumerate().rev() {
                if let Some(doc) = doc
                    && let Some(alike) = first.insert(doc.key, o as u32)
                    && let Some(slot) = next_alike.get_mut(o)
                {
                    *slot = alike;
                }
            }
            (first, next_alike)
        });
        let mut o = *first.get(&key)?;
        // Skip those taken already (near, or earlier by key).
        while self.map.get(o as usize).is_some_and(|&m| m != GONE) {
            o = next_alike.get(o as usize).copied().filter(|&n| n != GONE)?;
        }
        Some(o as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The previous node each new key is matched with (`None` keys: nodes not indexed).
    fn matched(old: &[Option<u128>], new: &[u128]) -> Vec<Option<u32>> {
        let docs: Vec<Option<Doc>> = old
            .iter()
            .map(|k| {
                k.map(|key| Doc {
                    key,
                    len: 0,
                    test: false,
                })
            })
            .collect();
        let mut reuse = Reuse::new(&docs, new.len());
        let taken: Vec<Option<u32>> = new
            .iter()
            .enumerate()
            .map(|(id, &key)| reuse.take(key, id as u32))
            .collect();
        let map = reuse.into_map();
        for (id, &o) in taken.iter().enumerate() {
            if let Some(o) = o {
                assert_eq!(map[o as usize], id as u32);
                assert_eq!(old[o as usize], Some(new[id]), "equal keys only");
            }
        }
        assert_eq!(
            map.iter().filter(|&&m| m != GONE).count(),
            taken.iter().flatten().count()
        );
        taken
    }

    #[test]
    fn nodes_in_the_same_order_take_their_counterparts() {
        // Keys 100.. for old nodes 0..; node 2 is gone, a new node (7) comes before old 4.
        let old: Vec<Option<u128>> = (0..6).map(|o| Some(100 + o)).collect();
        let got = matched(&old, &[100, 101, 103, 7, 104, 105]);
        assert_eq!(got, [Some(0), Some(1), Some(3), None, Some(4), Some(5)]);
        // Nodes not indexed are never taken; equal keys are taken in order, each once.
        let old = [None, Some(100), Some(100), Some(101)];
        assert_eq!(
            matched(&old, &[100, 100, 100]),
            [Some(1), Some(2), None],
            "a third node of the same key has no counterpart"
        );
    }

    #[test]
    fn nothing_is_looked_for_once_most_nodes_are_new() {
        let old: Vec<Option<u128>> = (0..8).map(|o| Some(100 + o)).collect();
        let got = matched(&old, &[1, 2, 3, 4, 5, 100, 101, 102]);
        assert!(got.iter().all(Option::is_none), "{got:?}");
    }

    #[test]
    fn a_block_moved_far_is_found_by_key() {
        let n = (NEAR * 4) as u128;
        let old: Vec<Option<u128>> = (0..n).map(|o| Some(100 + o)).collect();
        // The last quarter moved to the front: the first nodes are missing near, then the table.
        let mut new: Vec<u128> = (3 * n / 4..n).map(|o| 100 + o).collect();
        new.extend((0..3 * n / 4).map(|o| 100 + o));
        let got = matched(&old, &new);
        let found = got.iter().filter(|m| m.is_some()).count();
        assert_eq!(found, n as usize - MISSES_BEFORE_TABLE, "{got:?}");
        assert!(got[MISSES_BEFORE_TABLE..].iter().all(Option::is_some));
    }
}
