//! A results folder is never shared: a new run or prediction goes into an empty or new folder,
//! so no file of an earlier run (a stale `phases.csv`, a half-written database) stays beside the
//! new results.

use anyhow::bail;
use std::path::Path;

/// Checks `dir` can take a new run's results: it does not exist or is empty. With `force`, a
/// folder that holds a pkbench `results.json` is emptied first; any other folder is refused.
pub fn prepare(dir: &Path, force: bool) -> anyhow::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        bail!("--out '{}' is a file: give a folder for the results", dir.display());
    }
    let mut entries = std::fs::read_dir(dir)?;
    if entries.next().is_none() {
        return Ok(());
    }
    if !force {
        bail!(
            "'{}' already holds files: pkbench never mixes a new run into an old one; choose another --out (or add --force to replace an earlier pkbench results folder)",
            dir.display()
        );
    }
    if !dir.join("results.json").is_file() {
        bail!(
            "'{}' is not a pkbench results folder (no results.json): --force only replaces those; choose another --out",
            dir.display()
        );
    }
    std::fs::remove_dir_all(dir).map_err(|e| anyhow::anyhow!("could not empty '{}': {e}", dir.display()))?;
    Ok(())
}
