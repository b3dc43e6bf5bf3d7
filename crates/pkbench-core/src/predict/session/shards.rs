//! `predict --shards`: where each strategy's rows land on a sharded database. No results
//! folder: the figures are printed, as a table or JSON.

use super::event::{PredictEvent, PredictObserver};
use super::request::{Format, PredictRequest};
use crate::Error;
use crate::engines::EngineKind;
use crate::keys::KeySettings;
use crate::predict::sharded::{self, ShardedConfig, ShardedPrediction};
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::{Strategy, parse_list};

/// A validated sharded forecast.
#[derive(Clone, Debug)]
pub struct ShardedPlan {
    /// The model's settings.
    pub config: ShardedConfig,
    /// The strategies, in order.
    pub strategies: Vec<&'static Strategy>,
    /// What is printed.
    pub format: Format,
}

impl ShardedPlan {
    /// The sharded model's plan of `request`: page-model flags are refused, and every strategy
    /// checked against the model.
    pub(super) fn from_request(request: &PredictRequest) -> Result<ShardedPlan, Error> {
        let config = config(request)?;
        let strategies = parse_list(&request.strategies)?;
        for s in &strategies {
            sharded::check_strategy(s, &config)?;
        }
        Ok(ShardedPlan { config, strategies, format: request.format })
    }

    /// Places each strategy's rows, telling `observer` which it is at.
    pub fn run(&self, observer: &mut dyn PredictObserver) -> Result<ShardedPrediction, Error> {
        let mut prediction = ShardedPrediction::new(&self.config);
        for &strategy in &self.strategies {
            observer.event(&PredictEvent::Placing { strategy: strategy.name, config: &self.config });
            prediction.forecasts.push(sharded::forecast(strategy, &self.config)?);
        }
        Ok(prediction)
    }
}

/// The sharded model's settings of `request`, checked.
fn config(request: &PredictRequest) -> Result<ShardedConfig, Error> {
    // Page-model flags would be silently ignored: refuse them.
    if request.schema.is_some() {
        return Err(Error::InvalidInput(
            "--schema is not modelled on shards: the sharded model (--shards) places the keys of pkbench's own table; leave --schema or --shards out".into(),
        ));
    }
    let own = [(request.engine != EngineKind::Sqlite).then_some("--engine"), request.page_size.map(|_| "--page-size")];
    request.refuse_page_model_flags(
        own,
        "the sharded model (--shards) is the same for every engine and prints its figures only",
    )?;
    let sharding = request.sharding.as_deref().map_or(Ok(Sharding::Range), Sharding::parse)?;
    let range_split_bytes = match request.range_split_mb {
        None => None,
        Some(mb) if mb.is_finite() && mb > 0.0 && mb <= 1e9 => Some((mb * 1048576.0).round().max(1.0) as u64),
        Some(mb) => {
            return Err(Error::InvalidInput(format!(
                "--range-split-mb {mb} is out of range: give MiB above 0, e.g. 512"
            )));
        }
    };
    let config = ShardedConfig {
        rows: request.rows,
        batch_rows: request.batch_rows,
        payload_bytes: request.payload_bytes,
        keys: KeySettings::from(request.seed),
        layout: ShardLayout { shards: request.shards.unwrap_or(ShardLayout::DEFAULT_SHARDS), sharding },
        range_split_bytes,
    };
    config.validate()?;
    Ok(config)
}
