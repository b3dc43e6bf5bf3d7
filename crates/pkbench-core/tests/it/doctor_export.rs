//! `doctor --export-schema` on the shared managed PostgreSQL and MariaDB servers (a database each): a
//! parent (three secondary indexes, TEXT and JSON columns with NULLs) and a child with a foreign
//! key, filled with rows of known lengths and one marker value. The exported files must parse
//! back to the same tables, indexes and foreign keys; values generated from them must have the
//! source's mean widths within 10% and its NULL shares; and no row value may appear in them.

use crate::common::shared;
use mysql::prelude::Queryable;
use pkbench_core::doctor::export::{EXPORT_SAMPLE_ROWS, render};
use pkbench_core::doctor::export_target;
use pkbench_core::engines::EngineKind;
use pkbench_core::schema::parse;
use pkbench_core::values::{ColumnGenerator, Sidecar, resolve};

const MARKER: &str = "MARKER-7f3a9c";
const ROWS: u64 = 3_000;

/// Source truth of a column: its mean length over non-NULL values and its NULL share.
struct Truth {
    column: &'static str,
    mean: f64,
    nulls: f64,
}

/// Checks the exported files against the source.
fn check(engine: EngineKind, schema_text: &str, values_text: &str, truths: &[Truth]) {
    assert!(!schema_text.contains(MARKER) && !values_text.contains(MARKER), "a row value was exported");
    let schema = parse(schema_text, Some(engine)).unwrap_or_else(|e| panic!("{e}\n{schema_text}"));
    let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["plans", "accounts", "orders"], "{schema_text}");
    let accounts = schema.table("accounts").unwrap();
    assert_eq!(accounts.primary_key, ["id"]);
    for (index, columns) in [
        ("accounts_email", vec!["email"]),
        ("accounts_country_created", vec!["country", "created_at"]),
        ("accounts_created", vec!["created_at"]),
    ] {
        let i = accounts.indexes.iter().find(|i| i.name.as_deref() == Some(index)).unwrap_or_else(|| panic!("{index}"));
        assert_eq!(i.columns, columns, "{index}");
    }
    assert!(accounts.indexes.iter().any(|i| i.unique && i.columns == ["email"]));
    let orders = schema.table("orders").unwrap();
    assert!(orders.foreign_keys.iter().any(|fk| fk.table == "accounts" && fk.columns == ["account_id"]));
    assert!(accounts.foreign_keys.iter().any(|fk| fk.table == "plans"));
    let sidecar = Sidecar::parse(values_text).unwrap_or_else(|e| panic!("{e}\n{values_text}"));
    for t in truths {
        let column = accounts.column(t.column).unwrap();
        let layers: Vec<_> = sidecar.column("accounts", t.column).into_iter().collect();
        let spec = resolve(column.sql_type.unwrap(), &layers).unwrap();
        let mut g = ColumnGenerator::new(spec, 1).unwrap();
        let (mut n, mut nulls, mut len) = (0.0, 0.0, 0.0);
        for _ in 0..20_000 {
            n += 1.0;
            match g.next_value() {
                v if v.is_null() => nulls += 1.0,
                v => len += v.text().map_or(0, |s| s.chars().count()) as f64,
            }
        }
        let mean = len / (n - nulls);
        assert!((mean - t.mean).abs() / t.mean < 0.10, "{}: generated mean width {mean}, source {}", t.column, t.mean);
        assert!(
            (nulls / n - t.nulls).abs() < 0.05,
            "{}: generated NULL share {}, source {}",
            t.column,
            nulls / n,
            t.nulls
        );
    }
}

