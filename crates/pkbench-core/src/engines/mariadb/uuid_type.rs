//! What a MariaDB/MySQL server version offers for UUID keys, and how MariaDB's native `UUID`
//! type orders values.
//!
//! MariaDB 10.7 added a `UUID` column type. For RFC 4122 variant UUIDs of versions 1–5 it stores
//! the five hyphen-separated groups in reverse (`llllllll-mmmm-Vhhh-vsss-nnnnnnnnnnnn` is stored
//! as `nnnnnnnnnnnn-vsss-Vhhh-mmmm-llllllll`) and compares stored bytes: so v1 UUIDs from one node
//! with one clock sequence sort by time. Since 10.11.2 (MDEV-29959) versions 6–8 and other
//! variants are stored as they are, so v7 keeps its time order. MySQL has no UUID type, and
//! no server of either kind has MySQL's `UUID_TO_BIN(u, 1)` swap except MySQL 8: pkbench swaps
//! on the client instead (`uuid1-bin-swapped`).

use crate::generators::Scheme;
use crate::strategy::{Storage, Strategy};

/// A server's version as `SELECT VERSION()` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerVersion {
    /// `(major, minor, patch)`.
    pub number: (u32, u32, u32),
    /// MariaDB (the version string says `MariaDB`) rather than MySQL.
    pub mariadb: bool,
}

impl ServerVersion {
    /// Parses e.g. `10.11.6-MariaDB-0+deb12u1` or `8.0.36`; `None` if there is no `x.y.z`.
    pub fn parse(text: &str) -> Option<Self> {
        let head = text.split(['-', '+', ' ']).next()?;
        let mut parts = head.split('.').map(|p| p.parse::<u32>().ok());
        let number = (parts.next()??, parts.next()??, parts.next().flatten().unwrap_or(0));
        Some(ServerVersion { number, mariadb: text.contains("MariaDB") })
    }
}

/// Why a server of version `version` cannot run `strategy`, if it cannot although the SQL
/// renders (a column type or key function the server lacks).
pub fn version_requirement(strategy: &Strategy, version: &ServerVersion) -> Option<String> {
    let (major, minor, _) = version.number;
    let at_least = |m: u32, n: u32| version.mariadb && (major, minor) >= (m, n);
    if strategy.primary.storage == Storage::MariaDbUuid && !at_least(10, 7) {
        return Some(format!(
            "the UUID column type needs MariaDB 10.7 or newer; this server is {} {major}.{minor} (use the strategy with BINARY(16), e.g. uuid4)",
            if version.mariadb { "MariaDB" } else { "MySQL" }
        ));
    }
    match strategy.server_primary() {
        Some(scheme @ (Scheme::Uuid4 | Scheme::Uuid7)) if !at_least(11, 7) => Some(format!(
            "{} is built into MariaDB 11.7 and newer; this server is {} {major}.{minor}",
            server_function(scheme).unwrap_or("the key function"),
            if version.mariadb { "MariaDB" } else { "MySQL" }
        )),
        _ => None,
    }
}

/// The server function that generates a key of `scheme` as hyphenated text.
pub fn server_function(scheme: Scheme) -> Option<&'static str> {
    match scheme {
        Scheme::Uuid1 => Some("UUID()"),
        Scheme::Uuid4 => Some("UUID_v4()"),
        Scheme::Uuid7 => Some("UUID_v7()"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn v(text: &str) -> ServerVersion {
        ServerVersion::parse(text).unwrap()
    }

    #[test]
    fn parses_versions() {
        assert_eq!(v("10.11.6-MariaDB-0+deb12u1"), ServerVersion { number: (10, 11, 6), mariadb: true });
        assert_eq!(v("8.0.36"), ServerVersion { number: (8, 0, 36), mariadb: false });
        assert_eq!(v("11.7.2-MariaDB").number, (11, 7, 2));
        assert_eq!(ServerVersion::parse("nonsense"), None);
    }

    #[test]
    fn requirements_name_the_version_needed() {
        let m10 = v("10.11.6-MariaDB");
        assert_eq!(version_requirement(find("uuid4-mariadb-uuid").unwrap(), &m10), None);
        assert_eq!(version_requirement(find("uuid1-server").unwrap(), &m10), None);
        assert_eq!(version_requirement(find("uuid4").unwrap(), &m10), None);
        let err = version_requirement(find("uuid7-server").unwrap(), &m10).unwrap();
        assert_eq!(err, "UUID_v7() is built into MariaDB 11.7 and newer; this server is MariaDB 10.11");
        assert_eq!(version_requirement(find("uuid4-server").unwrap(), &v("11.8.1-MariaDB")), None);
        let err = version_requirement(find("uuid1-server").unwrap(), &v("8.0.36")).unwrap();
        assert!(err.contains("needs MariaDB 10.7") && err.contains("MySQL 8.0"), "{err}");
        assert!(version_requirement(find("uuid1-server-bin").unwrap(), &v("8.0.36")).is_none());
    }
}
