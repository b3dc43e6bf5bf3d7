//! `pkbench schema FILE`: a user's schema read and shown per strategy, no database; bad files
//! get one line naming the line, and a non-zero exit.

use assert_cmd::Command;
use predicates::str::contains;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

const FIXTURE: &str = "../pkbench-core/tests/fixtures/schema/accounts_orders.pg.sql";

#[test]
fn the_test_schema_is_shown_per_strategy_on_each_engine() {
    for (engine, key) in [
        ("postgres", "\"id\" uuid NOT NULL PRIMARY KEY"),
        ("mariadb", "`id` BINARY(16) NOT NULL PRIMARY KEY"),
        ("sqlite", "WITHOUT ROWID"),
    ] {
        pkbench()
            .args(["schema", FIXTURE, "--engine", engine, "-s", "int,uuid4"])
            .assert()
            .success()
            .stdout(contains("2 tables; key table accounts (line 1), its key id replaced by each strategy"))
            .stdout(contains("-- uuid4 on"))
            .stdout(contains(key))
            .stdout(contains("FOREIGN KEY"));
    }
}

#[test]
fn bad_schema_files_get_one_line_with_the_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "syntax.sql",
            "\nCREATE TABLE t (id bigint PRIMARY KEY,\n  x int,,\n);",
            "line 2: the statement does not parse",
        ),
        ("nokey.sql", "CREATE TABLE t (a int);", "line 1: table t has no primary key"),
        (
            "composite.sql",
            "\n\nCREATE TABLE t (a int, b int, PRIMARY KEY (a, b));",
            "line 3: table t's primary key is composite",
        ),
        (
            "type.sql",
            "CREATE TABLE t (id bigint PRIMARY KEY,\n  area polygon);",
            "line 2: pkbench cannot generate values for t.area",
        ),
        (
            "fk.sql",
            "CREATE TABLE c (id int PRIMARY KEY,\n  p int REFERENCES parent (id));",
            "line 2: table c's foreign key (p) references table parent",
        ),
    ];
    for (name, sql, message) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, sql).unwrap();
        let out = pkbench().arg("schema").arg(&path).output().unwrap();
        assert!(!out.status.success(), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{name}: {stderr}");
        assert!(lines[0].starts_with("Error: ") && lines[0].contains(message), "{name}: {stderr}");
    }
}
