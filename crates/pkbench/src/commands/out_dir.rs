//! A results folder is never shared: a new run or prediction goes into an empty or new folder,
//! so no file of an earlier run (a stale `phases.csv`, a half-written database) stays beside the
//! new results. `--force` replaces an earlier pkbench results folder by removing exactly the
//! files its manifest lists ([`pkbench_core::util::folder`]) — never a file pkbench did not write,
//! and never the folder the command runs in.

use anyhow::bail;
use pkbench_core::report::{JOURNAL_FILE, load_results, recover};
use pkbench_core::util::folder;
use std::path::{Path, PathBuf};

/// A results folder made ready for a new run: whether pkbench creates it, so that a start that
/// measured nothing can take it away again ([`Prepared::discard_unless_measured`]).
#[derive(Debug)]
pub struct Prepared {
    dir: PathBuf,
    created: bool,
}

/// Checks `dir` can take a new run's results: it does not exist or is empty. With `force`, a
/// pkbench results folder is emptied of pkbench's files first; a folder holding anything else,
/// one without a manifest, and the current folder or one holding it are refused, and nothing is
/// removed.
pub fn prepare(dir: &Path, force: bool) -> anyhow::Result<Prepared> {
    let prepared = Prepared { dir: dir.to_path_buf(), created: std::fs::symlink_metadata(dir).is_err() };
    if prepared.created {
        return Ok(prepared);
    }
    if !dir.is_dir() {
        bail!("--out '{}' is a file: give a folder for the results", dir.display());
    }
    let mut entries = std::fs::read_dir(dir)?;
    if entries.next().is_none() {
        return Ok(prepared);
    }
    if !force {
        bail!(
            "'{}' already holds files: pkbench never mixes a new run into an old one; choose another --out (or add --force to replace an earlier pkbench results folder)",
            dir.display()
        );
    }
    refuse_the_current_folder(dir)?;
    folder::clear(dir)?;
    Ok(prepared)
}

/// Refuses `dir` when it is the current folder or holds it: `--force` never empties the folder
/// a command runs in.
fn refuse_the_current_folder(dir: &Path) -> anyhow::Result<()> {
    let here = std::env::current_dir().and_then(|d| d.canonicalize());
    let there = dir.canonicalize();
    if let (Ok(here), Ok(there)) = (&here, &there)
        && !here.starts_with(there)
    {
        return Ok(());
    }
    bail!(
        "'{}' is the current folder or holds it: --force never empties the folder you are in, so nothing was removed; choose another --out",
        dir.display()
    )
}

impl Prepared {
    /// After a run or prediction that stopped without measuring anything (a start that failed, a
    /// stop before the first batch): removes what pkbench wrote in the folder, and the folder if
    /// pkbench created it. A folder holding a measured batch (in a results file or a journal,
    /// its own or a subfolder's) stays, and so does one holding anything pkbench did not write.
    pub fn discard_unless_measured(&self) {
        if measured(&self.dir) {
            return;
        }
        // A folder whose manifest could not be written (a full disk) is empty: it goes too.
        let cleared = folder::clear(&self.dir);
        if self.created && (cleared.is_ok() || !folder::is_results_folder(&self.dir)) {
            // Removes an empty folder only: whatever else is there stays.
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Whether `dir` or a folder under it holds a measured batch or timed step: in its results.json
/// or in a journal a killed or full-disk run kept.
fn measured(dir: &Path) -> bool {
    let holds = |dir: &Path| {
        let saved = load_results(&dir.join("results.json"))
            .is_ok_and(|doc| doc.runs.iter().any(|r| !r.batches.is_empty() || !r.phases.is_empty()));
        saved || (dir.join(JOURNAL_FILE).is_file() && recover(dir).is_ok_and(|doc| doc.is_some()))
    };
    if holds(dir) {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|e| e.file_type().is_ok_and(|t| t.is_dir()) && measured(&e.path()))
}
