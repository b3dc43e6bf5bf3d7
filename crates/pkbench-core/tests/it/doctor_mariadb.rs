//! `doctor` on a managed throwaway MariaDB server: tables built with pkbench's own DDL and key
//! streams for int, uuid4, uuid4-text and uuid7 (one database each), plus edge cases (in a
//! database of their own on the binary's shared MariaDB server). Doctor must
//! name each scheme and the clustered layout, give the right top advice, read InnoDB's page
//! counts, stay inside a read-only transaction, and fail on bad URLs with one line that hides
//! the password.

use crate::common::shared;
use mysql::prelude::Queryable;
use pkbench_core::doctor::mariadb::{ReadOnlySession, diagnose, diagnose_session};
use pkbench_core::doctor::{
    AdviceKind, DoctorOptions, DoctorReport, KeyScheme, KeyStorage, Layout, TableReport, migration_sql_for, to_json,
};
use pkbench_core::engines::mariadb::{ManagedMariaDb, render_schema};
use pkbench_core::generators::Key;
use pkbench_core::keys::KeyStream;
use pkbench_core::strategy::{Storage, find};
use std::fmt::Write;

const ROWS: u64 = 20_000;

fn start() -> ManagedMariaDb {
    ManagedMariaDb::start(&Default::default(), 32, false)
        .unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"))
}

fn url(server: &ManagedMariaDb, user: &str, db: &str) -> String {
    format!("mysql://{user}@localhost/{db}?socket={}", server.dir().join("mariadb.sock").display())
}

