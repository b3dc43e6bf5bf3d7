//! file-baseline: is SQLite faster than the filesystem? (the question of
//! "Are SQLite INSERTS faster than direct file writes?" (thehellmaker).) `N` short rows
//! (`test{i}`) written to a plain file with one `write` per row and with one buffered write,
//! each with and without `fsync`, beside SQLite inserting the same rows in one transaction
//! (WAL) at every `synchronous` level. Each method is one phase; each phase's
//! `ratio_to_fastest` compares it with the fastest method of the run.

use super::outcome::{SettingsBase, conclude, empty_result, verify};
use super::{CaseContext, Workload};
use crate::Error;
use crate::control::RunControl;
use crate::engines::Engine;
use crate::engines::sqlite::{Synchronous, insert_log_lines};
use crate::keys::KeySettings;
use crate::results::{PhaseResult, RunResult};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest `--rows` accepted (the buffered method holds every row in memory).
pub const MAX_FILE_ROWS: u64 = 100_000_000;

/// The file-baseline workload: rows per method and the folder its files are written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBaseline {
    rows: u64,
    dir: PathBuf,
}

/// How the plain-file methods write.
#[derive(Clone, Copy, Debug)]
enum FileMethod {
    /// One `write` system call per row.
    PerRow,
    /// Every row formatted into one buffer, then one `write`.
    Buffered,
}

impl FileBaseline {
    /// Validates `rows`; files and databases are created (and removed) in `dir`.
    pub fn new(rows: u64, dir: PathBuf) -> Result<Self, Error> {
        if rows == 0 || rows > MAX_FILE_ROWS {
            return Err(Error::InvalidInput(format!(
                "--rows {rows} is out of range for file-baseline: use 1 to {MAX_FILE_ROWS} (e.g. --rows 100k)"
            )));
        }
        Ok(FileBaseline { rows, dir })
    }

    /// Bytes of `test1\n` … `testN\n`.
    fn expected_bytes(&self) -> u64 {
        let mut total = 0;
        let (mut start, mut digits) = (1u64, 1u64);
        while start <= self.rows {
            let end = (start * 10 - 1).min(self.rows);
            total += (end - start + 1) * (4 + digits + 1);
            start *= 10;
            digits += 1;
        }
        total
    }

    fn write_file(&self, method: FileMethod, fsync: bool, ctx: &CaseContext<'_>) -> Result<PhaseResult, Error> {
        let path = self.dir.join(format!("file-baseline-{}.log", phase_name(method, fsync)));
        if path.exists() {
            return Err(Error::AlreadyExists(format!(
                "'{}' already exists; pkbench will not overwrite it: choose another --out folder",
                path.display()
            )));
        }
        crate::util::folder::claim_path(&path)?;
        let result = self.timed_write(&path, method, fsync, ctx);
        let _ = std::fs::remove_file(&path);
        result
    }

    fn timed_write(
        &self,
        path: &Path,
        method: FileMethod,
        fsync: bool,
        ctx: &CaseContext<'_>,
    ) -> Result<PhaseResult, Error> {
        let io = |action: &'static str| move |e| Error::io(action, path, e);
        let capacity = match method {
            FileMethod::PerRow => 32,
            FileMethod::Buffered => self.expected_bytes() as usize,
        };
        let t0 = ctx.timer.now_ns();
        let mut file = File::create(path).map_err(io("create"))?;
        let mut buf: Vec<u8> = Vec::with_capacity(capacity);
        let mut writes = 0u64;
        for i in 1..=self.rows {
            if let FileMethod::PerRow = method {
                buf.clear();
            }
            // Writing into a Vec cannot fail.
            let _ = writeln!(buf, "test{i}");
            if let FileMethod::PerRow = method {
                file.write_all(&buf).map_err(io("write"))?;
                writes += 1;
            }
            if i % RunControl::PROGRESS_STEP as u64 == 0 {
                ctx.control.add_rows(RunControl::PROGRESS_STEP as u64);
                if ctx.control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
        }
        if let FileMethod::Buffered = method {
            file.write_all(&buf).map_err(io("write"))?;
            writes += 1;
        }
        if fsync {
            file.sync_all().map_err(io("fsync"))?;
        }
        drop(file);
        let elapsed_ns = ctx.timer.now_ns() - t0;
        let len = std::fs::metadata(path).map_err(io("read"))?.len();
        verify("file-baseline", self.expected_bytes(), len)?;
        let mut figures = BTreeMap::new();
        figures.insert("file_bytes".to_string(), len as f64);
        let sync_note = if fsync { ", one fsync before close" } else { ", no fsync" };
        let what = match method {
            FileMethod::PerRow => "one write() system call per row",
            FileMethod::Buffered => "all rows formatted into one buffer, one write()",
        };
        Ok(PhaseResult {
            name: phase_name(method, fsync).to_string(),
            operations: writes,
            rows: self.rows,
            elapsed_ns,
            figures,
            note: Some(format!("{what}{sync_note}; file length verified")),
            ..PhaseResult::default()
        })
    }

    fn sqlite_insert(&self, sync: Synchronous, ctx: &CaseContext<'_>) -> Result<PhaseResult, Error> {
        let name = format!("sqlite-sync-{}", sync.pragma().to_lowercase());
        let path = self.dir.join(format!("file-baseline-{name}.sqlite"));
        let done = insert_log_lines(&path, sync, self.rows, ctx.timer, ctx.control)?;
        verify("file-baseline", self.rows, done.verified_rows)?;
        ctx.control.add_rows(self.rows);
        let mut figures = BTreeMap::new();
        figures.insert("database_bytes".to_string(), done.size_bytes as f64);
        Ok(PhaseResult {
            name,
            operations: self.rows,
            rows: self.rows,
            elapsed_ns: done.elapsed_ns,
            figures,
            note: Some(format!(
                "INSERT INTO log(logline TEXT), one transaction, WAL, synchronous={}; timed to COMMIT, before the checkpoint at close; rows verified",
                sync.pragma()
            )),
            ..PhaseResult::default()
        })
    }
}

fn phase_name(method: FileMethod, fsync: bool) -> &'static str {
    match (method, fsync) {
        (FileMethod::PerRow, false) => "write-per-row",
        (FileMethod::PerRow, true) => "write-per-row-fsync",
        (FileMethod::Buffered, false) => "buffered-write",
        (FileMethod::Buffered, true) => "buffered-write-fsync",
    }
}

