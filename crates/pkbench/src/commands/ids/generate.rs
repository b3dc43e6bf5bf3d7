//! `pkbench ids gen`: N IDs on stdout, one per line, through a large buffer and stack-encoded
//! text (no allocation per ID), fast enough to pipe tens of millions.

use super::{GenArgs, IdFormat};
use crate::output::say;
use anyhow::{Context, bail};
use pkbench_core::generators::{Key, KeyRng, Scheme, TextEncoding, VirtualClock, derive_seed};
use std::io::Write;
use std::process::ExitCode;

pub fn generate(args: GenArgs) -> anyhow::Result<ExitCode> {
    let scheme = args.scheme;
    let encoding = encoding_for(scheme, args.format)?;
    let mut params = args.params.params()?;
    if args.seed.is_none() && args.params.key_rate_given() {
        bail!(
            "--key-rate paces the virtual clock of a seeded stream: add --seed, or remove --key-rate to use the real clock"
        );
    }
    let rate = args.params.rate()?;
    if args.seed.is_some() {
        // A seeded stream reads the virtual clock, which starts at a fixed time.
        pkbench_core::config::keys::check_virtual_epoch(&params)?;
    }
    let (rng, clock): (KeyRng, Box<dyn pkbench_core::generators::Clock>) = match args.seed {
        Some(seed) => (
            KeyRng::seeded(derive_seed(seed, scheme.name(), "primary")),
            Box::new(VirtualClock::at_rate(VirtualClock::DEFAULT_START_MS, rate)),
        ),
        None => {
            if scheme == Scheme::MaskedInt && params.mask_key.is_none() {
                let key = KeyRng::from_os()?.next_u64();
                say!(
                    "masked-int key: {key} (pass --key {key} to repeat the mapping; `ids inspect --key {key}` unmasks)"
                );
                params.mask_key = Some(key);
            }
            (KeyRng::from_os()?, scheme.production_clock(&params))
        }
    };
    let mut generator = scheme.build(&params, rng, clock)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut text = [0u8; 36];
    let mut digits = [0u8; 20];
    let mut write_all = || -> std::io::Result<()> {
        for _ in 0..args.count {
            let line: &[u8] = match (generator.next_key(), encoding) {
                (Key::Int(v), _) => format_i64(v, &mut digits),
                (Key::Uuid(b), Some(e)) => e.encode(&b, &mut text).as_bytes(),
                (Key::Uuid(b), None) => TextEncoding::Hyphenated.encode(&b, &mut text).as_bytes(),
            };
            out.write_all(line)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    };
    // A reader that went away (`| head`) ends the command as it ends `list`: `main` exits 141.
    write_all().context("could not write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// The text encoding for 16-byte keys (`None` for integer schemes).
fn encoding_for(scheme: Scheme, format: IdFormat) -> anyhow::Result<Option<TextEncoding>> {
    if scheme.is_integer() {
        if matches!(format, IdFormat::Hex | IdFormat::Base32) {
            bail!(
                "{scheme} IDs are 64-bit integers: use --format int (or text); hex and base32 apply to 128-bit schemes"
            );
        }
        return Ok(None);
    }
    Ok(Some(match format {
        IdFormat::Text => scheme.text_encoding(),
        IdFormat::Hex => TextEncoding::Hex,
        IdFormat::Base32 => TextEncoding::Base32,
        IdFormat::Int => {
            bail!("{scheme} IDs are 128 bits and do not fit a 64-bit integer: use --format text, hex or base32")
        }
    }))
}

/// Writes `v` in decimal into `buf` and returns the digits.
fn format_i64(v: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_format_like_display() {
        let mut buf = [0u8; 20];
        for v in [0, 7, -7, 1_234_567_890, i64::MAX, i64::MIN] {
            assert_eq!(format_i64(v, &mut buf), v.to_string().as_bytes());
        }
    }
}
