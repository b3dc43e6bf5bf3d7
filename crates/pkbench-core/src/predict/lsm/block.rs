//! How many bytes a sorted file spends per entry, found by writing real entries the way
//! RocksDB's block-based table does (MyRocks' defaults): internal keys (the user key and an
//! 8-byte sequence number and type) prefix-delta encoded with a restart point every 16 entries,
//! 4 KiB data blocks each compressed with Snappy when that saves an eighth, a 5-byte block
//! trailer, one index entry per block and a full bloom filter of 10 bits per key.
//!
//! A compaction that writes the bottom of the tree zeroes the sequence numbers, which then
//! compress away: the same entries take fewer bytes there.

use snap::raw::Encoder;

/// Entries between restart points (`block_restart_interval`).
const RESTART_INTERVAL: usize = 16;
/// Bytes of a data block before it is cut (`block_size`).
const BLOCK_BYTES: usize = 4096;
/// Compression type and CRC32 after each block.
const BLOCK_TRAILER: usize = 5;
/// Bloom filter bits per key (pkbench's managed servers: `bloomfilter:10`).
const FILTER_BITS_PER_KEY: f64 = 10.0;
/// Bytes of a block handle in an index entry (two varint64s).
const HANDLE_BYTES: usize = 6;

/// One entry: the user key (index number and the key's bytes) and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Bytes on disk per entry of a file holding `entries` (sorted by key, each with the sequence
/// number it was written with), or with zeroed sequence numbers.
pub fn bytes_per_entry(entries: &[(Entry, u64)], zeroed: bool) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    let mut table = Table::default();
    let mut key = Vec::new();
    for ((user_key, value), seq) in entries {
        key.clear();
        key.extend_from_slice(user_key);
        // The trailer: (sequence << 8) | kTypeValue, little-endian.
        let trailer = (if zeroed { 0 } else { *seq } << 8) | 1;
        key.extend_from_slice(&trailer.to_le_bytes());
        table.add(&key, value);
    }
    table.finish();
    let filter = entries.len() as f64 * FILTER_BITS_PER_KEY / 8.0;
    (table.bytes as f64 + filter) / entries.len() as f64
}

#[derive(Default)]
struct Table {
    block: Vec<u8>,
    restarts: Vec<u32>,
    last: Vec<u8>,
    count: usize,
    /// Bytes written: data blocks and their index entries.
    bytes: usize,
    encoder: Option<Encoder>,
    scratch: Vec<u8>,
}

impl Table {
    fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.count.is_multiple_of(RESTART_INTERVAL) {
            self.restarts.push(self.block.len() as u32);
            0
        } else {
            key.iter().zip(&self.last).take_while(|(a, b)| a == b).count()
        };
        varint(&mut self.block, shared);
        varint(&mut self.block, key.len() - shared);
        varint(&mut self.block, value.len());
        self.block.extend_from_slice(&key[shared..]);
        self.block.extend_from_slice(value);
        self.last.clear();
        self.last.extend_from_slice(key);
        self.count += 1;
        if self.block.len() >= BLOCK_BYTES {
            self.finish_block();
        }
    }

    fn finish_block(&mut self) {
        if self.count == 0 {
            return;
        }
        let restarts = std::mem::take(&mut self.restarts);
        for r in &restarts {
            self.block.extend_from_slice(&r.to_le_bytes());
        }
        self.block.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
        let raw = self.block.len();
        let encoder = self.encoder.get_or_insert_with(Encoder::new);
        self.scratch.resize(snap::raw::max_compress_len(raw), 0);
        let compressed = encoder.compress(&self.block, &mut self.scratch).unwrap_or(raw);
        // RocksDB keeps the compressed block only if it saves at least an eighth.
        let stored = if compressed < raw - raw / 8 { compressed } else { raw };
        // The index entry: a separator no longer than the last key, and the block's handle.
        self.bytes += stored + BLOCK_TRAILER + self.last.len() + HANDLE_BYTES + 3;
        self.block.clear();
        self.count = 0;
    }

    fn finish(&mut self) {
        self.finish_block();
    }
}

fn varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(keys: impl Iterator<Item = [u8; 8]>) -> Vec<(Entry, u64)> {
        let mut e: Vec<(Entry, u64)> =
            keys.enumerate().map(|(i, k)| ((k.to_vec(), vec![0xa5; 52]), i as u64 + 1)).collect();
        e.sort();
        e
    }

    #[test]
    fn repeated_values_compress_and_zeroed_sequences_take_less() {
        let ordered = entries((0..100_000u64).map(|i| (i | 1 << 63).to_be_bytes()));
        let with_seq = bytes_per_entry(&ordered, false);
        let zeroed = bytes_per_entry(&ordered, true);
        let raw = 3.0 + 8.0 + 8.0 + 52.0;
        assert!(with_seq < raw / 3.0, "a constant payload compresses: {with_seq}");
        assert!(zeroed < with_seq, "zeroed sequence numbers compress away: {zeroed} vs {with_seq}");
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let random = entries((0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_be_bytes()
        }));
        assert!(bytes_per_entry(&random, false) > with_seq, "random keys share fewer prefix bytes");
    }
}
