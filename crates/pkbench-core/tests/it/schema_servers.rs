//! A user's schema file rendered for each strategy runs on real PostgreSQL and MariaDB servers
//! (the shared managed ones, in databases of this test's own): every statement is accepted, rows
//! go in, and a child row whose parent does not exist is refused by the foreign key. A missing
//! server binary fails the test.

use crate::common::shared;
use mysql::prelude::Queryable;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::schema_sql::render;
use pkbench_core::schema::parse;
use pkbench_core::strategy::find;

const SCHEMA: &str = include_str!("../fixtures/schema/accounts_orders.pg.sql");
const STRATEGIES: [&str; 4] = ["int", "uuid7", "uuid4", "uuid4-text"];

#[test]
fn the_test_schema_runs_on_postgres_for_every_strategy() {
    let schema = parse(SCHEMA, Some(EngineKind::Postgres)).unwrap();
    let mut db = shared::postgres_database("schema_servers").connect(postgres::NoTls).unwrap();
    for (i, name) in STRATEGIES.iter().enumerate() {
        let ns = format!("s{i}");
        db.batch_execute(&format!("CREATE SCHEMA {ns}")).unwrap();
        for stmt in render(&schema, "accounts", find(name).unwrap(), EngineKind::Postgres, &ns).unwrap() {
            db.batch_execute(&stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
        }
        // The identity makes int's key; the others take a literal of their type.
        let (columns, key, missing) = match *name {
            "int" => ("email, country, created_at", "", "999"),
            "uuid4-text" => (
                "id, email, country, created_at",
                "'0190e5c2-7b7a-7c3e-9a1b-123456789abc', ",
                "'ffffffff-ffff-4fff-bfff-ffffffffffff'",
            ),
            _ => (
                "id, email, country, created_at",
                "'0190e5c2-7b7a-7c3e-9a1b-123456789abc'::uuid, ",
                "'ffffffff-ffff-4fff-bfff-ffffffffffff'::uuid",
            ),
        };
        db.batch_execute(&format!("INSERT INTO {ns}.accounts ({columns}) VALUES ({key}'a@x', 'de', now())")).unwrap();
        let child = format!("INSERT INTO {ns}.orders (id, account_id, amount) SELECT 1, id, 9.5 FROM {ns}.accounts");
        assert_eq!(db.execute(&child, &[]).unwrap(), 1, "{name}");
        let orphan = format!("INSERT INTO {ns}.orders (id, account_id, amount) VALUES (2, {missing}, 1)");
        let e = db.execute(&orphan, &[]).unwrap_err();
        assert_eq!(
            e.code(),
            Some(&postgres::error::SqlState::FOREIGN_KEY_VIOLATION),
            "{name}: the foreign key holds: {e:?}"
        );
    }
}

#[test]
fn the_test_schema_runs_on_mariadb_for_every_strategy() {
    let schema = parse(SCHEMA, Some(EngineKind::Postgres)).unwrap();
    let (opts, _) = shared::mariadb_database("schema_servers");
    let mut db = mysql::Conn::new(opts).unwrap();
    for (i, name) in STRATEGIES.iter().enumerate() {
        // A database per strategy, named apart from other tests' on the shared server.
        let ns = format!("schema_s{i}");
        db.query_drop(format!("CREATE DATABASE {ns}")).unwrap();
        for stmt in render(&schema, "accounts", find(name).unwrap(), EngineKind::MariaDb, &ns).unwrap() {
            db.query_drop(&stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
        }
        let key = match *name {
            "int" => "NULL".to_string(),
            "uuid4-text" => "'0190e5c2-7b7a-7c3e-9a1b-123456789abc'".to_string(),
            _ => "x'0190e5c27b7a7c3e9a1b123456789abc'".to_string(),
        };
        db.query_drop(format!(
            "INSERT INTO {ns}.accounts (id, email, country, created_at) VALUES ({key}, 'a@x', 'de', NOW(6))"
        ))
        .unwrap();
        db.query_drop(format!("INSERT INTO {ns}.orders (id, account_id, amount) SELECT 1, id, 9.5 FROM {ns}.accounts"))
            .unwrap();
        let orphan = match *name {
            "int" => format!("INSERT INTO {ns}.orders (id, account_id, amount) VALUES (2, 999, 1)"),
            "uuid4-text" => format!(
                "INSERT INTO {ns}.orders (id, account_id, amount) VALUES (2, 'ffffffff-ffff-4fff-bfff-ffffffffffff', 1)"
            ),
            _ => format!(
                "INSERT INTO {ns}.orders (id, account_id, amount) VALUES (2, x'ffffffffffff4fffbfffffffffffffff', 1)"
            ),
        };
        let e = db.query_drop(&orphan).unwrap_err().to_string();
        assert!(e.contains("foreign key constraint fails"), "{name}: the foreign key holds: {e}");
    }
}