fn literal(key: Key, storage: Storage) -> String {
    match key {
        Key::Int(i) => i.to_string(),
        Key::Uuid(b) if storage == Storage::Text36 => format!("'{}'", uuid::Uuid::from_bytes(b).hyphenated()),
        Key::Uuid(b) => format!("X'{}'", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
    }
}

/// Creates `strategy`'s table with pkbench's DDL in database `db` and inserts [`ROWS`] rows of
/// its key stream, then refreshes InnoDB's statistics (the fixture's own table).
fn fixture(conn: &mut mysql::Conn, strategy: &str, db: &str) {
    let s = find(strategy).unwrap();
    let sql = render_schema(s, db).unwrap();
    conn.query_drop(format!("CREATE DATABASE {db}")).unwrap();
    for stmt in &sql.create {
        conn.query_drop(stmt).unwrap();
    }
    let mut stream = KeyStream::new(s, 7);
    let payload = format!("X'{}'", "a5".repeat(50));
    for _ in 0..ROWS / 1_000 {
        let mut insert = sql.insert.sql.clone();
        for i in 0..1_000 {
            let row = stream.next_row();
            let mut values: Vec<String> = Vec::new();
            values.extend(row.primary.map(|k| literal(k, s.primary.storage)));
            values.extend(row.secondary.zip(s.secondary).map(|(k, sec)| literal(k, sec.storage)));
            values.push(payload.clone());
            let _ = write!(insert, "{}({})", if i == 0 { "" } else { ", " }, values.join(", "));
        }
        conn.query_drop(insert).unwrap();
    }
    conn.query_drop(format!("ANALYZE TABLE {db}.bench")).unwrap();
}

fn validate(report: &DoctorReport) {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let value: serde_json::Value = serde_json::from_str(&to_json(report)).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

fn table<'a>(report: &'a DoctorReport, name: &str) -> &'a TableReport {
    report.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no {name} in {report:#?}"))
}

#[test]
fn names_schemes_layouts_advice_and_reads_innodb_pages() {
    let server = start();
    let mut conn = mysql::Conn::new(server.opts()).unwrap();
    let cases: &[(&str, &str, KeyScheme, KeyStorage, &[AdviceKind])] = &[
        ("int", "s_int", KeyScheme::Sequence, KeyStorage::Integer, &[]),
        ("uuid7", "s_uuid7", KeyScheme::UuidV7, KeyStorage::Blob16, &[]),
        ("uuid4", "s_uuid4", KeyScheme::UuidV4, KeyStorage::Blob16, &[AdviceKind::TimeOrderedKey]),
        (
            "uuid4-text",
            "s_uuid4_text",
            KeyScheme::UuidV4,
            KeyStorage::Text36,
            &[AdviceKind::TimeOrderedKey, AdviceKind::BinaryStorage],
        ),
        ("int+uuid4", "s_int_uuid4", KeyScheme::Sequence, KeyStorage::Integer, &[AdviceKind::TimeOrderedUniqueColumn]),
    ];
    for (strategy, db, ..) in cases {
        fixture(&mut conn, strategy, db);
    }
    // No database in the URL: every non-system database, tables named db.table.
    let report = diagnose(&url(&server, "root", ""), &DoctorOptions::default()).unwrap();
    validate(&report);
    assert_eq!(report.engine, "mariadb");
    assert!(report.read_only.as_deref().unwrap().contains("tx_read_only = 1"), "{:?}", report.read_only);
    for &(strategy, db, scheme, storage, top) in cases {
        let t = table(&report, &format!("{db}.bench"));
        let s = t.primary_key.as_ref().unwrap().scheme.as_ref().unwrap();
        assert_eq!((s.scheme, s.storage, t.layout), (scheme, storage, Layout::ClusteredOnKey), "{strategy}: {t:#?}");
        assert!(s.share > 0.95 && s.samples >= 256, "{strategy}: {s:?}");
        assert!(s.sampling.contains("index seeks"), "{strategy}: {}", s.sampling);
        assert_eq!(t.rows, ROWS);
        // Random keys may also leave sparse enough leaves for a rebuild: always last.
        let kinds: Vec<AdviceKind> = t.advice.iter().map(|a| a.kind).filter(|k| *k != AdviceKind::Repack).collect();
        assert_eq!(kinds, top, "{strategy}: {:#?}", t.advice);
        if let Some(repack) = t.advice.iter().find(|a| a.kind == AdviceKind::Repack) {
            assert!(scheme.is_random() && repack.rank as usize == t.advice.len(), "{strategy}: {:#?}", t.advice);
            assert!(repack.text.starts_with("OPTIMIZE TABLE"), "{}", repack.text);
        }
        if top.is_empty() {
            assert!(t.verdict.starts_with("The key is fine"), "{strategy}: {}", t.verdict);
        }
        // Leaf pages are InnoDB's own count.
        let clustered = t.btrees.iter().find(|b| b.stats.kind == "table").unwrap();
        let leaves: Option<u64> = conn
            .exec_first(
                "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = ? AND table_name = 'bench' \
                 AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'",
                (db,),
            )
            .unwrap();
        assert_eq!(Some(clustered.stats.leaf_pages), leaves, "{strategy}");
        assert!(clustered.stats.leaf_fill > 0.3 && clustered.estimated.is_some(), "{strategy}: {clustered:?}");
    }
    let fill = |db: &str| table(&report, &format!("{db}.bench")).btrees[0].stats.leaf_fill;
    assert!(fill("s_uuid7") > fill("s_uuid4") + 0.1, "v7 {} vs v4 {}", fill("s_uuid7"), fill("s_uuid4"));
    // Insertion order from the auto-increment id for the UNIQUE external key.
    let ext = &table(&report, "s_int_uuid4.bench").unique_keys[0];
    assert_eq!(ext.order.as_ref().unwrap().appends_in_order, Some(false), "{ext:?}");
    text_key_script_runs(&server);
}

/// The script for uuid4-text converts the key to the UUID type, and the columns whose foreign
/// keys hold it (down a one-to-one chain too), and runs.
fn text_key_script_runs(server: &ManagedMariaDb) {
    let mut db = mysql::Conn::new(server.opts().db_name(Some("s_uuid4_text"))).unwrap();
    // MODIFY rewrites a column's whole definition: the script must repeat a DEFAULT and a COMMENT.
    db.query_drop("ALTER TABLE bench MODIFY id CHAR(36) NOT NULL DEFAULT (UUID()) COMMENT 'the bench''s key'").unwrap();
    db.query_drop(
        "CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, bench_id CHAR(36) NOT NULL COMMENT 'its bench', \
         FOREIGN KEY (bench_id) REFERENCES bench (id) ON DELETE CASCADE)",
    )
    .unwrap();
    db.query_drop("INSERT INTO items (bench_id) SELECT id FROM bench LIMIT 1000").unwrap();
    db.query_drop("ALTER TABLE bench ADD COLUMN parent CHAR(36) NULL, ADD FOREIGN KEY (parent) REFERENCES bench (id)")
        .unwrap();
    db.query_drop("UPDATE bench SET parent = id WHERE id < '4'").unwrap();
    // A one-to-one chain: a profile's key is a bench's, and a badge references the profile.
    db.query_drop(
        "CREATE TABLE profile (bench_id CHAR(36) PRIMARY KEY, FOREIGN KEY (bench_id) REFERENCES bench (id));
         CREATE TABLE badge (id INT AUTO_INCREMENT PRIMARY KEY, profile_id CHAR(36) NOT NULL,
                             CONSTRAINT badge_profile FOREIGN KEY (profile_id) REFERENCES profile (bench_id) ON DELETE CASCADE);
         INSERT INTO profile SELECT id FROM bench LIMIT 500;
         INSERT INTO badge (profile_id) SELECT bench_id FROM profile;
         CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, bench_id CHAR(36) NOT NULL,
                             FOREIGN KEY (bench_id) REFERENCES bench (id),
                             CONSTRAINT audit_profile FOREIGN KEY (bench_id) REFERENCES profile (bench_id));
         INSERT INTO audit (bench_id) SELECT bench_id FROM profile LIMIT 100;",
    )
    .unwrap();
    let profile = DoctorOptions { table: Some("profile".into()), ..DoctorOptions::default() };
    let child = diagnose(&url(server, "root", "s_uuid4_text"), &profile).unwrap();
    let parent = child.tables[0].key_references.as_ref().unwrap();
    assert_eq!((parent.table.as_str(), parent.column.as_str()), ("bench", "id"));
    let only = DoctorOptions { table: Some("bench".into()), ..DoctorOptions::default() };
    let text = diagnose(&url(server, "root", "s_uuid4_text"), &only).unwrap();
    assert_eq!(text.tables.len(), 1);
    assert_eq!(text.tables[0].name, "bench");
    let items = &text.tables[0].referenced_by;
    let found: Vec<(&str, &str, bool)> =
        items.iter().map(|r| (r.table.as_str(), r.column.as_str(), r.nullable)).collect();
    assert_eq!(
        found,
        [
            ("audit", "bench_id", false),
            ("bench", "parent", true),
            ("items", "bench_id", false),
            ("profile", "bench_id", false),
            ("audit", "bench_id", false),
            ("badge", "profile_id", false)
        ],
        "{items:?}"
    );
    let via = items[5].references.as_ref().unwrap();
    assert_eq!((via.table.as_str(), via.column.as_str()), ("profile", "bench_id"));
    // The whole database's script: the profile, advised too, is converted once, with the bench.
    let whole = diagnose(&url(server, "root", "s_uuid4_text"), &DoctorOptions::default()).unwrap();
    let script = migration_sql_for(&url(server, "root", "s_uuid4_text"), &whole).unwrap();
    assert!(script.contains("-- The key is a foreign key to bench.id, and must keep its type"), "{script}");
    assert_eq!(script.matches("`profile` MODIFY `bench_id` UUID").count(), 1, "{script}");
    // audit's column holds both the bench's key and the profile's: its foreign key to the
    // profile is added once the profile's column is converted.
    let profile_at = script.find("`profile` MODIFY").unwrap();
    assert!(
        script.find("ALTER TABLE `audit` ADD CONSTRAINT `audit_profile`").is_some_and(|at| at > profile_at),
        "{script}"
    );
    assert!(script.contains("MODIFY `id` UUID NOT NULL DEFAULT (uuid()) COMMENT 'the bench''s key';"), "{script}");
    assert!(script.contains("ALTER TABLE `items` MODIFY `bench_id` UUID NOT NULL COMMENT 'its bench', ADD CONSTRAINT `items_ibfk_1` FOREIGN KEY (`bench_id`) REFERENCES `s_uuid4_text`.`bench` (`id`) ON DELETE CASCADE"), "{script}");
    for stmt in script.lines().filter(|l| !l.starts_with("--") && !l.trim().is_empty()) {
        db.query_drop(stmt).unwrap();
    }
    let after = diagnose(&url(server, "root", "s_uuid4_text"), &only).unwrap();
    let s = after.tables[0].primary_key.as_ref().unwrap().scheme.as_ref().unwrap();
    assert_eq!((s.scheme, s.storage), (KeyScheme::UuidV4, KeyStorage::NativeUuid), "{after:#?}");
    // Every item still references its row, and the foreign key still holds.
    let joined: Option<u64> = db.query_first("SELECT COUNT(*) FROM items i JOIN bench b ON b.id = i.bench_id").unwrap();
    assert_eq!(joined, Some(1000));
    assert!(db.query_drop("INSERT INTO items (bench_id) VALUES (UUID())").is_err(), "the foreign key holds");
    // Down the chain too: every badge reaches its bench, and its ON DELETE CASCADE is kept.
    let chained: Option<u64> = db
        .query_first("SELECT COUNT(*) FROM badge g JOIN profile p ON p.bench_id = g.profile_id JOIN bench b ON b.id = p.bench_id")
        .unwrap();
    assert_eq!(chained, Some(500));
    let audited: Option<u64> = db
        .query_first(
            "SELECT COUNT(*) FROM audit a JOIN profile p ON p.bench_id = a.bench_id JOIN bench b ON b.id = a.bench_id",
        )
        .unwrap();
    assert_eq!(audited, Some(100));
    let rule: Option<String> = db
        .query_first("SELECT DELETE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 's_uuid4_text' AND CONSTRAINT_NAME = 'badge_profile'")
        .unwrap();
    assert_eq!(rule.as_deref(), Some("CASCADE"));
    let kept: Vec<(String, Option<String>, String)> = db
        .query(
            "SELECT TABLE_NAME, COLUMN_DEFAULT, COLUMN_COMMENT FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 's_uuid4_text' AND (TABLE_NAME, COLUMN_NAME) IN (('bench', 'id'), ('items', 'bench_id')) \
             ORDER BY 1",
        )
        .unwrap();
    assert_eq!(
        kept,
        [("bench".into(), Some("uuid()".into()), "the bench's key".into()), ("items".into(), None, "its bench".into())]
    );
}

