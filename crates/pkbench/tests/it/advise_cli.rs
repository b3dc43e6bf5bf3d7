//! `pkbench advise` end to end: a typical table, an existing SQLite table read without being
//! changed or copied, a server table read as a role that may only SELECT it, and every bad
//! input refused with one line.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// A value planted in the user's rows: it must appear in no output and no file advise writes.
const ROW_MARKER: &str = "Row-Marker-9fQ2";

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").unwrap()
}

/// Small sizes: a target a debug build forecasts in seconds, with short calibration runs.
const SMALL: [&str; 4] = ["-n", "200k", "--calibrate-rows", "30k"];

/// advice.json checked against the committed schema.
fn validated(dir: &Path) -> Value {
    let advice: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("advice.json")).unwrap()).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/advice.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&advice).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    advice
}

/// No file under `dir`, and neither output stream, holds [`ROW_MARKER`].
fn assert_no_row_value(out: &std::process::Output, dir: &Path) {
    for bytes in [&out.stdout, &out.stderr] {
        assert!(!String::from_utf8_lossy(bytes).contains(ROW_MARKER), "a row value was printed");
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                assert!(!String::from_utf8_lossy(&bytes).contains(ROW_MARKER), "{} holds a row value", path.display());
            }
        }
    }
}

#[test]
fn advise_answers_for_a_typical_table_with_its_verdict_first() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("advice");
    let out = pkbench().args(["advise", "-s", "int,uuid7,uuid4"]).args(SMALL).arg("-o").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap();
    assert!(first.starts_with("Use ") || first.starts_with("No measurable difference"), "{first}");
    let advice = validated(&out_dir);
    assert_eq!(advice["verdict"], first);
    assert_eq!(advice["target"]["rows"], 200_000);
    let names: Vec<&str> =
        advice["candidates"].as_array().unwrap().iter().map(|c| c["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["int", "uuid7", "uuid4"]);
    for c in advice["candidates"].as_array().unwrap() {
        let t = &c["us_per_row_target"];
        assert!(t["low"].as_f64().unwrap() <= t["value"].as_f64().unwrap(), "{t}");
        assert!(t["value"].as_f64().unwrap() <= t["high"].as_f64().unwrap(), "{t}");
        assert!(c["size_bytes"].as_u64().unwrap() > 0, "{c}");
        // SQLite's WAL: a frame for every page the model writes.
        assert!(c["wal_bytes_per_row"].as_f64().unwrap() > 0.0, "{c}");
    }
    // The HTML page opens on the verdict, then the forecast's report.
    let html = std::fs::read_to_string(out_dir.join("advice.html")).unwrap();
    let verdict_at = html.find("pkbench advise</p><h1>").expect("the verdict section comes first");
    assert!(verdict_at < html.find("pkbench report").unwrap());
    let md = std::fs::read_to_string(out_dir.join("advice.md")).unwrap();
    assert!(md.contains(&format!("**{first}**")), "{md}");
    let json = pkbench()
        .args(["advise", "--format", "json", "-s", "int,uuid4", "--shards", "4"])
        .args(SMALL)
        .arg("-o")
        .arg(dir.path().join("json"))
        .output()
        .unwrap();
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let printed: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(printed, validated(&dir.path().join("json")));
    // Ordered keys crowd the shards whose ranges a batch spans (two of four: a batch is half the
    // rows); random ones spread over all four.
    let shares: Vec<f64> =
        printed["candidates"].as_array().unwrap().iter().map(|c| c["hottest_shard_share"].as_f64().unwrap()).collect();
    assert!(shares[0] >= 0.5 && shares[1] < 0.3, "{shares:?}");
    // Hashed, both keys spread over all four.
    let hashed = pkbench()
        .args(["advise", "--format", "json", "-s", "int-client,uuid4", "--shards", "4", "--sharding", "hash"])
        .args(SMALL)
        .arg("-o")
        .arg(dir.path().join("hash"))
        .output()
        .unwrap();
    assert!(hashed.status.success(), "{}", String::from_utf8_lossy(&hashed.stderr));
    let printed: Value = serde_json::from_slice(&hashed.stdout).unwrap();
    for c in printed["candidates"].as_array().unwrap() {
        assert!(c["hottest_shard_share"].as_f64().unwrap() < 0.3, "{c}");
    }
}

#[test]
fn advise_on_a_schema_file_names_the_columns_that_hold_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shop.sql");
    std::fs::write(
        &file,
        "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer INTEGER NOT NULL);
         CREATE TABLE items (id INTEGER PRIMARY KEY, order_id BIGINT NOT NULL REFERENCES orders (id), qty INTEGER);",
    )
    .unwrap();
    let out_dir = dir.path().join("advice");
    let out = pkbench()
        .args(["advise", "--table", "orders", "-s", "int,uuid4", "--schema"])
        .arg(&file)
        .args(SMALL)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let advice = validated(&out_dir);
    // A file holds no rows: the column, its one copy per item, and each copy's bytes.
    assert_eq!(
        advice["table"]["references"],
        serde_json::json!([{"table": "items", "column": "order_id", "copies": 1}])
    );
    let copy = |i: usize| advice["candidates"][i]["referencing_copy_bytes"].as_f64().unwrap();
    // SQLite's record integer for keys up to 8,388,607, and a 16-byte UUID.
    assert_eq!((copy(0), copy(1)), (3.0, 16.0));
    assert!(advice["candidates"][0].get("referencing_bytes").is_none());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("16 B per copy") && stdout.contains("items.order_id holds the key once per row."),
        "{stdout}"
    );
}

