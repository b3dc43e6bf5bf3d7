//! `pkbench doctor` end to end: databases kept by `pkbench run`, read back by doctor, with the
//! JSON checked against the committed schema and the files checked unchanged.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").unwrap()
}

fn doctor_json(db: &Path) -> Value {
    let out = pkbench().args(["doctor", "--format", "json"]).arg(db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&report).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    report
}

#[test]
fn doctor_reads_what_run_kept_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    pkbench()
        .args([
            "run",
            "-s",
            "int,uuid4,uuid4-text,uuid7",
            "-n",
            "3000",
            "-b",
            "1000",
            "--keep-db",
            "--sync",
            "off",
            "-q",
        ])
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let expected = [
        ("int", "sequence", "integer", "rowid-alias", None),
        ("uuid4", "uuid-v4", "blob16", "without-rowid", Some("time-ordered-key")),
        ("uuid4-text", "uuid-v4", "text36", "without-rowid", Some("time-ordered-key")),
        ("uuid7", "uuid-v7", "blob16", "without-rowid", None),
    ];
    for (strategy, scheme, storage, layout, top) in expected {
        let db = out.join(format!("{strategy}.sqlite"));
        let before = std::fs::read(&db).unwrap();
        let mtime = std::fs::metadata(&db).unwrap().modified().unwrap();
        let report = doctor_json(&db);
        let t = &report["tables"][0];
        assert_eq!(t["layout"], layout, "{strategy}");
        assert_eq!(t["primary_key"]["scheme"]["scheme"], scheme, "{strategy}");
        assert_eq!(t["primary_key"]["scheme"]["storage"], storage, "{strategy}");
        assert_eq!(t["advice"][0]["kind"].as_str(), top, "{strategy}: {t:#}");
        if strategy == "uuid4-text" {
            assert_eq!(t["advice"][1]["kind"], "binary-storage");
        }
        assert_eq!(std::fs::read(&db).unwrap(), before, "{strategy}: file changed");
        assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), mtime, "{strategy}: mtime changed");
    }
    pkbench()
        .args(["doctor", "--sql"])
        .arg(out.join("uuid4-text.sqlite"))
        .assert()
        .success()
        .stdout(predicate::str::contains("switch new keys to UUIDv7"))
        .stdout(predicate::str::contains("unhex(replace(\"id\", '-', ''))"));
    pkbench()
        .args(["doctor", "--format", "md", "--table", "bench"])
        .arg(out.join("int.sqlite"))
        .assert()
        .success()
        .stdout(predicate::str::contains("The key is fine"));
}

#[test]
fn servers_and_bad_files_get_one_line_errors() {
    for url in ["postgres://user:Pw-Hidden-3@127.0.0.1:1/db", "mariadb://user:Pw-Hidden-3@127.0.0.1:1/db"] {
        let out = pkbench().args(["doctor", url]).output().unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("could not connect to") && stderr.contains("user:***@127.0.0.1:1"), "{stderr}");
        // The password typed in the URL gets its warning, then the error's one line.
        let lines: Vec<&str> = stderr.trim().lines().collect();
        assert!(!stderr.contains("Pw-Hidden-3") && lines.len() == 2, "{stderr}");
        assert!(lines[0].starts_with("Warning: the password in the URL") && lines[1].starts_with("Error:"), "{stderr}");
    }
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    pkbench()
        .arg("doctor")
        .arg(&junk)
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a database").and(predicate::str::contains("panicked").not()));
}

/// Doctor on a managed PostgreSQL server (tier two).
#[cfg(feature = "server-tests")]
mod servers {
    use super::*;

