//! Decoding 64-bit integer IDs: Snowflake fields, masked integers when the key is known, and the
//! shard-aware layouts when asked for one.

use super::{Field, IdKind, IdValue, InspectOptions, Inspection, Timestamp, plausible_ms};
use crate::generators::{FeistelMask, SnowflakeParts};

pub(super) fn inspect_int(v: i64, options: &InspectOptions) -> Inspection {
    let mut out = Inspection {
        value: IdValue::Int(v),
        encoding: None,
        kind: IdKind::Integer,
        version: None,
        variant: None,
        time: None,
        fields: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(layout) = options.layout.filter(|s| super::shard_aware_layout(*s)) {
        super::shard_aware::decode(layout, v, options, &mut out);
    } else if let Some(parts) = SnowflakeParts::of(v) {
        let ms = i128::from(options.snowflake_epoch_ms) + i128::from(parts.elapsed_ms);
        // Small integers decode to the epoch itself; only call it a Snowflake past the first day.
        if parts.elapsed_ms > 86_400_000 && plausible_ms(ms) {
            out.kind = IdKind::Snowflake;
            out.time = Some(Timestamp::from_unix_ms(ms));
            out.fields.push(Field { name: "elapsed", value: format!("{} ms since the epoch", parts.elapsed_ms) });
            out.fields.push(Field { name: "worker", value: parts.worker.to_string() });
            out.fields.push(Field { name: "sequence", value: parts.sequence.to_string() });
            out.notes.push(format!(
                "read as a Snowflake with epoch {} (Unix ms); pass --epoch for another",
                options.snowflake_epoch_ms
            ));
        }
    }
    if let Some(key) = options.mask_key {
        match FeistelMask::new(key).unmask(v) {
            Some(plain) => {
                out.fields.push(Field { name: "unmasked", value: format!("{plain} (masked-int sequence value)") })
            }
            None => out.notes.push("negative: not a masked-int value".into()),
        }
    }
    if out.kind == IdKind::Integer && v > 0 && options.layout.is_none() {
        out.notes.push("a plain integer reveals its count and order".into());
    }
    out
}