/// A SQLite table keyed by UUIDv4 text, with [`ROW_MARKER`] in every row, and a table of two
/// items per order whose indexed foreign key holds the key.
fn uuid4_text_table(path: &Path, rows: u32) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE orders (id TEXT PRIMARY KEY, customer INTEGER NOT NULL, note TEXT) WITHOUT ROWID;
         CREATE TABLE items (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders (id), qty INTEGER);
         CREATE INDEX items_order ON items (order_id);",
    )
    .unwrap();
    let tx = db.unchecked_transaction().unwrap();
    for i in 0..rows {
        let id = crate::common::uuid4_text(i);
        tx.execute("INSERT INTO orders VALUES (?1, ?2, ?3)", rusqlite::params![id, i % 100, ROW_MARKER]).unwrap();
        for qty in 1..=2 {
            tx.execute("INSERT INTO items (order_id, qty) VALUES (?1, ?2)", rusqlite::params![id, qty]).unwrap();
        }
    }
    tx.commit().unwrap();
}

#[test]
fn advise_reads_a_sqlite_table_without_changing_or_copying_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    uuid4_text_table(&db, 3000);
    let before = std::fs::read(&db).unwrap();
    let out_dir = dir.path().join("advice");
    let out = pkbench()
        .args(["advise", "--table", "orders", "-s", "int,uuid7"])
        .arg(&db)
        .args(SMALL)
        .args(AT_A_RATE)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&db).unwrap(), before, "advise changed the user's database");
    let advice = validated(&out_dir);
    assert_eq!(advice["table"]["rows_now"], 3000);
    assert_eq!(advice["table"]["current_key"]["strategy"], "uuid4-text");
    assert_eq!(advice["candidates"][0]["strategy"], "uuid4-text");
    assert_eq!(advice["candidates"][0]["current"], true);
    // The value shapes, not the values: every note is the marker, so one length.
    let values = std::fs::read_to_string(out_dir.join("input/orders.values.toml")).unwrap();
    assert!(values.contains(&format!("[orders.note]\ndistinct = 1\nlen = \"{}\"", ROW_MARKER.len())), "{values}");
    assert!(values.contains("[orders.customer]\ndistinct = 100"), "{values}");
    // The items referencing an order hold its key twice (the column and its index's entry):
    // two items per order, growing with the orders to the target.
    let references = &advice["table"]["references"];
    assert_eq!(
        references,
        &serde_json::json!([{"table": "items", "column": "order_id", "copies": 2, "rows_now": 6000}])
    );
    let target = advice["target"]["rows"].as_f64().unwrap();
    let referencing = |i: usize| advice["candidates"][i]["referencing_bytes"].as_f64().unwrap();
    // uuid4-text's 36 characters and a length byte, and int's 3 bytes (a record's integer up
    // to 8,388,607), in the 2 copies of 2 × target items.
    assert_eq!(referencing(0), (2.0 * target * 2.0 * 37.0).round());
    assert_eq!(advice["candidates"][1]["strategy"], "int");
    assert_eq!(referencing(1), (2.0 * target * 2.0 * 3.0).round());
    assert!(String::from_utf8_lossy(&out.stdout).contains("items.order_id holds the key 2 times per row"));
    // Another key advised: doctor's script for the table comes with the answer, never run.
    match advice["advised"].as_str().unwrap() {
        "uuid4-text" => assert!(
            advice.get("migration_sql").is_none()
                && advice.get("switch_over").is_none()
                && advice["migration"] == Value::Array(vec![])
        ),
        _ => {
            // What rewriting the table costs: the current key's calibration run rebuilt it,
            // timed, scaled by rows to the table's 3,000.
            let s = &advice["switch_over"];
            assert_eq!((&s["strategy"], &s["rows_now"]), (&Value::from("uuid4-text"), &Value::from(3000)), "{s}");
            let (seconds, rows) = (s["seconds"].as_f64().unwrap(), s["rows"].as_f64().unwrap());
            assert!(seconds > 0.0 && s["size_after_bytes"].as_u64().unwrap() > 0, "{s}");
            assert!((s["seconds_now"].as_f64().unwrap() - seconds * 3000.0 / rows).abs() < 1e-9, "{s}");
            assert!(s["note"].as_str().unwrap().contains("VACUUM"), "{s}");
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("Rewriting orders, as a change of its key's type does")
            );
            let sql = advice["migration_sql"].as_str().unwrap();
            assert!(sql.starts_with("-- pkbench doctor: migration script"), "{sql}");
            assert!(sql.contains("orders"), "{sql}");
            assert_eq!(std::fs::read_to_string(out_dir.join("migration.sql")).unwrap(), sql);
            let table_line = sql.lines().find(|l| l.starts_with("-- table")).expect("a line per table");
            assert!(String::from_utf8_lossy(&out.stdout).contains(table_line), "{sql}");
        }
    }
    assert_checked_at_a_rate(&advice, "sqlite");
    assert_no_row_value(&out, &out_dir);
}