#[test]
fn postgres_export_reproduces_the_shape_and_widths_without_values() {
    let config = shared::postgres_database("export_pg");
    let mut db = config.connect(postgres::NoTls).unwrap();
    db.batch_execute(&format!(
        "CREATE SCHEMA app;
         CREATE TABLE app.plans (id integer PRIMARY KEY, name varchar(20) NOT NULL);
         CREATE TABLE app.accounts (id bigint PRIMARY KEY, plan_id integer NOT NULL REFERENCES app.plans (id),
             email varchar(120) NOT NULL, name text, country char(2) NOT NULL, created_at timestamptz NOT NULL, profile jsonb);
         CREATE UNIQUE INDEX accounts_email ON app.accounts (email);
         CREATE INDEX accounts_country_created ON app.accounts (country, created_at);
         CREATE INDEX accounts_created ON app.accounts (created_at);
         CREATE TABLE app.orders (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES app.accounts (id), amount numeric(10,2) NOT NULL);
         INSERT INTO app.plans SELECT g, 'plan' || g FROM generate_series(1, 5) g;
         INSERT INTO app.accounts SELECT g, 1 + g % 5, 'user' || g || repeat('x', g % 30) || '@example.com',
             CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('n', 3 + g % 20) END, 'de', now() - g * interval '1 s',
             CASE WHEN g % 4 = 0 THEN NULL ELSE jsonb_build_object('k', repeat('v', 50 + g % 100)) END
             FROM generate_series(1, {ROWS}) g;
         UPDATE app.accounts SET name = '{MARKER}' WHERE id = 7;
         INSERT INTO app.orders SELECT g, 1 + g % {ROWS}, g FROM generate_series(1, {}) g;
         ANALYZE;",
        ROWS * 2
    ))
    .unwrap();
    let mut truth = |sql: &str| -> f64 { db.query_one(sql, &[]).unwrap().get(0) };
    let truths = [
        Truth { column: "email", mean: truth("SELECT avg(length(email))::float8 FROM app.accounts"), nulls: 0.0 },
        Truth {
            column: "name",
            mean: truth("SELECT avg(length(name))::float8 FROM app.accounts"),
            nulls: truth("SELECT avg((name IS NULL)::int)::float8 FROM app.accounts"),
        },
    ];
    let url = shared::postgres_url(&config, "postgres");
    let (engine, version, tables) =
        export_target(&url, Some("app"), "accounts", EXPORT_SAMPLE_ROWS, &Default::default()).unwrap();
    assert_eq!(engine, EngineKind::Postgres);
    let accounts = tables.iter().find(|t| t.name == "accounts").unwrap();
    assert_eq!(accounts.sampled, ROWS);
    let files = render(engine, &version, "accounts", &tables, "x.values.toml").unwrap();
    check(engine, &files.schema, &files.values, &truths);
}

#[test]
fn mariadb_export_reproduces_the_shape_and_widths_without_values() {
    let (_, socket) = shared::mariadb_database("export_app");
    let url = format!("mysql://root@localhost/export_app?socket={}", socket.display());
    let mut db =
        mysql::Conn::new(mysql::OptsBuilder::new().user(Some("root")).socket(Some(socket.display().to_string())))
            .unwrap();
    db.query_drop(
        "USE export_app;
         CREATE TABLE plans (id int PRIMARY KEY, name varchar(20) NOT NULL);
         CREATE TABLE accounts (id bigint PRIMARY KEY, plan_id int NOT NULL, email varchar(120) NOT NULL, name text,
             country char(2) NOT NULL, created_at datetime(6) NOT NULL, profile json,
             UNIQUE KEY accounts_email (email), KEY accounts_country_created (country, created_at),
             KEY accounts_created (created_at), FOREIGN KEY (plan_id) REFERENCES plans (id));
         CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, amount decimal(10,2) NOT NULL,
             FOREIGN KEY (account_id) REFERENCES accounts (id));
         INSERT INTO plans SELECT seq, CONCAT('plan', seq) FROM seq_1_to_5;",
    )
    .unwrap();
    db.query_drop(format!(
        "INSERT INTO accounts SELECT seq, 1 + seq % 5, CONCAT('user', seq, REPEAT('x', seq % 30), '@example.com'),
             IF(seq % 5 = 0, NULL, REPEAT('n', 3 + seq % 20)), 'de', NOW(6) - INTERVAL seq SECOND,
             IF(seq % 4 = 0, NULL, JSON_OBJECT('k', REPEAT('v', 50 + seq % 100))) FROM seq_1_to_{ROWS};
         UPDATE accounts SET name = '{MARKER}' WHERE id = 7;
         INSERT INTO orders SELECT seq, 1 + seq % {ROWS}, seq FROM seq_1_to_{};",
        ROWS * 2
    ))
    .unwrap();
    let mut truth = |sql: &str| -> f64 { db.query_first::<f64, _>(sql).unwrap().unwrap() };
    let truths = [
        Truth { column: "email", mean: truth("SELECT AVG(CHAR_LENGTH(email)) FROM accounts"), nulls: 0.0 },
        Truth {
            column: "name",
            mean: truth("SELECT AVG(CHAR_LENGTH(name)) FROM accounts"),
            nulls: truth("SELECT AVG(name IS NULL) FROM accounts"),
        },
    ];
    let (engine, version, tables) =
        export_target(&url, None, "accounts", EXPORT_SAMPLE_ROWS, &Default::default()).unwrap();
    assert_eq!(engine, EngineKind::MariaDb);
    let files = render(engine, &version, "accounts", &tables, "x.values.toml").unwrap();
    check(engine, &files.schema, &files.values, &truths);
}
