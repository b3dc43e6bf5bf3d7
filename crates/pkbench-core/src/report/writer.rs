//! Writes `results.json`, `results.csv`, `results.md` (with its key chart, `batch-times.svg`),
//! `report.html`, and `phases.csv` when a workload timed steps other than batches, into a run's
//! folder, atomically, after every strategy — so an interrupted run keeps what it measured.

use super::{Format, KEY_CHART_FILE, Source, key_chart_svg, phases_csv};
use crate::Error;
use crate::results::ResultsDoc;
use std::path::{Path, PathBuf};

/// File name of the per-step CSV, written when any run has timed steps.
pub const PHASES_CSV: &str = "phases.csv";

/// Writes a results document's files into one folder.
#[derive(Debug, Clone)]
pub struct ResultsWriter {
    dir: PathBuf,
}

impl ResultsWriter {
    /// Creates `dir` (and parents) and checks it is writable.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create the results folder", dir, e))?;
        let probe = dir.join(".pkbench-write-test");
        std::fs::write(&probe, b"").map_err(|e| Error::io("write into the results folder", dir, e))?;
        let _ = std::fs::remove_file(&probe);
        Ok(ResultsWriter { dir: dir.to_path_buf() })
    }

    /// The folder results go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of `results.json`.
    pub fn json_path(&self) -> PathBuf {
        self.dir.join("results.json")
    }

    /// Path of `report.html`.
    pub fn html_path(&self) -> PathBuf {
        self.dir.join("report.html")
    }

    /// Writes every file from `doc`, replacing earlier versions.
    pub fn write(&self, doc: &ResultsDoc) -> Result<(), Error> {
        for (format, name) in [
            (Format::Json, "results.json"),
            (Format::Csv, "results.csv"),
            (Format::Markdown, "results.md"),
            (Format::Html, "report.html"),
        ] {
            let text = format.exporter().render(doc)?;
            write_atomically(&self.dir.join(name), text.as_bytes())?;
        }
        if let Some(svg) = key_chart_svg(&[Source::single(doc.clone())]) {
            write_atomically(&self.dir.join(KEY_CHART_FILE), svg.as_bytes())?;
        }
        if let Some(csv) = phases_csv(doc)? {
            write_atomically(&self.dir.join(PHASES_CSV), csv.as_bytes())?;
        }
        Ok(())
    }
}

/// Writes `path` whole or not at all: into its own temporary file (`name.tmp`), synced, then
/// renamed over it.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_data()));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io("write", path, e)
    })?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io("write", path, e))
}
