//! A report's input: results documents read back from `results.json` files, each with the label
//! it is shown under when several are compared.

use crate::Error;
use crate::results::{ResultsDoc, SCHEMA_VERSION};
use crate::util::input::{InputKind, read_bytes};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One results document in a report, and the label that tells it apart from the others.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// Short label (engine, or engine and file) shown beside its strategies in comparisons.
    pub label: String,
    /// The results.
    pub doc: ResultsDoc,
}

impl Source {
    /// A single document, labelled by its engine.
    pub fn single(doc: ResultsDoc) -> Self {
        Source { label: doc.environment.engine.clone(), doc }
    }
}

/// Reads a `results.json` written by `pkbench run` (this or an earlier version).
///
/// Errors name the file and the problem in one line: unreadable, not JSON, JSON that is not a
/// pkbench results file, a file from a newer pkbench, or one larger than a results file can be.
pub fn load_results(path: &Path) -> Result<ResultsDoc, Error> {
    let bytes = read_bytes(path, InputKind::Results)?;
    let shown = path.display();
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::Json { context: format!("'{shown}' is not valid JSON"), cause: e })?;
    let Some(object) = value.as_object() else {
        return Err(Error::InvalidInput(format!(
            "'{shown}' is not a pkbench results file: expected a JSON object, found {}",
            kind_of(&value)
        )));
    };
    let missing: Vec<&str> = ["schema_version", "runs"].into_iter().filter(|k| !object.contains_key(*k)).collect();
    if !missing.is_empty() {
        return Err(Error::InvalidInput(format!(
            "'{shown}' is not a pkbench results file: no {} field (expected the results.json that `pkbench run` writes)",
            missing.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(" or ")
        )));
    }
    if let Some(v) = object["schema_version"].as_u64().filter(|v| *v > u64::from(SCHEMA_VERSION)) {
        return Err(Error::InvalidInput(format!(
            "'{shown}' was written by a newer pkbench (results schema version {v}; this pkbench reads up to {SCHEMA_VERSION}): upgrade pkbench to render it"
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| Error::Json { context: format!("'{shown}' is not a valid pkbench results file"), cause: e })
}

fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Reads every file and labels each document so that comparisons tell them apart: by engine
/// when every file has a different one, by file (the folder name for `results.json`) when all
/// share one engine, else by both.
pub fn load_sources(paths: &[PathBuf]) -> Result<Vec<Source>, Error> {
    let docs = paths.iter().map(|p| load_results(p)).collect::<Result<Vec<_>, _>>()?;
    Ok(label_sources(paths, docs))
}

/// Labels documents read from `paths` (see [`load_sources`]).
pub fn label_sources(paths: &[PathBuf], docs: Vec<ResultsDoc>) -> Vec<Source> {
    let engines: Vec<String> = docs.iter().map(|d| d.environment.engine.clone()).collect();
    let distinct = engines.iter().collect::<BTreeSet<_>>().len();
    let files = paths.iter().map(|p| file_label(p));
    let mut labels: Vec<String> = match distinct {
        n if n == engines.len() => engines,
        1 => files.collect(),
        _ => engines.iter().zip(files).map(|(engine, file)| format!("{engine} · {file}")).collect(),
    };
    // Still equal (the same file twice, say): number them.
    let original = labels.clone();
    for (i, label) in labels.iter_mut().enumerate() {
        if original.iter().filter(|l| *l == label).count() > 1 {
            *label = format!("{label} #{}", i + 1);
        }
    }
    labels.into_iter().zip(docs).map(|(label, doc)| Source { label, doc }).collect()
}

/// The folder name for a `results.json` (folders are named by run), else the file's stem.
fn file_label(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = path.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
    match parent {
        Some(parent) if name == "results.json" => parent,
        _ => path.file_stem().map_or(name.clone(), |s| s.to_string_lossy().into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_labels_prefer_the_run_folder() {
        assert_eq!(file_label(Path::new("out/20260101-120000/results.json")), "20260101-120000");
        assert_eq!(file_label(Path::new("before.json")), "before");
    }

    #[test]
    fn labels_tell_sources_apart() {
        let doc = |engine: &str| {
            let mut d: ResultsDoc =
                serde_json::from_str(include_str!("../../tests/fixtures/sqlite-small.json")).unwrap();
            d.environment.engine = engine.into();
            d
        };
        let paths = |names: &[&str]| names.iter().map(PathBuf::from).collect::<Vec<_>>();
        let labels = |p: &[PathBuf], engines: &[&str]| {
            label_sources(p, engines.iter().map(|e| doc(e)).collect()).into_iter().map(|s| s.label).collect::<Vec<_>>()
        };
        assert_eq!(labels(&paths(&["a.json", "b.json"]), &["sqlite", "postgres"]), ["sqlite", "postgres"]);
        assert_eq!(
            labels(&paths(&["x/before/results.json", "after.json"]), &["sqlite", "sqlite"]),
            ["before", "after"]
        );
        assert_eq!(
            labels(&paths(&["a.json", "b.json", "c.json"]), &["sqlite", "sqlite", "postgres"]),
            ["sqlite · a", "sqlite · b", "postgres · c"]
        );
        assert_eq!(labels(&paths(&["a.json", "a.json"]), &["sqlite", "sqlite"]), ["a #1", "a #2"]);
    }

    #[test]
    fn foreign_and_broken_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let err = |p: PathBuf| load_results(&p).unwrap_err().to_string();
        let foreign = err(write("foo.json", r#"{"foo":1}"#));
        assert!(foreign.contains("foo.json' is not a pkbench results file") && foreign.contains("\"schema_version\""));
        assert!(err(write("bad.json", "{\"runs\": [")).contains("bad.json' is not valid JSON"));
        assert!(err(write("list.json", "[1]")).contains("found an array"));
        let newer = err(write("new.json", r#"{"schema_version": 99, "runs": []}"#));
        assert!(newer.contains("newer pkbench"), "{newer}");
        let partial = err(write("partial.json", r#"{"schema_version": 1, "runs": []}"#));
        assert!(partial.contains("not a valid pkbench results file: missing field"), "{partial}");
        assert!(err(dir.path().join("absent.json")).starts_with("could not read"));
    }
}
