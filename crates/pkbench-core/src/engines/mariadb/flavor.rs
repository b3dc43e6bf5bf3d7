//! MariaDB or MySQL: the server behind a MySQL-protocol connection, told apart by its version
//! string, and the few statements that differ between them. pkbench runs its MariaDB tests on
//! real servers; the MySQL 8.0 / 8.4 spellings here are checked against the MySQL Reference
//! Manual (8.0 and 8.4, "The INFORMATION_SCHEMA INNODB_METRICS Table", "Server Status
//! Variables"), not a live MySQL — no registry package here ships one.

/// Which server a MySQL-protocol connection reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// MariaDB (its version string says `-MariaDB`).
    MariaDb,
    /// MySQL 8.0 or newer (8.4 LTS, 9.x innovation releases), `minor` of 8.0 kept for the
    /// features that arrived within it.
    MySql {
        /// Major version.
        major: u32,
        /// Minor version.
        minor: u32,
        /// Patch version.
        patch: u32,
    },
}

impl Flavor {
    /// The flavour of the server whose `VERSION()` is `version`; MySQL before 8.0 is refused in
    /// one line.
    pub fn of(version: &str) -> Result<Flavor, String> {
        if version.to_ascii_lowercase().contains("mariadb") {
            return Ok(Flavor::MariaDb);
        }
        let mut parts = version.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty());
        let mut next = || parts.next().and_then(|p| p.parse::<u32>().ok());
        let (major, minor, patch) = (next(), next().unwrap_or(0), next().unwrap_or(0));
        match major {
            Some(major) if major >= 8 => Ok(Flavor::MySql { major, minor, patch }),
            _ => Err(format!(
                "MySQL '{version}' is not supported: pkbench needs MySQL 8.0 or newer (its INNODB_METRICS and data dictionary), or MariaDB"
            )),
        }
    }

    /// The product name.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::MariaDb => "MariaDB",
            Flavor::MySql { .. } => "MySQL",
        }
    }

    /// The `INNODB_METRICS` condition for a monitor that counts: MariaDB 10.5+ has `ENABLED`
    /// (1/0), MySQL 8 keeps the older `STATUS` ('enabled'/'disabled').
    pub fn metric_enabled(self) -> &'static str {
        match self {
            Flavor::MariaDb => "ENABLED = 1",
            Flavor::MySql { .. } => "STATUS = 'enabled'",
        }
    }

    /// The global status variable holding the current redo log sequence number, if the server
    /// has one: MariaDB's `Innodb_lsn_current`; MySQL's `Innodb_redo_log_current_lsn` from 8.0.30
    /// (none before it: redo bytes are then absent).
    pub fn redo_lsn_status(self) -> Option<&'static str> {
        match self {
            Flavor::MariaDb => Some("Innodb_lsn_current"),
            Flavor::MySql { major, minor, patch } if (major, minor, patch) >= (8, 0, 30) => {
                Some("Innodb_redo_log_current_lsn")
            }
            Flavor::MySql { .. } => None,
        }
    }

    /// The data dictionary's views of InnoDB's tables and indexes (`INFORMATION_SCHEMA`):
    /// MariaDB keeps the `INNODB_SYS_` prefix MySQL 8 dropped.
    pub fn innodb_dictionary(self) -> (&'static str, &'static str) {
        match self {
            Flavor::MariaDb => ("INNODB_SYS_TABLES", "INNODB_SYS_INDEXES"),
            Flavor::MySql { .. } => ("INNODB_TABLES", "INNODB_INDEXES"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_string_names_the_flavour() {
        assert_eq!(Flavor::of("10.11.6-MariaDB-0+deb12u1"), Ok(Flavor::MariaDb));
        assert_eq!(Flavor::of("5.5.5-10.6.16-MariaDB"), Ok(Flavor::MariaDb));
        assert_eq!(Flavor::of("8.0.36"), Ok(Flavor::MySql { major: 8, minor: 0, patch: 36 }));
        assert_eq!(Flavor::of("8.4.3-log"), Ok(Flavor::MySql { major: 8, minor: 4, patch: 3 }));
        assert_eq!(Flavor::of("9.1.0-commercial"), Ok(Flavor::MySql { major: 9, minor: 1, patch: 0 }));
        let err = Flavor::of("5.7.44-log").unwrap_err();
        assert!(err.contains("needs MySQL 8.0 or newer") && !err.contains('\n'), "{err}");
    }

    #[test]
    fn each_flavour_gets_its_own_spellings() {
        let (maria, mysql80, mysql8030) = (
            Flavor::MariaDb,
            Flavor::MySql { major: 8, minor: 0, patch: 29 },
            Flavor::MySql { major: 8, minor: 0, patch: 30 },
        );
        assert_eq!(maria.metric_enabled(), "ENABLED = 1");
        assert_eq!(mysql80.metric_enabled(), "STATUS = 'enabled'");
        assert_eq!(maria.redo_lsn_status(), Some("Innodb_lsn_current"));
        assert_eq!(mysql80.redo_lsn_status(), None, "8.0.29 has no redo LSN status variable");
        assert_eq!(mysql8030.redo_lsn_status(), Some("Innodb_redo_log_current_lsn"));
        assert_eq!(maria.innodb_dictionary(), ("INNODB_SYS_TABLES", "INNODB_SYS_INDEXES"));
        assert_eq!(mysql8030.innodb_dictionary(), ("INNODB_TABLES", "INNODB_INDEXES"));
    }
}
