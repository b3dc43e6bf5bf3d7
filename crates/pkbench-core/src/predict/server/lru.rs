//! InnoDB's buffer pool LRU list with midpoint insertion (`buf0lru.cc`): a page read from disk
//! enters at the head of the "old" sublist, 3/8 from the tail (`innodb_old_blocks_pct = 37`,
//! `buf_LRU_add_block(bpage, true)`), once the list holds at least `BUF_LRU_OLD_MIN_LEN` (512)
//! pages; a page created in memory (`buf_page_create`, a split's new page) enters at the head.
//! Re-accessing a page moves it to the head (`buf_page_make_young_if_needed`) unless it is
//! still in the young quarter of the list (`buf_page_peek_if_young`: fewer than
//! `curr_size × (1024 − 378) / 4096` evictions since it was last moved). Eviction takes the
//! tail; a dirty tail page is written first.
//!
//! `innodb_old_blocks_time` (1000 ms) is ignored: the model has no clock, so an old page that is
//! accessed again is made young at once, as with `innodb_old_blocks_time = 0`. Background
//! flushing (the page cleaner's adaptive and checkpoint flushing) is not modelled: pages are
//! written only when evicted dirty.

use super::tree::Buffers;

const NONE: u32 = u32::MAX;
/// `BUF_LRU_OLD_MIN_LEN`.
const OLD_MIN_LEN: u64 = 512;
/// `innodb_old_blocks_pct = 37` as `buf_LRU_old_ratio_update` stores it (per 1024).
const OLD_RATIO: u64 = 37 * 1024 / 100;
/// `BUF_LRU_OLD_TOLERANCE`.
const OLD_TOLERANCE: u64 = 20;

#[derive(Clone, Copy, Debug)]
struct Entry {
    prev: u32,
    next: u32,
    cached: bool,
    old: bool,
    dirty: bool,
    /// Evictions counted when the page last moved to the head (`freed_page_clock`).
    stamp: u64,
}

const ABSENT: Entry = Entry { prev: NONE, next: NONE, cached: false, old: false, dirty: false, stamp: 0 };

/// What the pool counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LruCounts {
    /// Requests served from the pool.
    pub hits: u64,
    /// Pages read from disk (`Innodb_buffer_pool_reads`); new pages are not reads.
    pub reads: u64,
    /// Clean pages made dirty.
    pub dirtied: u64,
    /// Dirty pages written when evicted.
    pub written: u64,
}

/// The LRU list of a buffer pool of `capacity` pages.
#[derive(Debug)]
pub struct MidpointLru {
    capacity: u64,
    entries: Vec<Entry>,
    /// Most recently used end.
    head: u32,
    /// Eviction end.
    tail: u32,
    /// First page of the old sublist (`LRU_old`), or `NONE` while the list is short.
    old_head: u32,
    len: u64,
    old_len: u64,
    /// Pages evicted so far (`freed_page_clock`).
    evicted: u64,
    counts: LruCounts,
}

impl MidpointLru {
    /// A pool whose LRU list holds `capacity` pages (at least 16).
    pub fn new(capacity: u64) -> Self {
        MidpointLru {
            capacity: capacity.max(16),
            entries: Vec::new(),
            head: NONE,
            tail: NONE,
            old_head: NONE,
            len: 0,
            old_len: 0,
            evicted: 0,
            counts: LruCounts::default(),
        }
    }

    /// Counts since the last call.
    pub fn take_counts(&mut self) -> LruCounts {
        std::mem::take(&mut self.counts)
    }

    /// Bytes of bookkeeping.
    pub fn memory_bytes(&self) -> u64 {
        (self.entries.capacity() * std::mem::size_of::<Entry>()) as u64
    }

