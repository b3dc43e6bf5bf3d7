//! The size advise forecasts: `--rows N`, or `--growth RATE/day --horizon DURATION` on top of
//! the rows the table holds today, or by default ten times today's rows (100M for a new table).

use crate::Error;
use crate::config::values::parse_count;
use crate::util::text::thousands;
use serde::{Deserialize, Serialize};

/// Rows a new table (no rows today) is forecast at by default.
pub const NEW_TABLE_DEFAULT_ROWS: u64 = 100_000_000;

/// How many times today's rows an existing table is forecast at by default.
pub const DEFAULT_GROWTH_FACTOR: u64 = 10;

/// What the user asked the forecast to reach.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TargetRequest {
    /// `--rows N`: the final size.
    pub rows: Option<u64>,
    /// `--growth RATE/day`: new rows per day.
    pub growth: Option<String>,
    /// `--horizon DURATION`: how long the growth lasts (`90d`, `18mo`, `3y`).
    pub horizon: Option<String>,
}

/// The forecast's final size and how it was chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// Rows at the target.
    pub rows: u64,
    /// How the target was chosen, in words (e.g. `10× today's 1,000,000 rows`).
    pub chosen_by: String,
}

impl TargetRequest {
    /// The target for a table holding `rows_now` rows today. Refuses `--growth` without
    /// `--horizon` (and the reverse), `--rows` with either, and a target below today's rows.
    pub fn resolve(&self, rows_now: u64) -> Result<Target, Error> {
        let target = match (self.rows, &self.growth, &self.horizon) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(Error::InvalidInput(
                    "--rows gives the final size; --growth with --horizon computes it: give one of them".into(),
                ));
            }
            (None, Some(_), None) => {
                return Err(Error::InvalidInput(
                    "--growth needs --horizon: say how long the table grows at that rate (e.g. --horizon 3y)".into(),
                ));
            }
            (None, None, Some(_)) => {
                return Err(Error::InvalidInput(
                    "--horizon needs --growth: say how many rows a day the table gains (e.g. --growth 2M/day)".into(),
                ));
            }
            (Some(rows), None, None) => Target { rows, chosen_by: "--rows".into() },
            (None, Some(growth), Some(horizon)) => {
                let per_day = parse_growth(growth)?;
                let days = parse_horizon_days(horizon)?;
                let added = (per_day as f64 * days).round();
                if !added.is_finite() || added > (u64::MAX - rows_now) as f64 {
                    return Err(Error::InvalidInput(format!(
                        "--growth {growth} for --horizon {horizon} is more rows than a table can count: give a smaller rate or horizon"
                    )));
                }
                Target {
                    rows: rows_now + added as u64,
                    chosen_by: format!("{} rows today + {growth} for {horizon}", thousands(rows_now)),
                }
            }
            (None, None, None) if rows_now == 0 => {
                Target { rows: NEW_TABLE_DEFAULT_ROWS, chosen_by: "the default for a new table".into() }
            }
            (None, None, None) => Target {
                rows: rows_now.saturating_mul(DEFAULT_GROWTH_FACTOR),
                chosen_by: format!("{DEFAULT_GROWTH_FACTOR}× today's {} rows", thousands(rows_now)),
            },
        };
        if target.rows <= rows_now {
            return Err(Error::InvalidInput(format!(
                "the target ({} rows) is not above the {} rows the table holds today: give a larger --rows",
                thousands(target.rows),
                thousands(rows_now)
            )));
        }
        Ok(target)
    }
}

/// `2M/day`, `500k/d`, `40000/day`: rows per day.
fn parse_growth(text: &str) -> Result<u64, Error> {
    let bad =
        || Error::InvalidInput(format!("--growth '{text}' is not a rate: give rows per day, e.g. 2M/day or 50k/day"));
    let (count, unit) = text.trim().split_once('/').ok_or_else(bad)?;
    if !matches!(unit.trim(), "day" | "d") {
        return Err(bad());
    }
    let per_day = parse_count(count).map_err(|_| bad())?;
    if per_day == 0 {
        return Err(Error::InvalidInput(format!(
            "--growth '{text}' adds nothing: give the rows a day the table gains, e.g. 2M/day"
        )));
    }
    Ok(per_day)
}

/// `90d`, `6w`, `18mo`, `3y` (a year of 365.25 days, a month of a twelfth of it): days.
fn parse_horizon_days(text: &str) -> Result<f64, Error> {
    let bad = || {
        Error::InvalidInput(format!(
            "--horizon '{text}' is not a duration: give a number with d, w, mo or y (e.g. 90d, 18mo, 3y)"
        ))
    };
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).ok_or_else(bad)?;
    let (number, unit) = t.split_at(split);
    let days_per_unit = match unit {
        "d" | "day" | "days" => 1.0,
        "w" | "week" | "weeks" => 7.0,
        "mo" | "month" | "months" => 365.25 / 12.0,
        "y" | "year" | "years" => 365.25,
        _ => return Err(bad()),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !value.is_finite() || value <= 0.0 {
        return Err(bad());
    }
    Ok(value * days_per_unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(rows: Option<u64>, growth: Option<&str>, horizon: Option<&str>) -> TargetRequest {
        TargetRequest { rows, growth: growth.map(Into::into), horizon: horizon.map(Into::into) }
    }

    #[test]
    fn defaults_to_ten_times_today_or_100m_for_a_new_table() {
        assert_eq!(request(None, None, None).resolve(1_000_000).unwrap().rows, 10_000_000);
        assert_eq!(request(None, None, None).resolve(0).unwrap().rows, NEW_TABLE_DEFAULT_ROWS);
    }

    #[test]
    fn growth_over_a_horizon_adds_to_today() {
        let t = request(None, Some("2M/day"), Some("3y")).resolve(5_000_000).unwrap();
        assert_eq!(t.rows, 5_000_000 + 2_191_500_000);
        assert!(t.chosen_by.contains("2M/day for 3y"), "{}", t.chosen_by);
        assert_eq!(request(None, Some("1k/d"), Some("18mo")).resolve(0).unwrap().rows, 547_875);
    }

    #[test]
    fn refuses_what_cannot_be_a_target() {
        let refusal = |r: TargetRequest, now| r.resolve(now).unwrap_err().to_string();
        assert!(refusal(request(None, Some("2M/day"), None), 0).contains("--growth needs --horizon"));
        assert!(refusal(request(None, None, Some("3y")), 0).contains("--horizon needs --growth"));
        assert!(refusal(request(Some(5), Some("1/day"), Some("1d")), 0).contains("give one of them"));
        assert!(refusal(request(Some(1000), None, None), 5000).contains("not above the 5,000 rows"));
        assert!(refusal(request(None, Some("2M"), Some("3y")), 0).contains("e.g. 2M/day"));
        assert!(refusal(request(None, Some("2M/day"), Some("3")), 0).contains("e.g. 90d"));
        assert!(refusal(request(None, Some("0/day"), Some("3y")), 0).contains("adds nothing"));
    }
}
