//! [`ColumnGenerator`]: one column's values, row after row, from a seed.
//!
//! Each row draws from the column's ChaCha8 stream ([`KeyRng`]): whether it is NULL, then either
//! a fresh seed for its contents or the index of one of its distinct values. The contents come
//! from a SplitMix64 stream seeded by that draw, so distinct value `k` is the same value every
//! time it is drawn, and a value's contents never shift the stream of the rows after it.

use super::json::write_object;
use super::spec::{Alphabet, ColumnSpec, Lengths, Skew, ValueKind};
use super::{Value, calendar};
use crate::Error;
use crate::generators::{KeyRng, derive_seed};

/// Generates one column's values, deterministic for a seed; reuses its buffers, so a row costs
/// no allocation.
#[derive(Debug)]
pub struct ColumnGenerator {
    spec: ColumnSpec,
    rng: KeyRng,
    /// Seeds the contents of distinct value `k`.
    seed: u64,
    row: u64,
    zipf: Option<Zipf>,
    /// Cumulative shares of a length histogram's buckets.
    cumulative: Vec<f64>,
    text: String,
    bytes: Vec<u8>,
}

impl ColumnGenerator {
    /// A generator for `spec` fully determined by `seed`; fails if the spec is invalid.
    pub fn new(spec: ColumnSpec, seed: u64) -> Result<Self, Error> {
        spec.validate()?;
        let zipf = spec.distinct.and_then(|d| match d.skew {
            Skew::Zipf(s) => Some(Zipf::new(d.count, s)),
            Skew::Uniform => None,
        });
        let cumulative = match &spec.kind {
            ValueKind::Text { lengths: Lengths::Histogram(b), .. }
            | ValueKind::Binary { lengths: Lengths::Histogram(b) } => {
                let total: f64 = b.iter().map(|x| x.1).sum();
                let mut acc = 0.0;
                b.iter()
                    .map(|x| {
                        acc += x.1 / total;
                        acc
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut rng = KeyRng::seeded(seed);
        let seed = rng.next_u64();
        Ok(ColumnGenerator { spec, rng, seed, row: 0, zipf, cumulative, text: String::new(), bytes: Vec::new() })
    }

    /// The generator for `table.column` in a run seeded with `run_seed`: every engine given the
    /// same seed gets the same rows, and every column its own stream.
    pub fn for_column(spec: ColumnSpec, run_seed: u64, table: &str, column: &str) -> Result<Self, Error> {
        Self::new(spec, derive_seed(run_seed, table, column))
    }

    /// The spec this generator follows.
    pub fn spec(&self) -> &ColumnSpec {
        &self.spec
    }

    /// The next row's value, borrowed from the generator's buffers until the next call.
    pub fn next_value(&mut self) -> Value<'_> {
        let row = self.row;
        self.row += 1;
        let null_draw = self.rng.next_u64();
        if self.spec.null_share > 0.0 && unit(null_draw) < self.spec.null_share {
            return Value::Null;
        }
        let draw = self.rng.next_u64();
        match self.spec.distinct {
            None => self.fill(row, None, Mix(draw)),
            Some(d) => {
                let k = match &self.zipf {
                    Some(z) => z.sample(&mut self.rng) - 1,
                    None => below(draw, d.count),
                };
                let mix = Mix(self.seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                self.fill(row, Some((k, d.count)), mix)
            }
        }
    }

    /// Writes the value for row `row` (or distinct value `k` of `count`) with contents from `mix`.
    fn fill(&mut self, row: u64, distinct: Option<(u64, u64)>, mut mix: Mix) -> Value<'_> {
        use std::fmt::Write;
        self.text.clear();
        match &self.spec.kind {
            ValueKind::Integer { min, max } => {
                let span = (*max as i128 - *min as i128) as u128 + 1;
                let offset = match distinct {
                    // Few values per distinct one: space them evenly so none collide.
                    Some((k, count)) if span / u128::from(count) < 1024 => u128::from(k) * span / u128::from(count),
                    _ if span > u128::from(u64::MAX) => u128::from(mix.next()),
                    _ => u128::from(below(mix.next(), span as u64)),
                };
                Value::Int((*min as i128 + offset as i128) as i64)
            }
            ValueKind::Decimal { precision, scale } => {
                let unscaled =
                    ((u128::from(mix.next()) << 64) | u128::from(mix.next())) % 10u128.pow((*precision).into());
                let unit = 10u128.pow((*scale).into());
                let _ = write!(self.text, "{}", unscaled / unit);
                if *scale > 0 {
                    let _ = write!(self.text, ".{:0width$}", unscaled % unit, width = usize::from(*scale));
                }
                Value::Decimal(&self.text)
            }
            ValueKind::Float { min, max } => {
                let value = min + unit(mix.next()) * (max - min);
                let _ = write!(self.text, "{value}");
                Value::Float { value, text: &self.text }
            }
            ValueKind::Text { lengths, alphabet } => {
                let len = draw_length(lengths, &self.cumulative, &mut mix);
                write_text(&mut self.text, alphabet, len, &mut mix);
                Value::Text(&self.text)
            }
            ValueKind::Binary { lengths } => {
                let len = draw_length(lengths, &self.cumulative, &mut mix) as usize;
                self.bytes.clear();
                while self.bytes.len() < len {
                    let word = mix.next().to_le_bytes();
                    self.bytes.extend_from_slice(&word[..(len - self.bytes.len()).min(8)]);
                }
                Value::Bytes(&self.bytes)
            }
            ValueKind::Uuid => {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&mix.next().to_be_bytes());
                b[8..].copy_from_slice(&mix.next().to_be_bytes());
                b[6] = (b[6] & 0x0f) | 0x40;
                b[8] = (b[8] & 0x3f) | 0x80;
                Value::Uuid(b)
            }
            ValueKind::Bool => Value::Bool(mix.next() >> 63 == 1),
            ValueKind::Date { start_day, span_days } => {
                let day = start_day.saturating_add(below(mix.next(), u64::from(*span_days)) as i32);
                calendar::write_date(&mut self.text, day);
                Value::Date { day, text: &self.text }
            }
            ValueKind::Timestamp { monotonic, start_us, step_us } => {
                // Row time, or distinct value k's; non-monotonic values fall between start and it.
                let n = distinct.map_or(row, |(k, _)| k);
                let offset = u128::from(n) * u128::from(*step_us);
                let offset = if *monotonic {
                    offset
                } else {
                    u128::from(below(mix.next(), (offset + 1).min(u64::MAX.into()) as u64))
                };
                let micros = start_us.saturating_add(offset.min(i64::MAX as u128) as i64);
                calendar::write_timestamp(&mut self.text, micros);
                Value::Timestamp { micros, text: &self.text }
            }
            ValueKind::Json { min_bytes, max_bytes } => {
                let target = *min_bytes as u64 + below(mix.next(), u64::from(max_bytes - min_bytes) + 1);
                write_object(&mut self.text, target as usize, &mut || mix.next());
                Value::Json(&self.text)
            }
            ValueKind::Enum { values } => {
                let i = match distinct {
                    Some((k, _)) => (k % values.len() as u64) as usize,
                    None => below(mix.next(), values.len() as u64) as usize,
                };
                Value::Text(&values[i])
            }
        }
    }
}

/// Writes `len` characters of `alphabet` into `out` (cleared by the caller).
fn write_text(out: &mut String, alphabet: &Alphabet, len: u32, mix: &mut Mix) {
    match alphabet {
        Alphabet::Chars(chars) => {
            for _ in 0..len {
                out.push(chars[below(mix.next(), chars.len() as u64) as usize]);
            }
        }
        Alphabet::Words(words) => {
            let mut n = 0;
            while n < len {
                if n > 0 {
                    out.push(' ');
                    n += 1;
                }
                for c in words[below(mix.next(), words.len() as u64) as usize].chars() {
                    if n == len {
                        break;
                    }
                    out.push(c);
                    n += 1;
                }
            }
        }
    }
}

fn draw_length(lengths: &Lengths, cumulative: &[f64], mix: &mut Mix) -> u32 {
    match lengths {
        Lengths::Range { min, max } => min + below(mix.next(), u64::from(max - min) + 1) as u32,
        Lengths::Histogram(buckets) => {
            let u = unit(mix.next());
            let i = cumulative.partition_point(|c| *c <= u).min(buckets.len() - 1);
            buckets[i].0
        }
    }
}

/// SplitMix64: a fast stream for a value's contents.
#[derive(Clone, Copy, Debug)]
struct Mix(u64);

impl Mix {
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `x` mapped onto `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
#[inline]
fn below(x: u64, n: u64) -> u64 {
    ((u128::from(x) * u128::from(n)) >> 64) as u64
}

/// `x` as a float in `[0, 1)`.
#[inline]
fn unit(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Zipf over ranks `1..=n` by rejection-inversion (Hörmann and Derflinger, 1996): constant
/// time per draw whatever `n`, as in `rand_distr`'s `Zipf`.
#[derive(Clone, Copy, Debug)]
struct Zipf {
    n: f64,
    s: f64,
    t: f64,
    q: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Self {
        let n = n as f64;
        let one_s = 1.0 - s;
        let q = if s != 1.0 { 1.0 / one_s } else { 0.0 };
        let t = if s != 1.0 { (n.powf(one_s) - s) * q } else { 1.0 + n.ln() };
        Zipf { n, s, t, q }
    }

    fn inv_cdf(&self, p: f64) -> f64 {
        let pt = p * self.t;
        if pt <= 1.0 {
            pt
        } else if self.s != 1.0 {
            (pt * (1.0 - self.s) + self.s).powf(self.q)
        } else {
            (pt - 1.0).exp()
        }
    }

    /// A rank in `1..=n`.
    fn sample(&self, rng: &mut KeyRng) -> u64 {
        loop {
            let inv_b = self.inv_cdf(unit(rng.next_u64()));
            let x = (inv_b + 1.0).floor().min(self.n);
            let mut ratio = x.powf(-self.s);
            if x > 1.0 {
                ratio *= inv_b.powf(self.s);
            }
            if unit(rng.next_u64()) < ratio {
                return x as u64;
            }
        }
    }
}