    #[test]
    fn doctor_reads_a_postgres_url_read_only() {
        use pkbench_core::engines::postgres::ManagedPostgres;
        let server = ManagedPostgres::start(&Default::default(), 16)
            .unwrap_or_else(|e| panic!("could not start PostgreSQL: {e}"));
        let mut client = server.config().connect(postgres::NoTls).unwrap();
        client
            .batch_execute(
                "CREATE TABLE orders (id char(36) PRIMARY KEY, note text);
                 INSERT INTO orders SELECT gen_random_uuid()::text, 'x' FROM generate_series(1, 3000);",
            )
            .unwrap();
        let url = format!("postgresql://postgres@/postgres?host={}&port={}", server.dir().display(), server.port());
        let out = pkbench().args(["doctor", "--format", "json", &url]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let schema: Value = serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator.iter_errors(&report).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let t = &report["tables"][0];
        assert_eq!(t["layout"], "heap-with-key-index");
        assert_eq!(t["primary_key"]["scheme"]["storage"], "text36");
        assert_eq!(t["advice"][0]["kind"], "time-ordered-key");
        assert!(report["read_only"].as_str().unwrap().contains("transaction_read_only = on"));
        pkbench()
            .args(["doctor", "--sql", "--format", "md", "--table", "orders", &url])
            .assert()
            .success()
            .stdout(predicate::str::contains("ALTER COLUMN \"id\" TYPE uuid USING \"id\"::uuid"));
    }
}

/// The migration script `doctor --sql --table orders` prints after its report on `db`.
fn orders_script(db: &Path) -> String {
    let out = pkbench().args(["doctor", "--sql", "--table", "orders"]).arg(db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    let at = printed.find("-- pkbench doctor: migration script").expect("the script follows the report");
    printed[at..].to_string()
}

/// A shop whose orders are keyed by UUIDv4 text: a parent they reference, a CHECK, an index, a
/// trigger and a view on them, and two tables whose foreign keys hold their key (one of them
/// deleting with its order).
fn text_keyed_shop(path: &Path) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "PRAGMA foreign_keys = ON;
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
         CREATE TABLE orders (id TEXT PRIMARY KEY, customer INTEGER NOT NULL REFERENCES customers (id),
           total INTEGER CHECK (total >= 0), paid INTEGER CHECK (paid IN (0, 1)), parent TEXT REFERENCES orders (id));
         CREATE INDEX orders_customer ON orders (customer);
         CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE, qty INTEGER);
         CREATE TABLE shipments (order_id TEXT PRIMARY KEY REFERENCES orders, carrier TEXT) WITHOUT ROWID;
         CREATE TABLE tracking (shipment TEXT REFERENCES shipments (order_id), at INTEGER);
         CREATE INDEX items_order ON items (order_id);
         CREATE TABLE notes (order_id TEXT REFERENCES orders, body TEXT);
         CREATE TABLE audit (n INTEGER);
         CREATE TRIGGER orders_audit AFTER INSERT ON orders BEGIN INSERT INTO audit VALUES (1); END;
         CREATE VIEW big AS SELECT id FROM orders WHERE total > 10;
         INSERT INTO customers VALUES (1, 'a'), (2, 'b');",
    )
    .unwrap();
    let tx = db.unchecked_transaction().unwrap();
    for i in 0..400u32 {
        let id = crate::common::uuid4_text(i);
        let parent = (i > 0).then(|| crate::common::uuid4_text(i - 1));
        tx.execute("INSERT INTO orders VALUES (?1, ?2, ?3, 1, ?4)", rusqlite::params![id, 1 + i % 2, i, parent])
            .unwrap();
        tx.execute("INSERT INTO shipments VALUES (?1, 'post')", [&id]).unwrap();
        tx.execute("INSERT INTO tracking VALUES (?1, ?2)", rusqlite::params![id, i]).unwrap();
        tx.execute("INSERT INTO items (order_id, qty) VALUES (?1, 1), (?1, 2)", [&id]).unwrap();
        tx.execute("INSERT INTO notes VALUES (?1, 'n')", [&id]).unwrap();
    }
    // A deleted item: its id must not be given again.
    tx.execute("DELETE FROM items WHERE id = (SELECT max(id) FROM items)", []).unwrap();
    tx.commit().unwrap();
}

