//! `pkbench schema FILE` and `pkbench run --schema FILE`: a user's schema read and shown per
//! strategy without a database, or run on SQLite with every row verified; bad files and flags
//! get one line (naming the line), a non-zero exit, and no results folder.

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
            .stdout(contains(
                "2 tables written for PostgreSQL; key table accounts (line 1), its key id replaced by each strategy",
            ))
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
    let out_dir = dir.path().join("results");
    for (name, sql, message) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, sql).unwrap();
        one_line_error(pkbench().arg("schema").arg(&path), message);
        // `run --schema` refuses the same file before it creates anything.
        one_line_error(pkbench().args(["run", "--schema"]).arg(&path).arg("-o").arg(&out_dir), message);
        assert!(!out_dir.exists(), "{name}");
    }
}

/// Runs `cmd`, which must fail with one line containing `message`.
fn one_line_error(cmd: &mut Command, message: &str) {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "{message}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{message}: {stderr}");
    assert!(lines[0].starts_with("Error: ") && lines[0].contains(message), "{message}: {stderr}");
}

const RUN_FIXTURE: &str = "../pkbench-core/tests/fixtures/schema/plans_accounts_orders.pg.sql";

#[test]
fn run_schema_on_sqlite_verifies_every_row_and_measures_every_index() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    pkbench()
        .args(["run", "--schema", RUN_FIXTURE, "--table", "accounts", "-s", "int,uuid4-text", "-n", "2k", "-b", "1k"])
        .args(["--parent-rows", "20", "--reads", "100", "--quiet", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("Secondary indexes of accounts, all together: int"))
        .stdout(contains("key's share"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("../../schema/results.schema.json").unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&doc), "{:?}", validator.iter_errors(&doc).map(|e| e.to_string()).collect::<Vec<_>>());
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["workload"], "schema");
        assert_eq!(run["complete"], true);
        // 20 plans, 2,000 accounts, 2 orders each.
        assert_eq!(run["verified_rows"], 6_020);
        let trees = run["btrees"].as_array().unwrap();
        let email = trees.iter().find(|b| b["name"] == "accounts.accounts_email").expect("the email index is measured");
        assert!(email["key_share"].as_f64().is_some());
    }
    // The report draws every table and index per strategy, the key's bytes in each.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<figure id=\"indexes\">"), "no per-index chart");
    assert!(html.contains("accounts.accounts_email · uuid4-text"));
}

#[test]
fn run_schema_flags_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let bad_values = dir.path().join("values.toml");
    std::fs::write(&bad_values, "[accounts.name]\nnulls = 2\n").unwrap();
    let values = bad_values.to_str().unwrap();
    let o = out.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["run", "--parent-rows", "5", "-o", o], "--parent-rows does not apply to --workload insert-growth"),
        (&["run", "--workload", "schema", "-o", o], "--workload schema needs your schema: add --schema FILE.sql"),
        (&["run", "--schema", RUN_FIXTURE, "-o", o], "choose the table whose key to replace with --table"),
        (&["run", "--schema", RUN_FIXTURE, "--table", "accounts", "-s", "uuid7+uuid4-map", "-o", o], "uuid7+uuid4-map"),
        (&["run", "--schema", RUN_FIXTURE, "--table", "accounts", "--values", values, "-o", o], "accounts.name"),
        (
            &["run", "--schema", RUN_FIXTURE, "--table", "accounts", "--engine", "spider", "-o", o],
            "--workload schema does not run on",
        ),
    ];
    for (args, message) in cases {
        one_line_error(pkbench().args(args), message);
        assert!(!out.exists(), "{args:?}");
    }
}

