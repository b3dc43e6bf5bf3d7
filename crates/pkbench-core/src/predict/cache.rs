//! An LRU page cache that behaves like SQLite's pager cache (`pcache.c` + `pcache1.c`):
//! clean pages are recycled least recently used first; dirty pages stay until commit, except
//! that once dirty pages fill 90% of the cache (`n90pct` in `pcache1FetchStage2`), fetching a
//! page not in the cache first spills the least recently used dirty page
//! (`sqlite3PcacheFetchStress` → `pagerStress`), which writes it to the WAL and makes it clean.
//!
//! It also follows the WAL: a page written twice in one transaction (spilled, changed, written
//! again) overwrites its own frame instead of appending one (`sqlite3WalFrames`, the `iFirst`
//! path), so a transaction adds one frame per distinct page; after a commit leaves at least
//! [`AUTOCHECKPOINT_FRAMES`] frames in the WAL (`sqlite3WalDefaultHook`), the checkpoint copies
//! the latest frame of every distinct page into the database file (`walCheckpoint`), and the
//! next transaction writes the WAL from its start again. The WAL file keeps the size of its
//! longest run of frames (no `journal_size_limit`).
//!
//! And it counts the syncs `synchronous=FULL` waits for: the WAL at each commit
//! (`sqlite3WalFrames`), the WAL and then the database file at each checkpoint
//! (`walCheckpoint`), and the WAL's new header when the next transaction writes the WAL from its
//! start again (`sqlite3WalFrames`, `iFrame==0`).

const NIL: u32 = u32::MAX;

/// SQLite's default `wal_autocheckpoint` (pages), which `pkbench run` keeps.
pub const AUTOCHECKPOINT_FRAMES: u64 = 1000;

/// Frames per WAL-index hash table (`HASHTABLE_NPAGE` in wal.c).
pub const WAL_HASH_FRAMES: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Absent,
    Clean,
    Dirty,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    prev: u32,
    next: u32,
    state: State,
    /// The transaction that last wrote the page to the WAL.
    written_in: u32,
}

/// A doubly linked list threaded through `nodes`; `head` is the most recently used.
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: u64,
}

impl List {
    const EMPTY: List = List { head: NIL, tail: NIL, len: 0 };
}

/// Counts of what the cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Page requests served from the cache.
    pub hits: u64,
    /// Page requests for pages already on disk (or in the WAL) that were not cached.
    pub misses: u64,
    /// Pages written: spilled before commit plus dirty at commit.
    pub pages_written: u64,
    /// Of `pages_written`, pages spilled because the cache was full of dirty pages.
    pub spills: u64,
    /// Distinct pages made dirty (a page dirtied again after a spill counts again).
    pub pages_dirtied: u64,
    /// Pages the automatic checkpoints copied from the WAL into the database file: distinct
    /// pages written since the previous checkpoint.
    pub checkpoint_pages: u64,
    /// WAL-index hash tables searched by the misses: a page read first looks for the page in
    /// the WAL's index, one hash table per [`WAL_HASH_FRAMES`] frames, newest first
    /// (`walFindFrame` in wal.c), so each miss searches one table per 4096 frames in the WAL.
    pub wal_hash_searches: u64,
    /// Files synced: one per commit, two per checkpoint and one per WAL header rewritten
    /// after a checkpoint.
    pub syncs: u64,
}

/// SQLite-like page cache of page numbers (no page contents).
#[derive(Debug)]
pub struct PageCache {
    capacity: u64,
    dirty_limit: u64,
    nodes: Vec<Node>,
    clean: List,
    dirty: List,
    counts: CacheCounts,
    /// The open transaction (numbered from 1).
    txn: u32,
    /// The first transaction since the last checkpoint (a page written by it or later is in
    /// the WAL already).
    interval_start: u32,
    /// Most frames the WAL has held.
    wal_frames_max: u64,
    /// Frames in the WAL since the last checkpoint.
    wal_frames: u64,
    /// Distinct pages among them.
    wal_pages: u64,
    /// Frames after which a commit checkpoints.
    autocheckpoint: u64,
    /// Real frames per simulated frame (a 1/K scale model's WAL holds 1/K of the frames).
    frame_scale: u64,
    /// Whether the last checkpoint emptied the WAL, so the next frame rewrites its header.
    wal_restarted: bool,
}

impl PageCache {
    /// A cache holding `capacity` pages (at least 10).
    pub fn new(capacity: u64) -> Self {
        let capacity = capacity.max(10);
        PageCache {
            capacity,
            dirty_limit: capacity * 9 / 10,
            nodes: Vec::new(),
            clean: List::EMPTY,
            dirty: List::EMPTY,
            counts: CacheCounts::default(),
            txn: 1,
            interval_start: 1,
            wal_frames_max: 0,
            wal_frames: 0,
            wal_pages: 0,
            autocheckpoint: AUTOCHECKPOINT_FRAMES,
            frame_scale: 1,
            // The schema's CREATE TABLE wrote the WAL's header and synced it.
            wal_restarted: false,
        }
    }