#[test]
fn the_sqlite_migration_script_converts_every_column_holding_the_key_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    text_keyed_shop(&db);
    let script = &orders_script(&db);
    assert!(script.contains("PRAGMA foreign_keys = OFF;"), "{script}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    conn.execute_batch(script).unwrap_or_else(|e| panic!("{e}\n{script}"));
    let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    // Nothing lost, nothing deleted by the cascade, every key and reference now 16 bytes.
    assert_eq!((one("SELECT count(*) FROM orders"), one("SELECT count(*) FROM items")), (400, 799));
    assert_eq!(one("SELECT count(*) FROM notes"), 400);
    // Each column that holds a key, through any chain of foreign keys, its own table's included.
    let holding = [
        ("orders", "id"),
        ("orders", "parent"),
        ("items", "order_id"),
        ("notes", "order_id"),
        ("shipments", "order_id"),
        ("tracking", "shipment"),
    ];
    for (table, column) in holding {
        let blobs =
            one(&format!("SELECT count(*) FROM {table} WHERE typeof({column}) = 'blob' AND length({column}) = 16"));
        let rows = one(&format!("SELECT count(*) FROM {table} WHERE {column} IS NOT NULL"));
        assert_eq!(blobs, rows, "{table}.{column}");
    }
    assert_eq!(one("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    assert_eq!(one("SELECT count(*) FROM items JOIN orders ON orders.id = items.order_id"), 799);
    // The definitions as written, but for the column's type: the CHECK, every foreign key and its
    // action, the indexes, the trigger; the view still reads the table.
    let sql = |name: &str| -> String {
        conn.query_row("SELECT sql FROM sqlite_master WHERE name = ?1", [name], |r| r.get(0)).unwrap()
    };
    assert!(
        sql("orders").contains("CHECK (total >= 0)") && sql("orders").contains("REFERENCES customers"),
        "{}",
        sql("orders")
    );
    assert!(sql("items").contains("ON DELETE CASCADE"), "{}", sql("items"));
    for name in ["orders_customer", "items_order", "orders_audit"] {
        assert!(!sql(name).is_empty(), "{name}");
    }
    assert_eq!(one("SELECT count(*) FROM big"), 389);
    assert!(conn.execute("INSERT INTO orders VALUES (x'00', 1, -1)", []).is_err(), "the CHECK holds");
    assert!(conn.execute("INSERT INTO items (order_id) VALUES (x'00')", []).is_err(), "the foreign key holds");
    assert_eq!(one("SELECT count(*) FROM orders o JOIN orders p ON p.id = o.parent"), 399);
    assert_eq!(one("SELECT count(*) FROM tracking t JOIN shipments s ON s.order_id = t.shipment"), 400);
    conn.execute("INSERT INTO items (order_id) SELECT id FROM orders LIMIT 1", []).unwrap();
    assert_eq!(one("SELECT max(id) FROM items"), 801, "the AUTOINCREMENT sequence went on");
}

#[test]
fn a_sqlite_key_a_check_reads_as_text_is_left_as_it_is_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    text_keyed_shop(&db);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE refunds (order_id TEXT REFERENCES orders CHECK (length(order_id) = 36))").unwrap();
    let script = &orders_script(&db);
    assert!(
        script.contains("-- Not converted here: \"refunds\": a CHECK or generated column reads \"order_id\" as text."),
        "{script}"
    );
    assert!(!script.contains("DROP TABLE"), "{script}");
}

#[test]
fn a_sqlite_script_that_fails_on_a_row_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    text_keyed_shop(&db);
    let conn = rusqlite::Connection::open(&db).unwrap();
    // One order's key is not hexadecimal: it would convert to NULL, and so would the note that
    // references it, which no reference check would see.
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         INSERT INTO orders VALUES ('not-a-uuid-at-all-xxxxxxxxxxxxxxxxxx', 1, 1, 0, NULL);
         INSERT INTO notes VALUES ('not-a-uuid-at-all-xxxxxxxxxxxxxxxxxx', 'n');",
    )
    .unwrap();
    let script = &orders_script(&db);
    // As `sqlite3 -bail` runs it: the first error stops it, and the open transaction rolls back.
    let error = conn.execute_batch(script).expect_err("the value stops the script");
    assert!(error.to_string().contains("CHECK constraint failed: n = 0"), "{error}");
    drop(conn);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let text: i64 = conn.query_row("SELECT count(*) FROM orders WHERE typeof(id) = 'text'", [], |r| r.get(0)).unwrap();
    assert_eq!(text, 401, "nothing was committed");
}
