//! How much time reading the engine's counters may take beside inserting, and the account that
//! keeps each case within it.
//!
//! A counter read is the harness's own work: it delays the next batch, so a run that reads
//! counters after every 100-row batch, or reads a whole batch's WAL back, measures pkbench more
//! than the engine. Each case earns a share of its inserting time and spends it on counter
//! reads; a read it cannot afford waits for a later batch (cheap counters then cover several
//! batches) or is skipped (the costly WAL figures are then measured on the batches that could
//! afford them, and every per-1,000-rows figure is divided by the rows it covered).

use std::fmt;
use std::str::FromStr;

/// The share of inserting time counter reads may take, or no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterBudget {
    /// At most this many thousandths of the inserting time so far.
    PerMille(u32),
    /// Every counter after every batch, whatever it costs (`--counter-budget unlimited`).
    Unlimited,
}

impl Default for CounterBudget {
    /// 5% of the inserting time.
    fn default() -> Self {
        CounterBudget::PerMille(50)
    }
}

impl fmt::Display for CounterBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CounterBudget::PerMille(m) if m % 10 == 0 => write!(f, "{}%", m / 10),
            CounterBudget::PerMille(m) => write!(f, "{}.{}%", m / 10, m % 10),
            CounterBudget::Unlimited => f.write_str("unlimited"),
        }
    }
}

impl FromStr for CounterBudget {
    type Err = String;

    /// `5`, `5%`, `2.5%` or `unlimited`.
    fn from_str(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("unlimited") {
            return Ok(CounterBudget::Unlimited);
        }
        let number = text.strip_suffix('%').unwrap_or(text).trim();
        let bad = || {
            format!(
                "'{text}' is not a counter budget: give a percentage of the inserting time (e.g. 5%) or 'unlimited'"
            )
        };
        let percent: f64 = number.parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&percent) {
            return Err(bad());
        }
        Ok(CounterBudget::PerMille((percent * 10.0).round() as u32))
    }
}

/// One case's account: what it earned by inserting, what counter reads cost.
#[derive(Clone, Copy, Debug)]
pub struct CounterAccount {
    budget: CounterBudget,
    balance_ns: f64,
}

impl CounterAccount {
    /// An empty account under `budget`.
    pub fn new(budget: CounterBudget) -> Self {
        CounterAccount { budget, balance_ns: 0.0 }
    }

    /// Credits the share of `insert_ns` of inserting time.
    pub fn earn(&mut self, insert_ns: u64) {
        if let CounterBudget::PerMille(m) = self.budget {
            self.balance_ns += insert_ns as f64 * f64::from(m) / 1000.0;
        }
    }

    /// Whether a read expected to take `cost_ns` fits what is left.
    pub fn affords(&self, cost_ns: f64) -> bool {
        match self.budget {
            CounterBudget::Unlimited => true,
            CounterBudget::PerMille(_) => cost_ns <= self.balance_ns,
        }
    }

    /// Debits a read that took `ns` (the balance may go negative: the next reads then wait).
    pub fn spend(&mut self, ns: u64) {
        self.balance_ns -= ns as f64;
    }
}

/// A running estimate of one kind of read's cost per unit of work (e.g. ns per WAL byte), from
/// the reads done so far, with a cautious guess before the first.
#[derive(Clone, Copy, Debug)]
pub struct CostRate {
    ns: f64,
    units: f64,
    guess_ns_per_unit: f64,
}

impl CostRate {
    /// No reads yet: `guess_ns_per_unit` until the first.
    pub const fn new(guess_ns_per_unit: f64) -> Self {
        CostRate { ns: 0.0, units: 0.0, guess_ns_per_unit }
    }

    /// Records a read of `units` that took `ns`.
    pub fn record(&mut self, units: u64, ns: u64) {
        self.units += units as f64;
        self.ns += ns as f64;
    }

    /// Expected time of a read of `units`.
    pub fn expected_ns(&self, units: u64) -> f64 {
        let per_unit = if self.units > 0.0 { self.ns / self.units } else { self.guess_ns_per_unit };
        per_unit * units as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_percentages_and_unlimited() {
        assert_eq!("5".parse(), Ok(CounterBudget::PerMille(50)));
        assert_eq!("2.5%".parse(), Ok(CounterBudget::PerMille(25)));
        assert_eq!("unlimited".parse(), Ok(CounterBudget::Unlimited));
        assert!("150%".parse::<CounterBudget>().is_err());
        assert!("lots".parse::<CounterBudget>().unwrap_err().contains("e.g. 5%"));
        assert_eq!(CounterBudget::default().to_string(), "5%");
        assert_eq!(CounterBudget::PerMille(25).to_string(), "2.5%");
    }

    #[test]
    fn an_account_affords_only_what_inserting_earned() {
        let mut a = CounterAccount::new(CounterBudget::PerMille(50));
        assert!(!a.affords(1.0));
        a.earn(1_000_000);
        assert!(a.affords(50_000.0));
        assert!(!a.affords(50_001.0));
        a.spend(80_000);
        a.earn(1_000_000);
        assert!(a.affords(20_000.0) && !a.affords(20_001.0));
        assert!(CounterAccount::new(CounterBudget::Unlimited).affords(1e18));
    }

    #[test]
    fn a_cost_rate_learns_from_reads() {
        let mut r = CostRate::new(10.0);
        assert_eq!(r.expected_ns(5), 50.0);
        r.record(100, 200);
        assert_eq!(r.expected_ns(5), 10.0);
    }
}
