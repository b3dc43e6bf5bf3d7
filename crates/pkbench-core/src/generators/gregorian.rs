//! The timestamp shared by UUIDv1 and v6: 60 bits of 100-ns ticks since 1582-10-15, a 14-bit
//! clock sequence and a 48-bit node.
//!
//! Ordering: the clock sequence is drawn at random once per generator (top bit clear, RFC 9562
//! §5.1: "initialized to a random number" and kept) and stays put from tick to tick, as in
//! libuuid's and MariaDB's `UUID()`; it counts up only when two IDs fall in the same tick. When it
//! runs out the tick advances by one; when the clock steps back the last tick is kept and counting
//! goes on. So (tick, clock sequence) never repeats or decreases within one generator, and a
//! generator's v1 IDs sort by time wherever the layout puts the clock sequence first (MariaDB's
//! `UUID` type).

use super::KeyRng;

/// 100-ns ticks from the Gregorian epoch (1582-10-15) to the Unix epoch.
pub const GREGORIAN_OFFSET_TICKS: u64 = 0x01b2_1dd2_1381_4000;
const TICKS_MASK: u64 = (1 << 60) - 1;
const SEQ_MAX: u16 = 0x3fff;

/// The per-generator (tick, clock sequence) state.
#[derive(Debug, Clone, Default)]
pub(super) struct TickCounter {
    last: u64,
    /// The clock sequence, drawn on first use.
    seq: Option<u16>,
}

impl TickCounter {
    /// The next (tick, clock sequence) pair for a clock reading of `unix_ns`.
    #[inline]
    pub(super) fn next(&mut self, unix_ns: u64, rng: &mut KeyRng) -> (u64, u16) {
        let now = (unix_ns / 100 + GREGORIAN_OFFSET_TICKS) & TICKS_MASK;
        let seq = *self.seq.get_or_insert_with(|| rng.next_u64() as u16 & (SEQ_MAX >> 1));
        let seq = if now > self.last {
            self.last = now;
            seq
        } else if seq < SEQ_MAX {
            seq + 1
        } else {
            self.last += 1;
            0
        };
        self.seq = Some(seq);
        (self.last, seq)
    }

    #[cfg(test)]
    pub(super) fn force_seq(&mut self, seq: u16) {
        self.seq = Some(seq);
    }
}

/// 48 random node bits with the multicast bit set (RFC 9562 §6.10): never a real MAC address.
pub(super) fn random_node(rng: &mut KeyRng) -> [u8; 6] {
    let b = rng.next_u64().to_be_bytes();
    [b[0] | 0x01, b[1], b[2], b[3], b[4], b[5]]
}

fn tail(bytes: &mut [u8; 16], seq: u16, node: &[u8; 6]) {
    bytes[8] = (seq >> 8) as u8 & 0x3f | 0x80;
    bytes[9] = seq as u8;
    bytes[10..].copy_from_slice(node);
}

/// Packs a version-1 UUID: `time_low | time_mid | ver 1 + time_high | var + clock_seq | node`.
#[inline]
pub fn pack_v1(ticks: u64, seq: u16, node: &[u8; 6]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&(ticks as u32).to_be_bytes());
    b[4..6].copy_from_slice(&((ticks >> 32) as u16).to_be_bytes());
    b[6..8].copy_from_slice(&((ticks >> 48) as u16 & 0x0fff | 0x1000).to_be_bytes());
    tail(&mut b, seq, node);
    b
}

/// Packs a version-6 UUID: v1's fields with the timestamp high-to-low, so it sorts by time.
#[inline]
pub fn pack_v6(ticks: u64, seq: u16, node: &[u8; 6]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..6].copy_from_slice(&(ticks >> 12).to_be_bytes()[2..]);
    b[6..8].copy_from_slice(&(ticks as u16 & 0x0fff | 0x6000).to_be_bytes());
    tail(&mut b, seq, node);
    b
}

/// The 60-bit tick count of a version-1 layout.
pub fn v1_ticks(b: &[u8; 16]) -> u64 {
    let low = u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mid = u64::from(u16::from_be_bytes([b[4], b[5]]));
    let high = u64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff);
    high << 48 | mid << 32 | low
}

/// The 60-bit tick count of a version-6 layout.
pub fn v6_ticks(b: &[u8; 16]) -> u64 {
    let high = u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]]);
    high << 12 | u64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff)
}

/// The 14-bit clock sequence of a v1/v6 layout.
pub fn clock_seq(b: &[u8; 16]) -> u16 {
    u16::from_be_bytes([b[8] & 0x3f, b[9]])
}

/// Unix time in nanoseconds of a tick count (negative before 1970).
pub fn ticks_to_unix_ns(ticks: u64) -> i128 {
    (i128::from(ticks) - i128::from(GREGORIAN_OFFSET_TICKS)) * 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_round_trip() {
        let node = [0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46];
        let ticks = 0x01ec_9414_c232_ab00;
        let v1 = pack_v1(ticks, 0x33c8, &node);
        let v6 = pack_v6(ticks, 0x33c8, &node);
        assert_eq!(v1_ticks(&v1), ticks);
        assert_eq!(v6_ticks(&v6), ticks);
        assert_eq!((clock_seq(&v1), clock_seq(&v6)), (0x33c8, 0x33c8));
        assert_eq!((v1[6] >> 4, v6[6] >> 4), (1, 6));
    }

    #[test]
    fn clock_sequence_is_kept_across_ticks_and_counts_within_one() {
        let mut rng = KeyRng::seeded(3);
        let mut t = TickCounter::default();
        let (t0, s0) = t.next(1_000, &mut rng);
        let (t1, s1) = t.next(2_000, &mut rng);
        assert_eq!((t1 - t0, s1), (10, s0), "a new tick keeps the sequence");
        let (t2, s2) = t.next(2_000, &mut rng);
        assert_eq!((t2, s2), (t1, s0 + 1), "same tick counts up");
        t.force_seq(SEQ_MAX);
        assert_eq!(t.next(2_000, &mut rng), (t1 + 1, 0), "overflow moves to the next tick");
    }
}
