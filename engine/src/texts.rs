//! The project's file texts, kept compressed: files are packed in arrival order into pages of
//! about `PAGE_BYTES`, each page lz4-compressed once full; a read decompresses its page.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// Raw bytes a page gathers before it is compressed: reading one file decompresses at most this
/// much (more only for a file larger than a page, which has a page of its own). lz4 looks back
/// 64 KB: the kernel's C packs to 320 MB in pages of 64 KB against 312 MB in 128 KB ones, and a
/// `grep` that reads every file holding `todo` decompresses 237 MB of pages instead of 323 MB.
pub const PAGE_BYTES: usize = 64 * 1024;

/// Decompressed pages kept for the next reads (files are mostly read near one another: a
/// file's symbols one after another, every file in path order).
const CACHED_PAGES: usize = 8;

/// A walk in path order may decompress a page again this rarely (one page in this many) before
/// [`Sources::settle`] packs the texts again: a page shared by two runs of files that arrived
/// apart costs little, a repack costs a compression of every text.
const SETTLED_SLACK: usize = 4;

/// Replaced and removed bytes tolerated before the pages are packed again: at most this share
/// of the live bytes (and always up to `PAGE_BYTES` * `CACHED_PAGES`).
const DEAD_SHARE: u64 = 2;

/// Where one file's text lies: its page (the open page when it equals the page count) and
/// its bytes there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Place {
    page: u32,
    start: u32,
    len: u32,
}

/// One full page: its texts one after another, lz4-compressed as a block.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Page {
    raw_len: u32,
    #[serde(with = "serde_bytes")]
    packed: Vec<u8>,
}

/// One file's text as read from the store (it shares its decompressed page).
#[derive(Clone)]
pub struct Text {
    page: Arc<String>,
    start: usize,
    end: usize,
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.page.get(self.start..self.end).unwrap_or_default()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

/// Every kept file's text by path, compressed in pages. Reads decompress a page (the last
/// `CACHED_PAGES` stay decompressed); the page being filled stays raw until it is full.
#[derive(Default, Serialize, Deserialize)]
pub struct Sources {
    places: BTreeMap<String, Place>,
    pages: Vec<Page>,
    open: String,
    /// Raw bytes of the texts paths point to.
    live: u64,
    /// Raw bytes in pages that no path points to any more (replaced or removed files).
    dead: u64,
    #[serde(skip)]
    cache: Mutex<VecDeque<(u32, Arc<String>)>>,
    /// Pages decompressed so far (cache misses), to check that passes read pages in order.
    #[serde(skip)]
    decompressed: AtomicUsize,
}

impl Clone for Sources {
    fn clone(&self) -> Sources {
        Sources {
            places: self.places.clone(),
            pages: self.pages.clone(),
            open: self.open.clone(),
            live: self.live,
            dead: self.dead,
            cache: Mutex::default(),
            decompressed: AtomicUsize::new(0),
        }
    }
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sources")
            .field("files", &self.places.len())
            .field("pages", &self.pages.len())
            .field("packed_bytes", &self.packed_bytes())
            .finish()
    }
}

impl PartialEq for Sources {
    fn eq(&self, other: &Sources) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((p, a), (q, b))| p == q && *a == *b)
    }
}

impl<P: Into<String>, T: Into<String>> FromIterator<(P, T)> for Sources {
    fn from_iter<I: IntoIterator<Item = (P, T)>>(iter: I) -> Sources {
        let mut sources = Sources::new();
        for (path, text) in iter {
            sources.insert(path.into(), text.into());
        }
        sources
    }
}

impl Sources {
    /// No texts.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// Whether it holds no file.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Whether it holds a text for `path`.
    pub fn contains_key(&self, path: &str) -> bool {
        self.places.contains_key(path)
    }