/// A short contention check: 300 rows/s from 16 clients, 1 s per candidate.
const AT_A_RATE: [&str; 4] = ["--insert-rate", "300", "--insert-duration", "1s"];

/// Every candidate of `advice` was sent [`AT_A_RATE`]'s rows on `engine`: its rate reached and
/// latency are in advice.json, its rows in the check's own results, and the verdict says
/// whether the advised key kept up.
fn assert_checked_at_a_rate(advice: &Value, engine: &str) {
    assert_eq!(advice["contention"]["rate"], 300, "{}", advice["contention"]);
    assert_eq!(advice["contention"]["clients"], 16);
    let results = Path::new(advice["contention"]["results_dir"].as_str().unwrap()).join("results.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(results).unwrap()).unwrap();
    for (c, run) in advice["candidates"].as_array().unwrap().iter().zip(doc["runs"].as_array().unwrap()) {
        let k = &c["contention"];
        assert_eq!((&run["strategy"], &run["engine"]), (&c["strategy"], &Value::from(engine)), "{run}");
        assert_eq!(k["rate_asked"], 300, "{k}");
        assert!(k["rate_achieved"].as_f64().unwrap() > 0.0, "{k}");
        assert!(k["p50_ms"].as_f64().unwrap() <= k["p99_ms"].as_f64().unwrap(), "{k}");
        let phase = &run["phases"][0];
        assert_eq!(phase["figures"]["rate_target_per_s"], 300.0, "{phase}");
        assert!(phase["rows"].as_u64().unwrap() > 0, "{phase}");
    }
    assert_eq!(doc["runs"].as_array().unwrap().len(), advice["candidates"].as_array().unwrap().len());
    let verdict = advice["verdict"].as_str().unwrap();
    assert!(verdict.contains("300 rows/s from many clients"), "{verdict}");
}

#[test]
fn bad_input_gets_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    uuid4_text_table(&db, 50);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TABLE loose (a INTEGER, b TEXT);
         CREATE TABLE pairs (a INTEGER, b INTEGER, PRIMARY KEY (a, b));",
    )
    .unwrap();
    drop(c);
    let db = db.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["advise", db, "--table", "nowhere"], "there is no table 'nowhere'"),
        (&["advise", db, "--table", "loose"], "has no primary key"),
        (&["advise", db, "--table", "pairs"], "composite primary key (a, b)"),
        (&["advise", db, "--table", "orders", "-n", "10"], "not above the 50 rows the table holds today"),
        (&["advise", db], "needs --table"),
        (&["advise", "--growth", "2M/day"], "--growth needs --horizon"),
        (&["advise", "--engine", "myrocks"], "measure it with pkbench run --engine myrocks"),
        (&["advise", db, "--table", "orders", "--engine", "postgres"], "does not match the table's engine"),
        (&["advise", "--insert-rate", "0"], "--insert-rate 0 sends nothing"),
        (&["advise", "--insert-rate", "1k", "--clients", "99"], "--clients 99 is out of range"),
        (&["advise", "--shards", "4", "--sharding", "diagonal"], "--sharding 'diagonal' is not known"),
        (&["advise", "--shards", "1"], "--shards 1 is out of range"),
        (&["advise", "--pg-version", "16"], "--pg-version applies to the server engines"),
        (&["advise", db, "--table", "orders", "--server-bin", "/usr/bin"], "this table is on SQLite"),
        (&["advise", "--engine", "mariadb", "--pg-version", "16"], "--pg-version applies to --engine postgres"),
    ];
    for (args, expected) in cases {
        let out_dir = dir.path().join("out");
        let out = pkbench().args(*args).arg("-o").arg(&out_dir).arg("--force").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!out_dir.exists(), "{args:?} left a results folder with nothing measured");
    }
}