#[test]
fn predict_schema_lays_out_every_tree_of_the_key_table() {
    pkbench()
        .args(["predict", "--schema", RUN_FIXTURE, "--table", "accounts", "-s", "int,uuid4", "-n", "5k"])
        .assert()
        .success()
        .stdout(contains("accounts after 5000 rows"))
        .stdout(contains("uuid4          accounts.accounts_country_created"));
    let server_model = |engine: &str| {
        let args = ["predict", "--schema", RUN_FIXTURE, "--table", "accounts", "-s", "uuid4", "-n", "5k", "--engine"];
        pkbench().args(args).arg(engine).assert().success()
    };
    server_model("postgres")
        .stdout(contains("(postgres page model)"))
        .stdout(contains("uuid4          accounts.accounts_pkey"));
    // InnoDB adds an index for the foreign key no index starts with.
    server_model("mariadb").stdout(contains("uuid4          accounts.plan_id"));
    one_line_error(
        pkbench().args(["predict", "--schema", RUN_FIXTURE, "--table", "accounts", "--engine", "spider"]),
        "predict --schema models sqlite, postgres, mariadb, not spider",
    );
    one_line_error(
        pkbench().args([
            "predict",
            "--schema",
            RUN_FIXTURE,
            "--table",
            "accounts",
            "--engine",
            "postgres",
            "--page-size",
            "4096",
        ]),
        "--page-size is SQLite's",
    );
    // It writes no results folder and times nothing: the page model's flags are refused.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for flag in [["--out", out.to_str().unwrap()], ["--calibrate-from", "results.json"], ["--scale", "4"]] {
        one_line_error(
            pkbench().args(["predict", "--schema", RUN_FIXTURE, "--table", "accounts", "-n", "5k"]).args(flag),
            &format!("{} is for the page model: predict --schema prints the key table's trees only", flag[0]),
        );
    }
    assert!(!out.exists(), "predict --schema -o made a folder");
}

/// A mysqldump file (backquotes, `ENGINE=`, `AUTO_INCREMENT`), written for this test.
const MYSQLDUMP: &str = "-- MySQL dump 10.13  Distrib 8.0.36\n\
/*!40101 SET NAMES utf8mb4 */;\n\
CREATE TABLE `customer` (\n  `customer_id` smallint unsigned NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (`customer_id`)\n) ENGINE=InnoDB;\n\
CREATE TABLE `rental` (\n  `rental_id` int NOT NULL AUTO_INCREMENT,\n  `rental_date` datetime NOT NULL,\n  `customer_id` smallint unsigned NOT NULL,\n  PRIMARY KEY (`rental_id`),\n  UNIQUE KEY `rental_date` (`rental_date`,`customer_id`),\n  CONSTRAINT `fk_rental_customer` FOREIGN KEY (`customer_id`) REFERENCES `customer` (`customer_id`)\n) ENGINE=InnoDB;\n";

/// Without --engine, a mysqldump file is read as MariaDB/MySQL and a pg_dump file as
/// PostgreSQL; given the wrong engine, the one line says which to give.
#[test]
fn the_files_dialect_is_read_from_the_file_and_named_when_the_engine_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let mysql = dir.path().join("store.mysql.sql");
    std::fs::write(&mysql, MYSQLDUMP).unwrap();
    let shown = pkbench().arg("schema").arg(&mysql).args(["--table", "rental", "-s", "int"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    assert!(text.contains("key table rental") && text.contains("-- int on mariadb"), "{text}");
    // The user's index keeps its name, so per-index figures match it.
    assert!(text.contains("UNIQUE KEY `rental_date` (`rental_date`, `customer_id`)"), "{text}");
    // Shown for another engine, the file is still read as MySQL's, and each conversion is said.
    let converted = pkbench()
        .arg("schema")
        .arg(&mysql)
        .args(["--engine", "postgres", "--table", "rental", "-s", "int"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&converted.stdout);
    assert!(converted.status.success(), "{}", String::from_utf8_lossy(&converted.stderr));
    assert!(text.contains("written for MariaDB/MySQL") && text.contains("-- int on postgres"), "{text}");
    assert!(
        text.contains(
            "-- changed: customer.customer_id: SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT → SMALLINT NOT NULL"
        ),
        "{text}"
    );
    // A file without a dump's marks that does not parse as the engine's says which engine's it is.
    let plain = dir.path().join("plain.sql");
    std::fs::write(&plain, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), UNIQUE KEY uk (name));\n").unwrap();
    one_line_error(
        pkbench().arg("schema").arg(&plain).args(["--engine", "postgres"]),
        "the file is written in MariaDB/MySQL syntax: give --engine mariadb",
    );
    let pg = dir.path().join("store.pg.sql");
    std::fs::write(&pg, format!("-- PostgreSQL database dump\n{}", std::fs::read_to_string(FIXTURE).unwrap())).unwrap();
    pkbench().arg("schema").arg(&pg).args(["-s", "int"]).assert().success().stdout(contains("-- int on postgres"));
}