/// Adds `ratio_to_fastest` (elapsed ÷ the fastest phase's elapsed) to every phase.
pub(crate) fn add_ratios(phases: &mut [PhaseResult]) {
    let Some(fastest) = phases.iter().map(|p| p.elapsed_ns).filter(|&ns| ns > 0).min() else { return };
    for p in phases {
        // Three decimals: the timings are not more precise than that.
        let ratio = p.elapsed_ns as f64 / fastest as f64;
        p.figures.insert("ratio_to_fastest".into(), (ratio * 1000.0).round() / 1000.0);
    }
}

impl Workload for FileBaseline {
    fn name(&self) -> &'static str {
        "file-baseline"
    }

    fn rows_per_case(&self) -> u64 {
        self.rows * 8
    }

    fn case_plan(&self) -> String {
        format!(
            "writing {} lines to a file 4 ways, then inserting {} rows into SQLite at 4 synchronous levels",
            self.rows, self.rows
        )
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let base = SettingsBase {
            rows: self.rows,
            batch_rows: self.rows,
            payload_bytes: 0,
            keys: KeySettings::from(0),
            insert_path: "plain file: write() per row or one buffered write(); SQLite: one prepared INSERT per row in one transaction".into(),
            options: BTreeMap::from([("fsync".to_string(), "once, before close".to_string())]),
        };
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let outcome = (|| -> Result<(), Error> {
            if engine.info().name != "sqlite" {
                return Err(Error::InvalidInput(
                    "file-baseline compares plain files with SQLite only: use --engine sqlite".into(),
                ));
            }
            for (method, fsync) in [
                (FileMethod::PerRow, false),
                (FileMethod::PerRow, true),
                (FileMethod::Buffered, false),
                (FileMethod::Buffered, true),
            ] {
                result.phases.push(self.write_file(method, fsync, ctx)?);
                ctx.observer.phase_recorded(&result);
            }
            for sync in [Synchronous::Off, Synchronous::Normal, Synchronous::Full, Synchronous::Extra] {
                let phase = self.sqlite_insert(sync, ctx)?;
                // The run's size is the SQLite database's (the same at every level).
                let db = phase.figures.get("database_bytes").copied().unwrap_or(0.0) as u64;
                result.size_bytes = Some(result.size_bytes.unwrap_or(0).max(db));
                result.phases.push(phase);
                ctx.observer.phase_recorded(&result);
            }
            result.verified_rows = Some(self.rows);
            Ok(())
        })();
        add_ratios(&mut result.phases);
        conclude(result, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_bytes_counts_every_line() {
        let dir = PathBuf::from("/nonexistent");
        let manual = |n: u64| (1..=n).map(|i| format!("test{i}\n").len() as u64).sum::<u64>();
        for n in [1, 9, 10, 99, 100, 1234, 100_000] {
            assert_eq!(FileBaseline::new(n, dir.clone()).unwrap().expected_bytes(), manual(n), "{n}");
        }
    }

    #[test]
    fn ratios_are_relative_to_the_fastest() {
        let mut phases: Vec<PhaseResult> =
            [400, 100, 250].iter().map(|&ns| PhaseResult { elapsed_ns: ns, ..PhaseResult::default() }).collect();
        add_ratios(&mut phases);
        let r: Vec<f64> = phases.iter().map(|p| p.figures["ratio_to_fastest"]).collect();
        assert_eq!(r, [4.0, 1.0, 2.5]);
    }

    #[test]
    fn rows_out_of_range_are_refused() {
        assert!(FileBaseline::new(0, PathBuf::new()).is_err());
        assert!(FileBaseline::new(MAX_FILE_ROWS + 1, PathBuf::new()).is_err());
    }
}