    fn entry(&mut self, page: u32) -> &mut Entry {
        let i = page as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1 + i / 8, ABSENT);
        }
        &mut self.entries[i]
    }

    fn unlink(&mut self, page: u32) {
        let e = *self.entry(page);
        if self.old_head == page {
            // The next page towards the tail becomes the first old page (or none is left).
            self.old_head = e.next;
        }
        if e.prev == NONE {
            self.head = e.next;
        } else {
            self.entries[e.prev as usize].next = e.next;
        }
        if e.next == NONE {
            self.tail = e.prev;
        } else {
            self.entries[e.next as usize].prev = e.prev;
        }
        self.len -= 1;
        if e.old {
            self.old_len -= 1;
        }
        let e = &mut self.entries[page as usize];
        (e.prev, e.next, e.cached, e.old) = (NONE, NONE, false, false);
    }

    /// Links `page` before `at` (or at the tail when `at` is `NONE`).
    fn link_before(&mut self, page: u32, at: u32, old: bool) {
        let prev = if at == NONE { self.tail } else { self.entries[at as usize].prev };
        {
            let e = self.entry(page);
            (e.prev, e.next, e.cached, e.old) = (prev, at, true, old);
        }
        if prev == NONE {
            self.head = page;
        } else {
            self.entries[prev as usize].next = page;
        }
        if at == NONE {
            self.tail = page;
        } else {
            self.entries[at as usize].prev = page;
        }
        self.len += 1;
        if old {
            self.old_len += 1;
        }
    }

    fn add_young(&mut self, page: u32) {
        let head = self.head;
        self.link_before(page, head, false);
        self.entries[page as usize].stamp = self.evicted;
    }

    /// Keeps the old sublist at 3/8 of the list within the tolerance (`buf_LRU_old_adjust_len`),
    /// starting it when the list reaches `BUF_LRU_OLD_MIN_LEN` (`buf_LRU_old_init`).
    fn adjust_old(&mut self) {
        if self.len < OLD_MIN_LEN {
            return;
        }
        if self.old_head == NONE {
            self.old_head = self.tail;
            if self.tail != NONE {
                self.entries[self.tail as usize].old = true;
                self.old_len = 1;
            }
        }
        let target = self.len * OLD_RATIO / 1024;
        while self.old_len + OLD_TOLERANCE < target {
            let prev = self.entries[self.old_head as usize].prev;
            if prev == NONE {
                break;
            }
            self.old_head = prev;
            self.entries[prev as usize].old = true;
            self.old_len += 1;
        }
        while self.old_len > target + OLD_TOLERANCE {
            let h = self.old_head;
            self.entries[h as usize].old = false;
            self.old_head = self.entries[h as usize].next;
            self.old_len -= 1;
        }
    }

    fn evict_if_full(&mut self) {
        while self.len >= self.capacity && self.tail != NONE {
            let victim = self.tail;
            if self.entries[victim as usize].dirty {
                self.counts.written += 1;
                self.entries[victim as usize].dirty = false;
            }
            self.unlink(victim);
            self.evicted += 1;
        }
    }
}

impl Buffers for MidpointLru {
    fn prefetch(&self, page: u32) {
        if let Some(e) = self.entries.get(page as usize) {
            crate::predict::prefetch::line(e);
        }
    }

    fn fetch(&mut self, page: u32, new: bool) {
        let e = *self.entry(page);
        if e.cached {
            self.counts.hits += 1;
            // No eviction yet: nothing moves (`buf_page_peek_if_too_old`).
            let young_enough = !e.old && self.evicted < e.stamp + self.capacity * (1024 - OLD_RATIO) / 4096;
            if self.evicted > 0 && !young_enough {
                self.unlink(page);
                self.add_young(page);
                self.adjust_old();
            }
            return;
        }
        self.evict_if_full();
        if new {
            self.add_young(page);
        } else {
            self.counts.reads += 1;
            if self.old_head == NONE {
                self.add_young(page);
            } else {
                let at = self.old_head;
                self.link_before(page, at, true);
                self.old_head = page;
            }
        }
        self.adjust_old();
    }

    fn modify(&mut self, page: u32, _image_bytes: u32) {
        let e = self.entry(page);
        if !e.cached || e.dirty {
            return;
        }
        e.dirty = true;
        self.counts.dirtied += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_list_is_plain_lru() {
        let mut c = MidpointLru::new(16);
        for p in 0..16 {
            c.fetch(p, false);
        }
        c.fetch(16, false); // evicts 0
        c.fetch(0, false);
        let n = c.take_counts();
        assert_eq!((n.reads, n.hits), (18, 0));
    }

    #[test]
    fn pages_read_once_do_not_push_out_the_hot_ones() {
        let mut c = MidpointLru::new(1000);
        // Evictions under way, then 300 hot pages touched twice (they fit the old sublist, so
        // the second access finds them and makes them young), then a scan of 5,000 pages read
        // once, which passes through the old sublist only.
        for p in 20_000..22_000 {
            c.fetch(p, false);
        }
        for _ in 0..2 {
            for p in 0..300 {
                c.fetch(p, false);
            }
        }
        for p in 10_000..15_000 {
            c.fetch(p, false);
        }
        let _ = c.take_counts();
        for p in 0..300 {
            c.fetch(p, false);
        }
        let n = c.take_counts();
        assert_eq!((n.reads, n.hits), (0, 300), "the scan went through the old sublist only");
        assert!(c.old_len.abs_diff(c.len * OLD_RATIO / 1024) <= OLD_TOLERANCE);
    }
}
