//! The run's journal (`journal.jsonl` in the results folder): every batch is appended as it
//! commits, and synced to disk at most once a second, so a run killed outright (SIGKILL) loses at
//! most the batch in flight, and a power cut at most the last second. The results files are still written after every case; the journal only ever holds
//! what they do not yet hold, and is removed when the run ends normally. [`recover`] turns a
//! killed run's folder back into a results document that `pkbench report` can render.
//!
//! Lines: one `{"doc": …}` (the results document's header, no runs) first; then per case that has
//! committed a batch or finished a phase, one `{"run": …}` (its result without batches and
//! phases) and one `{"batch": …}` per batch or `{"phase": …}` per phase (app, file-baseline).

use super::input::load_results;
use crate::Error;
use crate::results::{BatchResult, PhaseResult, ResultsDoc, RunResult};
use crate::util::input::{InputKind, open, unwrap_limit};
use crate::util::text::count;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// File name of the journal in a results folder.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Doc(ResultsDoc),
    Run(RunResult),
    Batch(BatchResult),
    Phase(PhaseResult),
}

/// The open journal of a run in progress.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    file: File,
    /// Bytes of the header line: what a reset keeps.
    header_len: u64,
    /// Whether the current case's `run` line is written.
    case_open: bool,
    /// When the journal was last synced to disk.
    synced: Instant,
    /// Whether the journal was removed (it could not be cut back) and records nothing more.
    off: bool,
}

/// How often appended lines are synced to disk. Every line is written at once, so a killed
/// process loses nothing (the kernel holds it); only a machine that loses power can lose the
/// last second. A sync per 100-row batch would cost more than the batch.
const SYNC_EVERY: Duration = Duration::from_secs(1);

fn line(value: &Line) -> Result<Vec<u8>, Error> {
    let mut bytes = serde_json::to_vec(value)
        .map_err(|cause| Error::Json { context: "could not write the run's journal".into(), cause })?;
    bytes.push(b'\n');
    Ok(bytes)
}

impl Journal {
    /// Creates `dir/journal.jsonl` holding `doc`'s header (its runs left out).
    pub fn start(dir: &Path, doc: &ResultsDoc) -> Result<Self, Error> {
        let path = dir.join(JOURNAL_FILE);
        crate::util::folder::claim_path(&path)?;
        let header = line(&Line::Doc(ResultsDoc { runs: Vec::new(), ..doc.clone() }))?;
        let mut file = File::create(&path).map_err(|e| Error::io("create", &path, e))?;
        file.write_all(&header).and_then(|()| file.sync_data()).map_err(|e| Error::io("write", &path, e))?;
        let state =
            State { file, header_len: header.len() as u64, case_open: false, synced: Instant::now(), off: false };
        Ok(Journal { path, state: Mutex::new(state) })
    }

    /// Appends `run`'s last batch (and, at a case's first entry, the case itself), synced to disk
    /// at most every [`SYNC_EVERY`].
    /// A failed write is not fatal: the batch is still in memory and in the results files written
    /// after the case (which fail on their own if the disk is full); the next batch tries again.
    pub fn record(&self, run: &RunResult) {
        if let Some(batch) = run.batches.last() {
            self.append(run, Line::Batch(batch.clone()));
        }
    }

    /// Appends `run`'s last phase, as [`Journal::record`] does a batch.
    pub fn record_phase(&self, run: &RunResult) {
        if let Some(phase) = run.phases.last() {
            self.append(run, Line::Phase(phase.clone()));
        }
    }

    fn append(&self, run: &RunResult, entry: Line) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.off {
            return;
        }
        let mut bytes = Vec::new();
        let result = (|| -> Result<(), Error> {
            if !state.case_open {
                let case = RunResult { batches: Vec::new(), phases: Vec::new(), ..run.clone() };
                bytes.extend(line(&Line::Run(case))?);
            }
            bytes.extend(line(&entry)?);
            state.file.write_all(&bytes).map_err(|e| Error::io("write", &self.path, e))?;
            if state.synced.elapsed() >= SYNC_EVERY {
                state.file.sync_data().map_err(|e| Error::io("sync", &self.path, e))?;
                state.synced = Instant::now();
            }
            Ok(())
        })();
        if result.is_ok() {
            state.case_open = true;
        }
    }

    /// Forgets the journaled batches once the results files hold them (after every case). If the
    /// journal cannot be cut back, it is removed and records nothing more: a journal that held
    /// batches the results files hold too would count them twice.
    pub fn reset(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let keep = state.header_len;
        state.case_open = false;
        let cut = state
            .file
            .set_len(keep)
            .and_then(|()| state.file.seek(SeekFrom::Start(keep)).map(|_| ()))
            .and_then(|()| state.file.sync_data());
        if cut.is_err() {
            state.off = true;
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the journal: the run ended and the results files hold everything.
    pub fn finish(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The results document of a folder whose run was killed: its `results.json` (or the journal's
/// header when the first case never finished) plus the case the journal holds, marked incomplete.
/// `None` when the folder has no journal or the journal holds no batch.
pub fn recover(dir: &Path) -> Result<Option<ResultsDoc>, Error> {
    let path = dir.join(JOURNAL_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let (mut header, mut run) = (None, None::<RunResult>);
    for (i, text) in open(&path, InputKind::Results)?.lines().enumerate() {
        let text = text.map_err(|e| unwrap_limit(&path, e))?;
        // The last line may be cut short by the kill: what was synced before it stands.
        let Ok(entry) = serde_json::from_str::<Line>(&text) else { break };
        match entry {
            Line::Doc(doc) if i == 0 => header = Some(doc),
            Line::Run(r) => run = Some(r),
            Line::Batch(b) => {
                if let Some(r) = run.as_mut() {
                    r.batches.push(b);
                }
            }
            Line::Phase(p) => {
                if let Some(r) = run.as_mut() {
                    r.phases.push(p);
                }
            }
            Line::Doc(_) => break,
        }
    }
    let Some(mut run) = run.filter(|r| !r.batches.is_empty() || !r.phases.is_empty()) else { return Ok(None) };
    let results = dir.join("results.json");
    let mut doc = match (results.is_file(), header) {
        (true, _) => load_results(&results)?,
        (false, Some(h)) => h,
        (false, None) => return Ok(None),
    };
    run.complete = false;
    run.error = Some(format!(
        "the process ended before this case finished (killed?); its {} and {} were recovered from {JOURNAL_FILE}",
        count(run.batches.len(), "batch"),
        count(run.phases.len(), "phase")
    ));
    doc.runs.push(run);
    Ok(Some(doc))
}
