//! The key settings of a run: the virtual clock's key rate and each scheme's parameters, and
//! which schemes each key setting shapes.

use super::settings::{RunSettings, Setting};
use super::workload_kind::{Scope, scope};
use crate::Error;
use crate::generators::{Scheme, SchemeParams, VirtualClock};
use crate::keys::{KeySettings, strategy_schemes};
use crate::strategy::Strategy;

/// The schemes a key setting shapes; `None` for a setting that is not a key setting.
pub fn shaped_by(setting: Setting) -> Option<fn(Scheme) -> bool> {
    match scope(setting) {
        Scope::Keys(uses) => Some(uses),
        Scope::Workloads(_) | Scope::Strategies | Scope::Every => None,
    }
}

/// The schemes' parameters of `settings` (defaults filled in), checked.
pub fn scheme_params(settings: &RunSettings) -> Result<SchemeParams, Error> {
    let params = SchemeParams {
        v7_method: settings.v7_method(),
        snowflake_epoch_ms: settings.epoch(),
        snowflake_worker: settings.worker(),
        snowflake_workers: settings.worker_count(),
        hash_buckets: settings.hash_buckets(),
        shard_bits: settings.shard_bits(),
        mask_key: settings.key,
        seq_block_size: settings.block_size(),
        seq_block_count: settings.block_count(),
        time_interval_secs: settings.interval(),
        time_interval_count: settings.interval_count(),
    };
    params.validate().map_err(|e| Error::InvalidInput(e.to_string()))?;
    Ok(params)
}

/// The key rate, checked.
pub fn key_rate(settings: &RunSettings) -> Result<u64, Error> {
    match settings.key_rate {
        Some(0) => Err(Error::InvalidInput(
            "--key-rate 0 stops time: use a positive rate in rows per second (e.g. --key-rate 1000)".into(),
        )),
        Some(r) => Ok(r),
        None => Ok(VirtualClock::DEFAULT_KEYS_PER_S),
    }
}

/// Seed, rate and parameters of the run's key streams, which read the virtual clock.
pub fn key_settings(settings: &RunSettings) -> Result<KeySettings, Error> {
    let params = scheme_params(settings)?;
    check_virtual_epoch(&params)?;
    Ok(KeySettings { seed: settings.seed(), rate: key_rate(settings)?, params })
}

/// Refuses a Snowflake epoch after the start of the virtual clock seeded key streams read.
pub fn check_virtual_epoch(params: &SchemeParams) -> Result<(), Error> {
    params
        .check_epoch(VirtualClock::DEFAULT_START_MS, "the start of the seeded streams' virtual clock")
        .map_err(|e| Error::InvalidInput(e.to_string()))
}

/// Refuses a key setting given that none of `strategies` uses, naming the schemes it is for.
pub fn refuse_unused(given: &[Setting], strategies: &[&Strategy]) -> Result<(), Error> {
    for setting in given {
        let Some(uses) = shaped_by(*setting) else { continue };
        if strategies.iter().flat_map(|s| strategy_schemes(s)).any(uses) {
            continue;
        }
        let for_schemes: Vec<&str> = Scheme::ALL.into_iter().filter(|s| uses(*s)).map(Scheme::name).collect();
        let names: Vec<&str> = strategies.iter().map(|s| s.name).collect();
        return Err(Error::InvalidInput(format!(
            "{} shapes {} keys, and none of -s {} uses them: remove it",
            setting.flag(),
            for_schemes.join(", "),
            names.join(",")
        )));
    }
    Ok(())
}
