//! Writes `results.json`, `results.csv`, `results.md` (with its key chart, `batch-times.svg`),
//! `report.html`, and `phases.csv` when a workload timed steps other than batches, into a run's
//! folder, atomically, after every strategy — so an interrupted run keeps what it measured. The
//! folder's manifest lists each file before it is written ([`crate::util::folder`]).

use super::{Format, KEY_CHART_FILE, Source, key_chart_svg, phases_csv};
use crate::Error;
use crate::results::ResultsDoc;
use crate::util::folder::{self, write_atomically};
use std::path::{Path, PathBuf};

/// File name of the per-step CSV, written when any run has timed steps.
pub const PHASES_CSV: &str = "phases.csv";

/// Writes a results document's files into one folder.
#[derive(Debug, Clone)]
pub struct ResultsWriter {
    dir: PathBuf,
}

impl ResultsWriter {
    /// Creates `dir` (and parents) with its manifest, which also checks it is writable.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        folder::create(dir)?;
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