#[test]
fn read_only_edge_cases_and_one_line_errors() {
    // Its own database on the shared server.
    let (opts, socket) = shared::mariadb_database("edge");
    let mut conn = mysql::Conn::new(opts).unwrap();
    conn.query_drop(
        "USE edge;
         CREATE TABLE nokey (v TEXT) ENGINE=InnoDB; INSERT INTO nokey VALUES ('x'), ('y');
         CREATE TABLE pair (a INT, b INT, PRIMARY KEY (a, b)) ENGINE=InnoDB; INSERT INTO pair VALUES (1, 2), (2, 1);
         CREATE TABLE empty (id BINARY(16) PRIMARY KEY) ENGINE=InnoDB;",
    )
    .unwrap();
    let u = format!("mysql://root@localhost/edge?socket={}", socket.display());
    let mut session = ReadOnlySession::connect(&u, &Default::default()).unwrap();
    let err = session.conn().query_drop("INSERT INTO pair VALUES (3, 3)").unwrap_err().to_string();
    assert!(err.contains("READ ONLY") || err.contains("read-only") || err.contains("read only"), "{err}");
    let report = diagnose_session(&mut session, &DoctorOptions::default()).unwrap();
    validate(&report);
    assert_eq!(table(&report, "nokey").layout, Layout::ClusteredHiddenKey);
    assert!(table(&report, "nokey").verdict.starts_with("No primary key"));
    assert_eq!(table(&report, "pair").primary_key.as_ref().unwrap().columns, ["a", "b"]);
    assert!(table(&report, "pair").advice.is_empty());
    assert_eq!(table(&report, "empty").rows, 0);
    let flag: Option<i64> = session.conn().query_first("SELECT @@session.tx_read_only").unwrap();
    assert_eq!(flag, Some(1));
    drop(session);
    let n: Option<i64> = conn.query_first("SELECT COUNT(*) FROM edge.pair").unwrap();
    assert_eq!(n, Some(2), "the refused INSERT left nothing");
    let missing = diagnose(&u, &DoctorOptions { table: Some("nope".into()), ..DoctorOptions::default() });
    let missing = missing.unwrap_err();
    assert!(matches!(&missing, pkbench_core::Error::NotFound(_)), "{missing:?}");
    assert!(missing.to_string().contains("no InnoDB or RocksDB table 'nope'"));

    conn.query_drop("CREATE USER doc@localhost IDENTIFIED BY 'Right-Pw-1'; GRANT SELECT ON edge.* TO doc@localhost")
        .unwrap();
    let with = |pw: &str| format!("mariadb://doc:{pw}@localhost/edge?socket={}", socket.display());
    let err = diagnose(&with("Wrong-Secret-9"), &DoctorOptions::default()).unwrap_err().to_string();
    assert!(!err.contains("Wrong-Secret-9") && !err.contains('\n') && err.contains("doc:***@"), "{err}");
    assert!(err.contains("Access denied"), "{err}");
    let err = diagnose("mysql://u:Hidden-Pw-7@127.0.0.1:1/db", &DoctorOptions::default()).unwrap_err().to_string();
    assert!(!err.contains("Hidden-Pw-7") && !err.contains('\n') && err.contains("u:***@127.0.0.1:1"), "{err}");
    // Without access to mysql.innodb_index_stats, doctor falls back to information_schema and says so.
    let report = diagnose(&with("Right-Pw-1"), &DoctorOptions::default()).unwrap();
    assert_eq!(table(&report, "pair").rows, 2);
    assert!(report.notes.iter().any(|n| n.contains("information_schema.TABLES")), "{:?}", report.notes);
}