    /// Checkpoints after `frames` frames instead of [`AUTOCHECKPOINT_FRAMES`] (a scale model's
    /// WAL is scaled like its cache).
    pub fn set_autocheckpoint(&mut self, frames: u64) {
        self.autocheckpoint = frames.max(1);
    }

    /// Counts WAL-index searches as if the WAL held `k` times its frames (a 1/`k` scale
    /// model's WAL, whose misses are multiplied by `k` afterwards).
    pub fn set_frame_scale(&mut self, k: u64) {
        self.frame_scale = k.max(1);
    }

    /// Capacity in pages.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Pages cached now.
    pub fn len(&self) -> u64 {
        self.clean.len + self.dirty.len
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts since the last [`PageCache::take_counts`].
    pub fn take_counts(&mut self) -> CacheCounts {
        std::mem::take(&mut self.counts)
    }

    fn node(&mut self, page: u32) -> &mut Node {
        let i = page as usize;
        if i >= self.nodes.len() {
            self.nodes.resize(i + 1 + i / 8, Node { prev: NIL, next: NIL, state: State::Absent, written_in: 0 });
        }
        &mut self.nodes[i]
    }

    fn list(&mut self, state: State) -> &mut List {
        match state {
            State::Dirty => &mut self.dirty,
            _ => &mut self.clean,
        }
    }

    fn unlink(&mut self, page: u32) {
        let Node { prev, next, state, .. } = *self.node(page);
        if prev == NIL {
            self.list(state).head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.list(state).tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        self.list(state).len -= 1;
        self.nodes[page as usize].state = State::Absent;
    }

    fn push_front(&mut self, page: u32, state: State) {
        let head = self.list(state).head;
        let node = self.node(page);
        (node.prev, node.next, node.state) = (NIL, head, state);
        if head == NIL {
            self.list(state).tail = page;
        } else {
            self.nodes[head as usize].prev = page;
        }
        let list = self.list(state);
        list.head = page;
        list.len += 1;
    }

    fn state(&mut self, page: u32) -> State {
        self.node(page).state
    }

    /// Asks the processor for the cache line of `page`'s entry, which a fetch of it will read
    /// (see [`crate::predict::prefetch`]).
    pub fn prefetch(&self, page: u32) {
        if let Some(node) = self.nodes.get(page as usize) {
            super::prefetch::line(node);
        }
    }

    /// Requests `page`. `on_disk` is false for a page just allocated past the end of the
    /// database, which SQLite zero-fills instead of reading (no miss).
    pub fn fetch(&mut self, page: u32, on_disk: bool) {
        let state = self.state(page);
        if state != State::Absent {
            self.counts.hits += 1;
            // Already the most recently used of its list (the root, the right edge): no move.
            if self.list(state).head != page {
                self.unlink(page);
                self.push_front(page, state);
            }
            return;
        }
        if on_disk {
            self.counts.misses += 1;
            self.counts.wal_hash_searches += (self.wal_frames * self.frame_scale).div_ceil(WAL_HASH_FRAMES);
        }
        if self.dirty.len >= self.dirty_limit && self.dirty.tail != NIL {
            let victim = self.dirty.tail;
            self.unlink(victim);
            self.push_front(victim, State::Clean);
            self.counts.spills += 1;
            self.write_to_wal(victim);
        }
        if self.len() + 1 >= self.capacity && self.clean.tail != NIL {
            let victim = self.clean.tail;
            self.unlink(victim);
        }
        self.push_front(page, State::Clean);
    }

    /// Fetches `page` and marks it dirty (to be written at commit).
    pub fn write(&mut self, page: u32, on_disk: bool) {
        self.fetch(page, on_disk);
        if self.state(page) == State::Clean {
            self.unlink(page);
            self.push_front(page, State::Dirty);
            self.counts.pages_dirtied += 1;
        }
    }

    /// Writes `page` to the WAL.
    fn write_to_wal(&mut self, page: u32) {
        self.counts.pages_written += 1;
        let (txn, interval_start) = (self.txn, self.interval_start);
        let node = self.node(page);
        if node.written_in == txn {
            return; // overwrites its frame of this transaction
        }
        let new_in_interval = node.written_in < interval_start;
        node.written_in = txn;
        if self.wal_restarted {
            self.wal_restarted = false;
            self.counts.syncs += 1; // the WAL's new header
        }
        self.wal_frames += 1;
        self.wal_pages += u64::from(new_in_interval);
    }

    /// Commits: every dirty page is written and becomes clean and the WAL is synced; then, if
    /// the WAL holds enough frames, the automatic checkpoint syncs it, copies its distinct pages
    /// into the database file and syncs that.
    pub fn commit(&mut self) {
        // Oldest first, so the most recently used dirty page ends up most recently used.
        while self.dirty.tail != NIL {
            let page = self.dirty.tail;
            self.unlink(page);
            self.push_front(page, State::Clean);
            self.write_to_wal(page);
        }
        self.txn += 1;
        self.counts.syncs += 1;
        self.wal_frames_max = self.wal_frames_max.max(self.wal_frames);
        if self.wal_frames >= self.autocheckpoint {
            self.counts.checkpoint_pages += self.wal_pages;
            self.counts.syncs += 2;
            self.wal_restarted = true;
            self.interval_start = self.txn;
            (self.wal_frames, self.wal_pages) = (0, 0);
        }
    }

    /// Most frames the WAL has held (its file keeps that size).
    pub fn wal_frames_max(&self) -> u64 {
        self.wal_frames_max
    }

    /// Bytes this cache uses for its bookkeeping.
    pub fn memory_bytes(&self) -> u64 {
        (self.nodes.capacity() * std::mem::size_of::<Node>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_pages_are_recycled_lru_first() {
        let mut c = PageCache::new(10);
        for p in 1..=9 {
            c.fetch(p, true);
        }
        c.fetch(1, true); // hit, now most recent
        c.fetch(10, true); // evicts 2
        c.fetch(2, true);
        let n = c.take_counts();
        assert_eq!((n.hits, n.misses), (1, 11));
        c.fetch(1, true);
        assert_eq!(c.take_counts().hits, 1);
    }

    #[test]
    fn dirty_pages_spill_at_ninety_percent_and_are_written_at_commit() {
        let mut c = PageCache::new(10);
        for p in 1..=9 {
            c.write(p, false);
        }
        let n = c.take_counts();
        assert_eq!((n.misses, n.spills, n.pages_written), (0, 0, 0));
        c.write(10, true); // 9 dirty >= 9: spills page 1
        let n = c.take_counts();
        assert_eq!((n.misses, n.spills, n.pages_written), (1, 1, 1));
        c.commit();
        assert_eq!(c.take_counts().pages_written, 9);
        assert!(c.len() <= 10);
    }

    #[test]
    fn checkpoints_copy_each_distinct_page_once_after_enough_frames() {
        let mut c = PageCache::new(4000);
        // 600 pages written in each of two commits: 1,200 frames, 600 distinct pages.
        for _ in 0..2 {
            for p in 1..=600 {
                c.write(p, true);
            }
            c.commit();
        }
        let n = c.take_counts();
        assert_eq!((n.pages_written, n.checkpoint_pages, c.wal_frames_max()), (1200, 600, 1200));
        // Two commits' syncs, and the checkpoint's of the WAL and of the database file.
        assert_eq!(n.syncs, 4);
        // The next interval starts empty: 10 frames are not enough for a checkpoint. Its first
        // frame rewrites the WAL's header, which is synced before the commit's sync.
        for p in 1..=10 {
            c.write(p, true);
        }
        c.commit();
        let n = c.take_counts();
        assert_eq!((n.checkpoint_pages, n.syncs), (0, 2));
        for p in 1..=10 {
            c.write(p, true);
        }
        c.commit();
        assert_eq!(c.take_counts().syncs, 1, "a commit into a WAL already started syncs once");
    }

    #[test]
    fn a_spill_that_starts_the_wal_over_syncs_its_header() {
        let mut c = PageCache::new(10);
        c.set_autocheckpoint(5);
        for p in 1..=6 {
            c.write(p, true);
        }
        c.commit(); // 6 frames: the commit's sync, then the checkpoint's two
        assert_eq!(c.take_counts().syncs, 3);
        for p in 1..=10 {
            c.write(p, true); // the tenth fetch spills page 1: the first frame of the new WAL
        }
        let n = c.take_counts();
        assert_eq!((n.spills, n.syncs), (1, 1), "the header's sync, before any commit");
        c.commit();
        assert_eq!(c.take_counts().syncs, 3, "the commit's, and the checkpoint's two (10 frames)");
    }

    #[test]
    fn a_page_spilled_twice_in_one_transaction_keeps_one_frame() {
        let mut c = PageCache::new(10);
        for _ in 0..3 {
            for p in 1..=20 {
                c.write(p, true); // 20 pages through 9 dirty slots: most spill in every round
            }
        }
        c.commit();
        let n = c.take_counts();
        assert!(n.spills >= 40 && n.pages_written >= 60, "every spill and commit write counts: {n:?}");
        assert_eq!(c.wal_frames_max(), 20, "but the WAL holds one frame per page");
    }
}
