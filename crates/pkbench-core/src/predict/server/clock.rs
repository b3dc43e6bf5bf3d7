//! PostgreSQL's shared buffers: `shared_buffers / 8 KiB` buffers replaced by the clock sweep
//! (`freelist.c`, `StrategyGetBuffer`), with the bookkeeping the WAL needs: a page's first
//! modification after a checkpoint's redo point logs a full-page image (`XLogRecordAssemble`
//! in `xloginsert.c`: page LSN <= `RedoRecPtr`), and a checkpoint writes every dirty buffer.

use super::tree::Buffers;

const NONE: u32 = u32::MAX;
/// `BM_MAX_USAGE_COUNT` (`buf_internals.h`).
const MAX_USAGE: u8 = 5;

#[derive(Clone, Copy, Debug)]
struct Slot {
    page: u32,
    usage: u8,
    dirty: bool,
}

/// What the buffers counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockCounts {
    /// Requests served from a buffer (`*_blks_hit`).
    pub hits: u64,
    /// Requests that needed a buffer (`*_blks_read`: `ReadBufferExtended` counts a read for
    /// every request that is not a hit, including the zero-filled page of a relation extension).
    pub reads: u64,
    /// Of the reads, new pages of a relation extension (nothing read).
    pub extended: u64,
    /// Clean buffers made dirty.
    pub dirtied: u64,
    /// Dirty buffers written: evicted by the clock sweep, or by a checkpoint.
    pub written: u64,
    /// Full-page images logged.
    pub fpi: u64,
    /// Bytes of those images.
    pub fpi_bytes: u64,
}

impl ClockCounts {
    /// Counts from `earlier` to `self`.
    pub fn since(&self, earlier: &ClockCounts) -> ClockCounts {
        ClockCounts {
            hits: self.hits - earlier.hits,
            reads: self.reads - earlier.reads,
            extended: self.extended - earlier.extended,
            dirtied: self.dirtied - earlier.dirtied,
            written: self.written - earlier.written,
            fpi: self.fpi - earlier.fpi,
            fpi_bytes: self.fpi_bytes - earlier.fpi_bytes,
        }
    }
}

/// The clock-sweep buffer pool.
#[derive(Debug)]
pub struct ClockSweep {
    slots: Vec<Slot>,
    /// Page → slot (or `NONE`).
    map: Vec<u32>,
    /// Page → the checkpoint cycle of its last modification + 1 (0: never modified).
    cycle: Vec<u32>,
    /// Checkpoints so far + 1.
    current: u32,
    /// Slots never used yet (the initial freelist hands them out in order).
    unused: u32,
    hand: u32,
    counts: ClockCounts,
}

impl ClockSweep {
    /// `buffers` buffers (`NBuffers`), at least 16 (PostgreSQL's minimum).
    pub fn new(buffers: u32) -> Self {
        let n = buffers.max(16);
        ClockSweep {
            slots: vec![Slot { page: NONE, usage: 0, dirty: false }; n as usize],
            map: Vec::new(),
            cycle: Vec::new(),
            current: 1,
            unused: n,
            hand: 0,
            counts: ClockCounts::default(),
        }
    }

    /// Counts since the pool was created.
    pub fn totals(&self) -> ClockCounts {
        self.counts
    }

    fn grow(&mut self, page: u32) {
        let need = page as usize + 1;
        if self.map.len() < need {
            let len = need + need / 8;
            self.map.resize(len, NONE);
            self.cycle.resize(len, 0);
        }
    }

    /// A victim buffer: the freelist first, then the clock hand, which decrements each
    /// buffer's usage count until it finds one at zero (`StrategyGetBuffer`).
    fn victim(&mut self) -> u32 {
        let n = self.slots.len() as u32;
        if self.unused > 0 {
            self.unused -= 1;
            return n - 1 - self.unused;
        }
        loop {
            let i = self.hand;
            self.hand = (self.hand + 1) % n;
            let slot = &mut self.slots[i as usize];
            if slot.usage == 0 {
                return i;
            }
            slot.usage -= 1;
        }
    }

    /// A checkpoint: every dirty buffer is written (spread over time by the checkpointer, but
    /// all of them before the next one), and the redo point moves, so each page's next
    /// modification logs a full-page image again.
    pub fn checkpoint(&mut self) {
        for slot in &mut self.slots {
            if slot.dirty {
                slot.dirty = false;
                self.counts.written += 1;
            }
        }
        self.current += 1;
    }

    /// Buffers in the pool.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Dirty buffers now.
    pub fn dirty(&self) -> u64 {
        self.slots.iter().filter(|s| s.dirty).count() as u64
    }

    /// Bytes of bookkeeping.
    pub fn memory_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<Slot>() + self.map.capacity() * 4 + self.cycle.capacity() * 4)
            as u64
    }
}

impl Buffers for ClockSweep {
    fn prefetch(&self, page: u32) {
        if let Some(slot) = self.map.get(page as usize) {
            crate::predict::prefetch::line(slot);
        }
    }

    fn fetch(&mut self, page: u32, new: bool) {
        self.grow(page);
        let s = self.map[page as usize];
        if s != NONE {
            self.counts.hits += 1;
            let slot = &mut self.slots[s as usize];
            // PinBuffer: every pin bumps the usage count, up to the maximum.
            slot.usage = (slot.usage + 1).min(MAX_USAGE);
            return;
        }
        self.counts.reads += 1;
        let v = self.victim();
        let old = self.slots[v as usize];
        if old.page != NONE {
            self.map[old.page as usize] = NONE;
            if old.dirty {
                self.counts.written += 1;
            }
        }
        // BufferAlloc: a newly loaded buffer starts at usage count 1.
        self.slots[v as usize] = Slot { page, usage: 1, dirty: false };
        self.map[page as usize] = v;
        if new {
            self.counts.extended += 1;
            // A new page is initialised by its WAL record (`REGBUF_WILL_INIT`): no image.
            self.cycle[page as usize] = self.current;
        }
    }

    fn modify(&mut self, page: u32, image_bytes: u32) {
        self.grow(page);
        if self.cycle[page as usize] != self.current {
            self.counts.fpi += 1;
            self.counts.fpi_bytes += u64::from(image_bytes);
            self.cycle[page as usize] = self.current;
        }
        let s = self.map[page as usize];
        if s != NONE && !self.slots[s as usize].dirty {
            self.slots[s as usize].dirty = true;
            self.counts.dirtied += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_spares_pages_in_use_and_evicts_cold_ones() {
        let mut c = ClockSweep::new(16);
        for p in 0..16 {
            c.fetch(p, false);
        }
        for _ in 0..4 {
            c.fetch(0, false); // page 0 reaches usage 5
        }
        c.fetch(16, false); // sweeps every buffer down; evicts page 1 (usage 0 first)
        c.fetch(0, false);
        let n = c.totals();
        assert_eq!((n.reads, n.hits), (17, 5));
        c.fetch(1, false);
        assert_eq!(c.totals().since(&n).reads, 1, "page 1 was evicted");
    }

    #[test]
    fn images_once_per_checkpoint_cycle_and_never_for_new_pages() {
        let mut c = ClockSweep::new(16);
        c.fetch(1, true);
        c.modify(1, 100);
        c.fetch(2, false);
        c.modify(2, 200);
        c.modify(2, 200);
        let n = c.totals();
        assert_eq!((n.fpi, n.fpi_bytes, n.dirtied), (1, 200, 2));
        c.checkpoint();
        c.modify(1, 100);
        let m = c.totals().since(&n);
        assert_eq!((m.written, m.fpi, m.dirtied), (2, 1, 1));
    }
}
