//! Which PostgreSQL a calibration runs: the user's server's major version where its binaries are
//! installed here, else the one pkbench starts by default, with a line that says so.

use super::profile::TableProfile;
use crate::engines::EngineKind;
use std::path::PathBuf;

/// The server binaries advise's throwaway servers run (the calibration's, the contention
/// check's): `None` for each is the one pkbench starts by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerBinaries {
    /// The PostgreSQL major version (`--pg-version`, or the user's server's).
    pub pg_version: Option<u32>,
    /// The folder of the binaries (`--server-bin`).
    pub server_bin: Option<PathBuf>,
}

/// The leading number of a version string (`16.4 (Debian 16.4-1)` → 16).
pub(super) fn major(version: &str) -> Option<u32> {
    version.split(|c: char| !c.is_ascii_digit()).find(|p| !p.is_empty())?.parse().ok()
}

/// The PostgreSQL major version the calibration's server runs for `profile` (an existing table
/// on `engine`), where `installed` finds its binaries; and the progress line that says which
/// version the calibration runs, where the user's server has one.
pub(super) fn calibration_major(
    engine: EngineKind,
    profile: &TableProfile,
    installed: impl Fn(u32) -> bool,
) -> (Option<u32>, Option<String>) {
    let theirs = profile.engine_version.as_deref().and_then(major).filter(|_| engine == EngineKind::Postgres);
    match theirs {
        None => (None, None),
        Some(m) if installed(m) => {
            (Some(m), Some(format!("Calibrating on PostgreSQL {m}, your server's major version")))
        }
        Some(m) => (
            None,
            Some(format!(
                "PostgreSQL {m}'s binaries are not where pkbench looks for them: calibrating on the PostgreSQL it starts by default, whose version the answer gives (apt-get install postgresql-{m}, or scripts/setup-test-deps for 16 and 18, to calibrate on {m})"
            )),
        ),
    }
}

/// Whether PostgreSQL `major`'s server binaries are installed here.
#[cfg(feature = "postgres")]
pub(super) fn installed(major: u32) -> bool {
    crate::engines::postgres::bin_dir_for_version(major).is_ok()
}

/// A build without the PostgreSQL driver starts no PostgreSQL.
#[cfg(not(feature = "postgres"))]
pub(super) fn installed(_major: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(engine_version: Option<&str>) -> TableProfile {
        TableProfile {
            source: "postgresql://me@db/app".into(),
            table: "orders".into(),
            engine: "postgres".into(),
            engine_version: engine_version.map(String::from),
            rows_now: 10,
            rows_estimated: false,
            current_key: None,
            schema_file: "orders.sql".into(),
            values_file: None,
            read_only: None,
            cache_bytes: None,
            migration_sql: None,
            table_rows: Default::default(),
            references: Vec::new(),
            children_left_out: None,
        }
    }

    #[test]
    fn the_users_major_version_where_installed_else_the_default_said_in_a_line() {
        let p = profile(Some("16.4 (Debian 16.4-1.pgdg120+1)"));
        let (m, line) = calibration_major(EngineKind::Postgres, &p, |m| m == 16);
        assert_eq!(m, Some(16));
        assert!(line.unwrap().contains("PostgreSQL 16, your server's"));
        let (m, line) = calibration_major(EngineKind::Postgres, &p, |_| false);
        assert_eq!(m, None);
        let line = line.unwrap();
        assert!(
            line.starts_with("PostgreSQL 16's binaries are not where pkbench looks for them: calibrating on the PostgreSQL it starts by default"),
            "{line}"
        );
        assert!(line.contains("apt-get install postgresql-16"), "{line}");
        assert_eq!(calibration_major(EngineKind::MariaDb, &p, |_| true), (None, None));
        assert_eq!(calibration_major(EngineKind::Postgres, &profile(None), |_| true), (None, None));
    }
}
