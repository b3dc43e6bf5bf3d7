//! A managed cluster's WAL sizes, which decide how often it checkpoints (and so how many
//! full-page images a run writes): PostgreSQL's own, or scaled down for a calibration.

use crate::Error;
use crate::engines::server::MAX_CHECKPOINT_SCALE;

/// `max_wal_size` of managed clusters, MiB: small, so checkpoints (and therefore full-page
/// images) happen inside short runs, as in long production runs.
pub const MAX_WAL_MB: u64 = 64;
/// `min_wal_size` of managed clusters, MiB (two 16 MiB segments, PostgreSQL's least).
pub const MIN_WAL_MB: u64 = 32;
/// `wal_segment_size` of clusters `initdb` makes, MiB.
pub const WAL_SEGMENT_MB: u64 = 16;

/// A managed cluster's WAL sizes: PostgreSQL's own, or all divided by a checkpoint scale (a
/// calibration at 1/k of its target's rows checkpoints after 1/k of the WAL, as its cache is
/// 1/k of the target's), so that the same number of segments separates checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalSize {
    /// `initdb --wal-segsize`, MiB, when not the default.
    pub segment_mb: Option<u64>,
    /// `max_wal_size`, MiB.
    pub max_mb: u64,
    /// `min_wal_size`, MiB.
    pub min_mb: u64,
}

impl WalSize {
    /// The sizes for a checkpoint scale: `None` or 1 for PostgreSQL's own, else a power of two
    /// up to [`MAX_CHECKPOINT_SCALE`].
    pub fn scaled(scale: Option<u64>) -> Result<WalSize, Error> {
        match scale.filter(|k| *k > 1) {
            None => Ok(WalSize { segment_mb: None, max_mb: MAX_WAL_MB, min_mb: MIN_WAL_MB }),
            Some(k) if k.is_power_of_two() && k <= MAX_CHECKPOINT_SCALE => {
                Ok(WalSize { segment_mb: Some(WAL_SEGMENT_MB / k), max_mb: MAX_WAL_MB / k, min_mb: MIN_WAL_MB / k })
            }
            Some(k) => Err(Error::InvalidInput(format!(
                "a checkpoint scale of {k} is not a power of two up to {MAX_CHECKPOINT_SCALE}: PostgreSQL's WAL segments are 1 to 16 MiB here"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_scale_divides_every_wal_size_alike() {
        let own = WalSize::scaled(None).unwrap();
        assert_eq!(own, WalSize { segment_mb: None, max_mb: 64, min_mb: 32 });
        assert_eq!(WalSize::scaled(Some(1)).unwrap(), own);
        let scaled = WalSize::scaled(Some(8)).unwrap();
        assert_eq!(scaled, WalSize { segment_mb: Some(2), max_mb: 8, min_mb: 4 });
        // The same number of segments between checkpoints: max_wal_size ÷ segment.
        assert_eq!(scaled.max_mb / scaled.segment_mb.unwrap(), MAX_WAL_MB / WAL_SEGMENT_MB);
        assert_eq!(WalSize::scaled(Some(MAX_CHECKPOINT_SCALE)).unwrap().segment_mb, Some(1));
        for bad in [3, 32] {
            let e = WalSize::scaled(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("not a power of two up to 16"), "{e}");
        }
    }
}
