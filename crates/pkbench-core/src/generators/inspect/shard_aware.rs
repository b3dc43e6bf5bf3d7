//! Decoding the shard-aware integer layouts, when asked for one: which bucket, shard or worker a
//! value names (the range of a range-sharded table it lands in) and the sequence or time below it.

use super::{Field, IdKind, InspectOptions, Inspection, Timestamp, plausible_ms};
use crate::generators::{
    HashSeqParts, Scheme, ShardBitsParts, WorkerFirstParts, bitrev_sequence, hash_bucket, shard_of,
};

/// The kind's label for a shard-aware `scheme`.
pub(super) fn label(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::HashSeq => "hash-seq (hash bucket | sequence)",
        Scheme::BitrevSeq => "bitrev-seq (bit-reversed sequence)",
        Scheme::ShardBitsSeq => "shard-bits-seq (hashed shard bits | sequence)",
        Scheme::SnowflakeWorkers => "snowflake-workers (worker | ms since epoch | sequence)",
        _ => "integer",
    }
}

fn field(name: &'static str, value: String) -> Field {
    Field { name, value }
}

/// Reads `v` as `scheme` into `out`; a negative value is no such key and gets a note instead.
pub(super) fn decode(scheme: Scheme, v: i64, options: &InspectOptions, out: &mut Inspection) {
    if v < 0 {
        out.notes.push(format!("negative: not a {scheme} value (the sign bit is always 0)"));
        return;
    }
    out.kind = IdKind::ShardAware(scheme);
    match scheme {
        Scheme::HashSeq => {
            let Some(p) = HashSeqParts::of(v) else { return };
            let buckets = options.hash_buckets.clamp(2, 256);
            out.fields.push(field("bucket", format!("{} of {buckets}", p.bucket)));
            out.fields.push(field("sequence", p.sequence.to_string()));
            let want = hash_bucket(p.sequence, buckets);
            if want != p.bucket {
                out.notes.push(format!(
                    "with {buckets} buckets sequence {} hashes to bucket {want}, not {}: not a hash-seq value of {buckets} buckets (pass --hash-buckets)",
                    p.sequence, p.bucket
                ));
            }
        }
        Scheme::BitrevSeq => {
            if let Some(s) = bitrev_sequence(v) {
                out.fields.push(field("sequence", s.to_string()));
            }
        }
        Scheme::ShardBitsSeq => {
            // Out-of-range options read as the nearest valid width rather than overflow a shift.
            let bits = options.shard_bits.clamp(1, 15);
            let Some(p) = ShardBitsParts::of(v, bits) else { return };
            out.fields.push(field("shard", format!("{} of {}", p.shard, 1u64 << bits)));
            out.fields.push(field("sequence", p.sequence.to_string()));
            let want = shard_of(p.sequence, bits);
            if want != p.shard {
                out.notes.push(format!(
                    "with {bits} shard bits sequence {} hashes to shard {want}, not {}: not a shard-bits-seq value of {bits} bits (pass --shard-bits)",
                    p.sequence, p.shard
                ));
            }
        }
        Scheme::SnowflakeWorkers => {
            let Some(p) = WorkerFirstParts::of(v) else { return };
            let ms = i128::from(options.snowflake_epoch_ms) + i128::from(p.elapsed_ms);
            if plausible_ms(ms) {
                out.time = Some(Timestamp::from_unix_ms(ms));
            }
            out.fields.push(field("worker", p.worker.to_string()));
            out.fields.push(field("elapsed", format!("{} ms since the epoch", p.elapsed_ms)));
            out.fields.push(field("sequence", p.sequence.to_string()));
            out.notes.push(format!("epoch {} (Unix ms); pass --epoch for another", options.snowflake_epoch_ms));
        }
        _ => out.kind = IdKind::Integer,
    }
}

#[cfg(test)]
mod tests {
    use super::super::inspect;
    use super::*;
    use crate::generators::{Clock, VirtualClock};

    fn read(scheme: Scheme, v: i64, options: InspectOptions) -> Inspection {
        inspect(&v.to_string(), &InspectOptions { layout: Some(scheme), ..options }).unwrap()
    }

    fn fields(i: &Inspection) -> Vec<String> {
        i.fields.iter().map(|f| format!("{} {}", f.name, f.value)).collect()
    }

    #[test]
    fn each_layout_names_its_bucket_shard_or_worker_and_sequence() {
        let options = InspectOptions::default();
        let keys = |s: Scheme| {
            let clock: Box<dyn Clock> = Box::new(VirtualClock::default());
            let mut g = s.generator(1, "primary", clock);
            (0..3).map(|_| g.next_key()).last().map(|k| match k {
                crate::generators::Key::Int(v) => v,
                other => panic!("{other:?}"),
            })
        };
        let h = read(Scheme::HashSeq, keys(Scheme::HashSeq).unwrap(), options);
        assert_eq!(h.kind, IdKind::ShardAware(Scheme::HashSeq));
        assert_eq!(fields(&h), [format!("bucket {} of 16", hash_bucket(3, 16)), "sequence 3".into()]);
        assert!(h.notes.is_empty(), "{:?}", h.notes);

        let b = read(Scheme::BitrevSeq, keys(Scheme::BitrevSeq).unwrap(), options);
        assert_eq!(fields(&b), ["sequence 3"]);

        let s = read(Scheme::ShardBitsSeq, keys(Scheme::ShardBitsSeq).unwrap(), options);
        assert_eq!(fields(&s), [format!("shard {} of 16", shard_of(3, 4)), "sequence 3".into()]);
        assert!(s.notes.is_empty(), "{:?}", s.notes);

        let w = read(Scheme::SnowflakeWorkers, keys(Scheme::SnowflakeWorkers).unwrap(), options);
        assert_eq!(fields(&w)[0], "worker 2");
        assert_eq!(w.time.map(|t| t.iso8601()).as_deref(), Some("2026-01-01T00:00:00.002Z"));
    }

    #[test]
    fn a_value_of_other_parameters_or_no_such_layout_says_so() {
        // Bucket 0 with sequence 3 is wrong for 16 buckets unless the hash says 0.
        let wrong = if hash_bucket(3, 16) == 0 { 1i64 << 55 | 3 } else { 3 };
        let h = read(Scheme::HashSeq, wrong, InspectOptions::default());
        assert!(h.notes.iter().any(|n| n.contains("--hash-buckets")), "{:?}", h.notes);
        let n = read(Scheme::BitrevSeq, -5, InspectOptions::default());
        assert_eq!(n.kind, IdKind::Integer);
        assert!(n.notes[0].contains("not a bitrev-seq value"), "{:?}", n.notes);
        // Parameters out of range are clamped, never a panic.
        for (hash_buckets, shard_bits) in [(0, 0), (u16::MAX, u8::MAX)] {
            let odd = InspectOptions { hash_buckets, shard_bits, ..InspectOptions::default() };
            for scheme in [Scheme::HashSeq, Scheme::ShardBitsSeq] {
                assert_eq!(read(scheme, i64::MAX, odd).kind, IdKind::ShardAware(scheme));
            }
        }
        // Without a layout, the same integer is never read as one.
        let plain = inspect("4611686018427387904", &InspectOptions::default()).unwrap();
        assert!(!matches!(plain.kind, IdKind::ShardAware(_)));
    }
}