    /// Every path it holds, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.places.keys()
    }

    /// The length in bytes of `path`'s text, without reading it.
    pub fn len_of(&self, path: &str) -> Option<usize> {
        self.places.get(path).map(|p| p.len as usize)
    }

    /// The bytes its texts take as held: compressed pages and the raw open page.
    pub fn packed_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.packed.len()).sum::<usize>() + self.open.len()
    }

    /// The bytes of its texts uncompressed.
    pub fn raw_bytes(&self) -> usize {
        self.live as usize
    }

    /// How many compressed pages it holds (the open page aside).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// How many times a page was decompressed since it was made (reads the cache missed).
    pub fn pages_decompressed(&self) -> usize {
        self.decompressed.load(Ordering::Relaxed)
    }

    /// Packs the texts again in path order when reading them in path order would decompress
    /// pages more than once (they came out of order: parse workers, filter before parse). Every
    /// pass that walks files in path order (or nodes file by file) then reads each page about
    /// once (at most 1 + 1/`SETTLED_SLACK` times the pages).
    /// Each page is decompressed once here; raw bytes held at once are those of the new pages
    /// still missing a text, which stay few when the disorder is local.
    pub fn settle(&mut self) {
        if self.path_walk_misses() <= self.pages.len() + self.pages.len() / SETTLED_SLACK + 1 {
            return;
        }
        let mut packed = Sources::new();
        // Where each text goes: its new page and start, laid out in path order.
        let mut page_sizes: Vec<usize> = Vec::new();
        let mut filling = 0usize;
        for (path, &place) in &self.places {
            packed.places.insert(
                path.clone(),
                Place {
                    page: page_sizes.len() as u32,
                    start: filling as u32,
                    len: place.len,
                },
            );
            filling += place.len as usize;
            if filling >= PAGE_BYTES {
                page_sizes.push(filling);
                filling = 0;
            }
        }
        page_sizes.push(filling);
        let mut in_page_order: Vec<(&String, Place)> =
            self.places.iter().map(|(p, &place)| (p, place)).collect();
        in_page_order.sort_by_key(|(_, p)| (p.page, p.start));
        // New pages being filled: their bytes and how many are still missing.
        let mut filling_pages: HashMap<u32, (Vec<u8>, usize)> = HashMap::new();
        let mut done: Vec<Option<Vec<u8>>> = vec![None; page_sizes.len()];
        for (path, place) in in_page_order {
            let (Some(to), Some(text)) = (packed.places.get(path), self.read(place)) else {
                // A damaged page: the texts stay as they are.
                return;
            };
            if text.is_empty() {
                continue;
            }
            let size = page_sizes.get(to.page as usize).copied().unwrap_or(0);
            let (bytes, missing) = filling_pages
                .entry(to.page)
                .or_insert_with(|| (vec![0; size], size));
            let start = to.start as usize;
            let Some(slot) = bytes.get_mut(start..start + text.len()) else {
                return;
            };
            slot.copy_from_slice(text.as_bytes());
            *missing -= text.len();
            if *missing == 0
                && let Some((full, _)) = filling_pages.remove(&to.page)
                && let Some(at) = done.get_mut(to.page as usize)
            {
                *at = Some(full);
            }
        }
        // Every page is complete; none is left but one a damaged text would have left short.
        for (page, (bytes, _)) in filling_pages {
            if let Some(at @ None) = done.get_mut(page as usize) {
                *at = Some(bytes);
            }
        }
        let open = done.pop().flatten().unwrap_or_default();
        for page in done {
            let raw = page.unwrap_or_default();
            packed.pages.push(Page {
                raw_len: raw.len() as u32,
                packed: lz4_flex::block::compress(&raw),
            });
        }
        packed.open = String::from_utf8(open).unwrap_or_default();
        packed.live = self.live;
        *self = packed;
    }

    /// Pages a walk of every file in path order would decompress with the cache it has.
    fn path_walk_misses(&self) -> usize {
        let mut cached: VecDeque<u32> = VecDeque::with_capacity(CACHED_PAGES);
        let mut misses = 0;
        for place in self.places.values() {
            if place.page as usize == self.pages.len() {
                continue;
            }
            if let Some(at) = cached.iter().position(|&p| p == place.page) {
                cached.remove(at);
            } else {
                misses += 1;
                if cached.len() == CACHED_PAGES {
                    cached.pop_back();
                }
            }
            cached.push_front(place.page);
        }
        misses
    }

    /// Keeps `text` as `path`'s text (replacing any earlier one).
    pub fn insert(&mut self, path: String, text: String) {
        self.forget(&path);
        let Ok(len) = u32::try_from(text.len()) else {
            return;
        };
        let place = Place {
            page: self.pages.len() as u32,
            start: self.open.len() as u32,
            len,
        };
        self.open.push_str(&text);
        self.places.insert(path, place);
        self.live += len as u64;
        if self.open.len() >= PAGE_BYTES {
            self.seal();
        }
        self.pack_if_wasteful();
    }

    /// Drops `path`'s text; whether it held one.
    pub fn remove(&mut self, path: &str) -> bool {
        let held = self.forget(path);
        self.pack_if_wasteful();
        held
    }

    /// `path`'s text.
    pub fn get(&self, path: &str) -> Option<Text> {
        self.places.get(path).and_then(|&place| self.read(place))
    }

    /// `path` as stored, and its text.
    pub fn get_key_value(&self, path: &str) -> Option<(&String, Text)> {
        let (key, &place) = self.places.get_key_value(path)?;
        Some((key, self.read(place)?))
    }

    /// Every path and its text, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, Text)> {
        self.places
            .iter()
            .filter_map(|(path, &place)| Some((path, self.read(place)?)))
    }

    /// Every text, in path order.
    pub fn values(&self) -> impl Iterator<Item = Text> {
        self.iter().map(|(_, text)| text)
    }

    /// Whether every path points into its page (a store read back from outside is checked
    /// before use; a page whose bytes are damaged reads as no text).
    pub(crate) fn is_consistent(&self) -> bool {
        self.places.values().all(|place| {
            let raw_len = match self.pages.get(place.page as usize) {
                Some(page) => page.raw_len as u64,
                None if place.page as usize == self.pages.len() => self.open.len() as u64,
                None => return false,
            };
            place.start as u64 + place.len as u64 <= raw_len
        }) && self.live == self.places.values().map(|p| p.len as u64).sum::<u64>()
    }

    fn forget(&mut self, path: &str) -> bool {
        match self.places.remove(path) {
            Some(old) => {
                self.live -= old.len as u64;
                self.dead += old.len as u64;
                true
            }
            None => false,
        }
    }

    fn seal(&mut self) {
        if self.open.is_empty() {
            return;
        }
        let raw = std::mem::take(&mut self.open);
        self.pages.push(Page {
            raw_len: raw.len() as u32,
            packed: lz4_flex::block::compress(raw.as_bytes()),
        });
    }

    /// Packs the live texts again when replaced and removed ones take too much room.
    fn pack_if_wasteful(&mut self) {
        let slack = (PAGE_BYTES * CACHED_PAGES) as u64;
        if self.dead <= slack || self.dead <= self.live / DEAD_SHARE {
            return;
        }
        let mut packed = Sources::new();
        for (path, text) in self.iter() {
            packed.open.push_str(&text);
            let place = Place {
                page: packed.pages.len() as u32,
                start: (packed.open.len() - text.len()) as u32,
                len: text.len() as u32,
            };
            packed.places.insert(path.clone(), place);
            packed.live += text.len() as u64;
            if packed.open.len() >= PAGE_BYTES {
                packed.seal();
            }
        }
        *self = packed;
    }

    fn read(&self, place: Place) -> Option<Text> {
        let start = place.start as usize;
        let end = start + place.len as usize;
        if place.page as usize == self.pages.len() {
            let text = self.open.get(start..end)?;
            return Some(Text {
                end: text.len(),
                page: Arc::new(text.to_owned()),
                start: 0,
            });
        }
        let page = self.page(place.page)?;
        page.get(start..end)?;
        Some(Text { page, start, end })
    }

    fn page(&self, index: u32) -> Option<Arc<String>> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = cache.iter().position(|(i, _)| *i == index) {
            let hit = cache.remove(at)?;
            let page = hit.1.clone();
            cache.push_front(hit);
            return Some(page);
        }
        let stored = self.pages.get(index as usize)?;
        self.decompressed.fetch_add(1, Ordering::Relaxed);
        // A cut block can decode cleanly to fewer bytes: only the whole page is the page.
        let raw = lz4_flex::block::decompress(&stored.packed, stored.raw_len as usize)
            .ok()
            .filter(|raw| raw.len() == stored.raw_len as usize)?;
        let page = Arc::new(String::from_utf8(raw).ok()?);
        if cache.len() == CACHED_PAGES {
            cache.pop_back();
        }
        cache.push_front((index, page.clone()));
        Some(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(n: usize) -> String {
        format!("fn f{n}() {{ return {n}; }}\n").repeat(n % 50 + 1)
    }

    #[test]
    fn texts_read_back_as_written_across_pages() {
        let mut sources = Sources::new();
        let mut plain = BTreeMap::new();
        for n in 0..3000 {
            let path = format!("src/{:04}.rs", (n * 7919) % 3000);
            sources.insert(path.clone(), text_of(n));
            plain.insert(path, text_of(n));
        }
        assert!(sources.pages.len() > 10, "{} pages", sources.pages.len());
        assert_eq!(sources.len(), plain.len());
        for (path, text) in &plain {
            assert_eq!(sources.get(path).as_deref(), Some(text.as_str()));
            assert_eq!(sources.len_of(path), Some(text.len()));
        }
        let listed: Vec<(String, String)> = sources
            .iter()
            .map(|(p, t)| (p.clone(), t.to_string()))
            .collect();
        let expected: Vec<(String, String)> = plain.into_iter().collect();
        assert_eq!(listed, expected);
        assert!(sources.packed_bytes() * 3 < sources.raw_bytes());
    }

    #[test]
    fn replaced_and_removed_texts_give_their_room_back() {
        let mut sources = Sources::new();
        let big = "x = 1\n".repeat(PAGE_BYTES / 6);
        for round in 0..40 {
            sources.insert("a.py".into(), format!("{big}{round}"));
        }
        assert_eq!(
            sources.get("a.py").as_deref(),
            Some(format!("{big}39").as_str())
        );
        assert!(
            sources.raw_bytes() + (PAGE_BYTES * (CACHED_PAGES + 2))
                > sources
                    .pages
                    .iter()
                    .map(|p| p.raw_len as usize)
                    .sum::<usize>()
                    + sources.open.len()
        );
        assert!(sources.remove("a.py"));
        assert!(!sources.remove("a.py"));
        assert_eq!(sources.get("a.py").map(|t| t.to_string()), None);
        assert!(sources.is_empty());
    }

    #[test]
    fn a_store_read_back_is_the_same_and_a_damaged_one_reads_no_text() {
        let sources: Sources = (0..500).map(|n| (format!("f{n}.c"), text_of(n))).collect();
        let blob = postcard::to_allocvec(&sources).unwrap();
        let back: Sources = postcard::from_bytes(&blob).unwrap();
        assert!(back.is_consistent());
        assert_eq!(back, sources);

        let mut broken = back.clone();
        broken.places.insert(
            "far.c".into(),
            Place {
                page: 99,
                start: 0,
                len: 1,
            },
        );
        assert!(!broken.is_consistent());

        let mut damaged = back.clone();
        let page = &mut damaged.pages[0];
        page.packed.truncate(page.packed.len() / 2);
        let first = damaged.keys().next().unwrap().clone();
        assert!(damaged.get(&first).is_none());
    }

    #[test]
    fn texts_that_came_out_of_order_settle_in_path_order_and_read_each_page_once() {
        let big_text = |n: usize| format!("// fichier {n} é ✓\n{}", text_of(n).repeat(20));
        let mut sources = Sources::new();
        let mut plain = BTreeMap::new();
        // Texts that are not code come first (the filter keeps them before anything is
        // parsed), then the parsed ones in the order workers finish them.
        for n in (0..1200).filter(|n| n % 5 == 0) {
            let path = format!("src/{n:05}.md");
            sources.insert(path.clone(), big_text(n));
            plain.insert(path, big_text(n));
        }
        for n in (0..1200).map(|n| n * 7919 % 1200).filter(|n| n % 5 != 0) {
            let path = format!("src/{n:05}.c");
            sources.insert(path.clone(), big_text(n));
            plain.insert(path, big_text(n));
        }
        // Empty texts, last: they share a start with another text, and their new pages are
        // complete before they come.
        for n in (0..1200).filter(|n| n % 7 == 0) {
            let empty = format!("src/{n:05}/__init__.py");
            sources.insert(empty.clone(), String::new());
            plain.insert(empty, String::new());
        }
        assert!(sources.path_walk_misses() > 2 * sources.page_count());
        sources.settle();
        assert!(sources.is_consistent());
        let before = sources.pages_decompressed();
        let read: BTreeMap<String, String> = sources
            .iter()
            .map(|(p, t)| (p.clone(), t.to_string()))
            .collect();
        assert_eq!(read, plain);
        assert!(sources.pages_decompressed() - before <= sources.page_count());
        assert_eq!(
            sources.raw_bytes(),
            plain.values().map(String::len).sum::<usize>()
        );

        let (pages, read) = (sources.page_count(), sources.pages_decompressed());
        sources.settle();
        assert_eq!(sources.page_count(), pages);
        assert_eq!(
            sources.pages_decompressed(),
            read,
            "a settled store is left as it is"
        );
    }
}
