//! Axes: mapping data values to pixels, and "nice" tick values a reader can take in at a glance.

/// How values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// `lo..hi` maps linearly onto the range.
    Linear {
        /// Smallest value on the axis.
        lo: f64,
        /// Largest value on the axis.
        hi: f64,
    },
    /// `lo..hi` (both > 0) maps by logarithm onto the range.
    Log {
        /// Smallest value on the axis, > 0.
        lo: f64,
        /// Largest value on the axis.
        hi: f64,
    },
}

impl Scale {
    /// A linear axis from 0 to a round number at or above `max`, and its ticks (about `target`).
    pub fn linear_from_zero(max: f64, target: usize) -> (Scale, Vec<f64>) {
        let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
        let step = nice_step(max / target.max(1) as f64);
        let hi = (max / step - 1e-9).ceil().max(1.0) * step;
        let ticks = (0..=((hi / step).round() as usize)).map(|i| i as f64 * step).collect();
        (Scale::Linear { lo: 0.0, hi }, ticks)
    }

    /// A linear axis from 0 to exactly `max` (bars fill the width), ticked at round values up to
    /// it (about `target` of them).
    pub fn linear_to(max: f64, target: usize) -> (Scale, Vec<f64>) {
        let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
        let step = nice_step(max / target.max(1) as f64);
        let ticks = (0..).map(|i| i as f64 * step).take_while(|t| *t <= max * (1.0 + 1e-9)).collect();
        (Scale::Linear { lo: 0.0, hi: max }, ticks)
    }

    /// A log axis over whole powers of ten around `min..max`, ticked at 1, 2 and 5 × 10ⁿ (or
    /// only at powers of ten when the axis spans many of them). Non-positive input is clamped.
    pub fn log(min: f64, max: f64) -> (Scale, Vec<f64>) {
        let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
        let min = if min.is_finite() && min > 0.0 { min.min(max) } else { max / 10.0 };
        let mut lo = 10f64.powf(min.log10().floor());
        let mut hi = 10f64.powf(max.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        // Tighten to the 1-2-5 steps around the data, so a narrow range still fills the plot.
        for m in [5.0, 2.0] {
            if lo * m <= min {
                lo *= m;
                break;
            }
        }
        for m in [0.2, 0.5] {
            if hi * m >= max {
                hi *= m;
                break;
            }
        }
        let decades = (hi / lo).log10();
        let mantissas: &[f64] = if decades > 4.0 { &[1.0] } else { &[1.0, 2.0, 5.0] };
        let mut ticks = Vec::new();
        let mut p = 10f64.powf(lo.log10().floor());
        while p <= hi * 1.0001 {
            for m in mantissas {
                let t = p * m;
                if t >= lo * 0.9999 && t <= hi * 1.0001 {
                    ticks.push(t);
                }
            }
            p *= 10.0;
        }
        (Scale::Log { lo, hi }, ticks)
    }

    /// Maps `v` onto `r0..r1` (values outside the domain are clamped to it).
    pub fn map(&self, v: f64, r0: f64, r1: f64) -> f64 {
        let t = match *self {
            Scale::Linear { lo, hi } => (v - lo) / (hi - lo),
            Scale::Log { lo, hi } => (v.max(lo * 1e-3).ln() - lo.ln()) / (hi.ln() - lo.ln()),
        };
        let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
        r0 + (r1 - r0) * t
    }
}

/// The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * p).find(|s| *s >= raw * (1.0 - 1e-9)).unwrap_or(10.0 * p)
}

/// A tick value as a short number: `0`, `2.5`, `200k`, `1.5M`.
pub fn short_number(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    };
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(format!("{:.2}", v / 1e9)))
    } else if a >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.2}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_data() {
        let (scale, ticks) = Scale::linear_from_zero(1725.0, 5);
        assert_eq!(scale, Scale::Linear { lo: 0.0, hi: 2000.0 });
        assert_eq!(ticks, vec![0.0, 500.0, 1000.0, 1500.0, 2000.0]);
        assert_eq!(Scale::linear_from_zero(0.0, 5).0, Scale::Linear { lo: 0.0, hi: 1.0 });
    }

    #[test]
    fn bar_axes_end_at_the_data() {
        let (scale, ticks) = Scale::linear_to(10.2, 3);
        assert_eq!(scale, Scale::Linear { lo: 0.0, hi: 10.2 });
        assert_eq!(ticks, vec![0.0, 5.0, 10.0]);
    }

    #[test]
    fn log_ticks_follow_one_two_five() {
        let (scale, ticks) = Scale::log(108.0, 2087.0);
        assert_eq!(scale, Scale::Log { lo: 100.0, hi: 5000.0 });
        assert_eq!(ticks, vec![100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0]);
        let (_, wide) = Scale::log(0.001, 1e6);
        assert!(wide.iter().all(|t| (t.log10() - t.log10().round()).abs() < 1e-9), "{wide:?}");
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(200_000.0), "200k");
        assert_eq!(short_number(1_500_000.0), "1.5M");
        assert_eq!(short_number(2.5), "2.5");
        assert_eq!(short_number(500.0), "500");
        assert_eq!(short_number(12_500.0), "12.5k");
    }

    proptest! {
        #[test]
        fn linear_domain_holds_the_maximum(max in 1e-6f64..1e12, target in 1usize..10) {
            let (scale, ticks) = Scale::linear_from_zero(max, target);
            let Scale::Linear { hi, .. } = scale else { unreachable!() };
            prop_assert!(hi >= max * (1.0 - 1e-9));
            prop_assert!(ticks.len() >= 2 && ticks.len() <= 2 * target + 2);
            prop_assert!((ticks[ticks.len() - 1] - hi).abs() <= hi * 1e-9);
        }

        #[test]
        fn log_domain_holds_the_data(a in 1e-6f64..1e9, b in 1e-6f64..1e9) {
            let (min, max) = if a <= b { (a, b) } else { (b, a) };
            let (scale, ticks) = Scale::log(min, max);
            let Scale::Log { lo, hi } = scale else { unreachable!() };
            prop_assert!(lo <= min * (1.0 + 1e-9) && hi >= max * (1.0 - 1e-9));
            prop_assert!(!ticks.is_empty());
        }

        #[test]
        fn mapping_is_monotone_and_stays_in_range(a in 0.0f64..1e6, b in 0.0f64..1e6, max in 1.0f64..1e6) {
            for scale in [Scale::linear_from_zero(max, 5).0, Scale::log(1.0, max).0] {
                let (x, y) = (scale.map(a.min(b), 300.0, 0.0), scale.map(a.max(b), 300.0, 0.0));
                prop_assert!(y <= x + 1e-9);
                prop_assert!((0.0..=300.0).contains(&x) && (0.0..=300.0).contains(&y));
            }
        }
    }
}
