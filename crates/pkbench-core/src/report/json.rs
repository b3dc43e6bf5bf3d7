//! The results document as pretty-printed JSON (the `results.json` format).

use super::Exporter;
use crate::Error;
use crate::results::ResultsDoc;

/// JSON exporter.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut s = serde_json::to_string_pretty(doc)
            .map_err(|e| Error::Json { context: "could not serialise results".into(), cause: e })?;
        s.push('\n');
        Ok(s)
    }
}