/// Advise on managed servers (tier two).
#[cfg(feature = "server-tests")]
mod servers {
    use super::*;
    use pkbench_core::engines::postgres::ManagedPostgres;

    /// advise at `url`, as a login that may not read `orders`: one line that says what to grant,
    /// and no results folder.
    fn refused_without_select(url: &str) {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("advice");
        let out =
            pkbench().args(["advise", "--table", "orders", "--url", url]).arg("-o").arg(&out_dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].ends_with("read-only: grant this login SELECT on orders"), "{stderr}");
        assert!(!out_dir.exists(), "a refused advise left {}", out_dir.display());
    }

    /// Advice on the `orders` table at `url`, with small sizes: it succeeds, holds no row value
    /// in any output or file, and validates against the schema. The folder holds its results.
    fn advise_orders(url: &str, extra: &[&str]) -> (tempfile::TempDir, Value) {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("advice");
        let out = pkbench()
            .args(["advise", "--table", "orders", "-s", "int,uuid7", "--url", url])
            .args(SMALL)
            .args(extra)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_no_row_value(&out, &out_dir);
        let advice = validated(&out_dir);
        // PostgreSQL's model counts WAL; InnoDB's keeps no redo, so there the calibration's.
        for c in advice["candidates"].as_array().unwrap() {
            assert!(c["wal_bytes_per_row"].as_f64().unwrap() > 0.0, "{c}");
        }
        // Where another key is advised: the rebuild the calibration timed on the table's copy.
        if advice["advised"] != advice["table"]["current_key"]["strategy"] {
            let s = &advice["switch_over"];
            assert_eq!(s["rows_now"], advice["table"]["rows_now"], "{s}");
            assert!(s["seconds"].as_f64().unwrap() > 0.0 && s["size_before_bytes"].as_u64().unwrap() > 0, "{s}");
            assert!(
                s["note"].as_str().unwrap().contains("VACUUM FULL")
                    || s["note"].as_str().unwrap().contains("OPTIMIZE TABLE"),
                "{s}"
            );
        }
        (dir, advice)
    }

    #[test]
    fn advise_reads_a_postgres_table_as_a_role_that_may_only_select_it() {
        let server = ManagedPostgres::start(&Default::default(), 32)
            .unwrap_or_else(|e| panic!("could not start PostgreSQL: {e}"));
        let mut admin = server.config().connect(postgres::NoTls).unwrap();
        admin
            .batch_execute(&format!(
                "CREATE TABLE orders (id uuid PRIMARY KEY, customer int NOT NULL, note text);
                 INSERT INTO orders SELECT gen_random_uuid(), g % 100, '{ROW_MARKER}' FROM generate_series(1, 5000) g;
                 CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid NOT NULL REFERENCES orders, note text);
                 CREATE INDEX items_order ON items (order_id);
                 INSERT INTO items (order_id, note) SELECT id, '{ROW_MARKER}' FROM orders, generate_series(1, 3);
                 ANALYZE orders;
                 ANALYZE items;
                 CREATE ROLE reader LOGIN;
                 GRANT SELECT ON orders TO reader;
                 CREATE ROLE stranger LOGIN;"
            ))
            .unwrap();
        // Relations anywhere, schemas, roles and prepared transactions.
        let objects = "SELECT (SELECT count(*) FROM pg_class) + (SELECT count(*) FROM pg_namespace) \
            + (SELECT count(*) FROM pg_roles) + (SELECT count(*) FROM pg_prepared_xacts)";
        let before: i64 = admin.query_one(objects, &[]).unwrap().get(0);
        let at = |role: &str| {
            format!("postgresql://{role}@/postgres?host={}&port={}", server.dir().display(), server.port())
        };
        refused_without_select(&at("stranger"));
        let url = at("reader");
        let (_dir, advice) = advise_orders(&url, &AT_A_RATE);
        assert_checked_at_a_rate(&advice, "postgres");
        assert_eq!(advice["table"]["rows_now"], 5000);
        assert_eq!(advice["table"]["current_key"]["strategy"], "uuid4");
        assert!(advice["table"]["read_only"].as_str().unwrap().contains("read_only"), "{}", advice["table"]);
        // The items the reader may not select: their definition from the catalog, their rows
        // the server's estimate; the key twice per item (the column and its index's entry).
        let items = serde_json::json!([{"table": "items", "column": "order_id", "copies": 2, "rows_now": 15000}]);
        assert_eq!(advice["table"]["references"], items);
        for c in advice["candidates"].as_array().unwrap() {
            assert!(c["referencing_bytes"].as_u64().unwrap() > 0, "{c}");
        }
        let after: i64 = admin.query_one(objects, &[]).unwrap().get(0);
        assert_eq!(before, after, "advise left something behind on the server");
    }

    /// A server of another PostgreSQL major version than the machine's default (16, which
    /// scripts/setup-test-deps installs): advise calibrates on the same major version, and says so.
    #[test]
    fn advise_calibrates_on_the_users_postgres_major_version() {
        let bin = pkbench_core::engines::postgres::bin_dir_for_version(16)
            .unwrap_or_else(|e| panic!("PostgreSQL 16 is missing (run scripts/setup-test-deps): {e}"));
        let options = pkbench_core::engines::server::ManagedOptions { server_bin: Some(bin), ..Default::default() };
        let server =
            ManagedPostgres::start(&options, 32).unwrap_or_else(|e| panic!("could not start PostgreSQL 16: {e}"));
        let mut admin = server.config().connect(postgres::NoTls).unwrap();
        admin
            .batch_execute(
                "CREATE TABLE orders (id uuid PRIMARY KEY, customer int NOT NULL);
                 INSERT INTO orders SELECT gen_random_uuid(), g % 100 FROM generate_series(1, 3000) g;
                 ANALYZE orders;",
            )
            .unwrap();
        let url = format!("postgresql://postgres@/postgres?host={}&port={}", server.dir().display(), server.port());
        let dir = tempfile::tempdir().unwrap();
        let out = pkbench()
            .args(["advise", "--table", "orders", "-s", "int,uuid7", "--url", &url])
            .args(SMALL)
            .arg("-o")
            .arg(dir.path().join("advice"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("Calibrating on PostgreSQL 16, your server's major version"), "{stderr}");
        let advice = validated(&dir.path().join("advice"));
        let on = advice["calibrated_on"].as_str().unwrap();
        assert!(on.starts_with("postgres 16."), "{on}");
        assert!(!advice["not_measured"].to_string().contains("Your server's version"), "{}", advice["not_measured"]);
    }

    /// A random UUIDv4 as 36-character text, in MariaDB's SQL.
    const UUID_V4: &str = "LOWER(CONCAT(HEX(RANDOM_BYTES(4)), '-', HEX(RANDOM_BYTES(2)), '-4', \
        SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-a', SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-', HEX(RANDOM_BYTES(6))))";

    #[test]
    fn advise_reads_a_mariadb_table_as_a_user_that_may_only_select_it() {
        use mysql::prelude::Queryable;
        let (server, port) = crate::credentials_cli::mariadb();
        let mut admin = mysql::Conn::new(server.opts()).unwrap();
        for sql in [
            "CREATE DATABASE shop".to_string(),
            "CREATE TABLE shop.orders (id CHAR(36) PRIMARY KEY, customer INT NOT NULL, note VARCHAR(40))".into(),
            format!("INSERT INTO shop.orders SELECT {UUID_V4}, seq % 100, '{ROW_MARKER}' FROM shop.seq_1_to_4000"),
            "CREATE USER 'reader'@'127.0.0.1'".into(),
            "GRANT SELECT ON shop.orders TO 'reader'@'127.0.0.1'".into(),
            "CREATE USER 'one_column'@'127.0.0.1'".into(),
            "GRANT SELECT (customer) ON shop.orders TO 'one_column'@'127.0.0.1'".into(),
        ] {
            admin.query_drop(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        // Tables anywhere, databases and users.
        let objects = "SELECT (SELECT COUNT(*) FROM information_schema.TABLES) \
            + (SELECT COUNT(*) FROM information_schema.SCHEMATA) + (SELECT COUNT(*) FROM mysql.user)";
        let before: Option<u64> = admin.query_first(objects).unwrap();
        refused_without_select(&format!("mysql://one_column@127.0.0.1:{port}/shop"));
        let url = format!("mysql://reader@127.0.0.1:{port}/shop");
        let (_dir, advice) = advise_orders(&url, &[]);
        assert_eq!(advice["table"]["rows_now"], 4000);
        assert_eq!(advice["table"]["current_key"]["strategy"], "uuid4-text");
        assert!(
            advice["table"]["read_only"].as_str().unwrap().to_lowercase().contains("read only"),
            "{}",
            advice["table"]
        );
        let after: Option<u64> = admin.query_first(objects).unwrap();
        assert_eq!(before, after, "advise left something behind on the server");
    }
}
