//! pkbench on a user's server (`--url`): a run killed with SIGKILL leaves its labelled scratch
//! schema/database, which the next run reports and removes (`--keep-leftovers` only lists it),
//! never touching a look-alike without the label; a statement that runs past
//! `--statement-timeout` ends the run with its results kept; the password comes from
//! `--password-file`, and a password typed in the URL gets a warning and is never printed.
//! Servers are managed ones on free ports, standing in for the user's.

use crate::common::wait_for_a_batch;
use crate::credentials_cli::{MARKER, assert_no_marker, mariadb, pkbench, postgres, run_args, stderr};
use pkbench_core::engines::server::leftovers::Label;
use std::path::{Path, PathBuf};

/// A password file holding [`MARKER`], readable by its owner only, in a folder of its own
/// (outside HOME, where no file may hold the password).
fn password_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pw");
    std::fs::write(&file, format!("{MARKER}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    (dir, file)
}

/// `pkbench run` on `url` with the password from `file`, `extra` flags added.
fn run_with_file(home: &Path, url: &str, out: &str, file: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = run_args(url, &home.join(out));
    args.extend(["--password-file".to_string(), file.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = pkbench(home).args(&args).output().unwrap();
    assert_no_marker(&format!("{args:?}"), &out, &[home]);
    out
}

/// A PostgreSQL server standing in for the user's: the server, its superuser's connection, and
/// a URL without the password.
fn user_postgres() -> (pkbench_core::engines::postgres::ManagedPostgres, postgres::Client, String) {
    let (server, port) = postgres(None);
    let admin = server.config().connect(postgres::NoTls).unwrap();
    (server, admin, format!("postgres://postgres@127.0.0.1:{port}/postgres"))
}

/// The `pkbench_…` schemas on the PostgreSQL server, with their comments.
fn pg_scratch(admin: &mut postgres::Client) -> Vec<(String, Option<String>)> {
    admin
        .query(
            "SELECT nspname::text, obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname LIKE 'pkbench%' ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

#[test]
fn a_killed_runs_schema_is_reported_and_removed_by_the_next_run_and_look_alikes_stay() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (_server, mut admin, url) = user_postgres();
    admin.batch_execute("CREATE SCHEMA pkbench_123_4; CREATE TABLE pkbench_123_4.t (id int); INSERT INTO pkbench_123_4.t VALUES (1)").unwrap();
    let (_secrets, file) = password_file();

    // A run killed mid-way (SIGKILL) after its first batch.
    let out = home.join("killed");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env("HOME", home)
        .env_remove("PGPASSWORD")
        .args(["run", "--url", &url, "--password-file"])
        .arg(&file)
        .args(["-s", "int", "-n", "5M", "-b", "1k", "--quiet", "-o"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_a_batch(&out);
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = format!("pkbench_{}_", child.id());
    let left = pg_scratch(&mut admin);
    let label = left.iter().find(|(n, _)| n.starts_with(&killed)).and_then(|(_, c)| c.clone());
    assert!(label.is_some_and(|l| l.contains(&format!("pid={}", child.id()))), "{left:?}");

    // --keep-leftovers: listed, kept.
    let out = run_with_file(home, &url, "keep", &file, &["--keep-leftovers"]);
    let e = stderr(&out);
    assert!(out.status.success() && e.contains(&format!("Kept schema {killed}")), "{e}");
    assert!(e.contains("DROP SCHEMA IF EXISTS") && e.contains("which is gone"), "{e}");
    assert!(pg_scratch(&mut admin).iter().any(|(n, _)| n.starts_with(&killed)));

    // The next run removes it, and only it.
    let out = run_with_file(home, &url, "next", &file, &[]);
    let e = stderr(&out);
    assert!(out.status.success() && e.contains(&format!("Removed schema {killed}")), "{e}");
    assert_eq!(e.matches("Removed schema").count(), 1, "{e}");
    let names: Vec<String> = pg_scratch(&mut admin).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["pkbench_123_4"], "the look-alike without a label stays, nothing else is left");
    let kept: i64 = admin.query_one("SELECT count(*) FROM pkbench_123_4.t", &[]).unwrap().get(0);
    assert_eq!(kept, 1);
}

#[test]
fn a_dead_runs_labelled_database_is_removed_on_mariadb_and_an_unlabelled_one_stays() {
    use mysql::prelude::Queryable;
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (server, port) = mariadb();
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    // A database a run of this machine whose process is gone labelled, and an unlabelled one.
    let dead = Label { pid: 4_999_999, ..Label::of_this_process() };
    for sql in [
        "CREATE DATABASE pkbench_4999999_1".to_string(),
        "CREATE TABLE pkbench_4999999_1.pkbench_scratch_label (label VARCHAR(255) NOT NULL)".into(),
        format!("INSERT INTO pkbench_4999999_1.pkbench_scratch_label VALUES ('{}')", dead.text()),
        "CREATE DATABASE pkbench_123_4".into(),
        "CREATE TABLE pkbench_123_4.pkbench_scratch_label (label VARCHAR(255) NOT NULL)".into(),
        "INSERT INTO pkbench_123_4.pkbench_scratch_label VALUES ('my own notes')".into(),
    ] {
        admin.query_drop(sql).unwrap();
    }
    let url = format!("mariadb://pk@127.0.0.1:{port}/mysql");
    let (_secrets, file) = password_file();
    let databases = |admin: &mut mysql::Conn| -> Vec<String> {
        admin
            .query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'pkbench%' ORDER BY 1")
            .unwrap()
    };

    let out = run_with_file(home, &url, "keep", &file, &["--keep-leftovers"]);
    let e = stderr(&out);
    assert!(out.status.success() && e.contains("Kept database pkbench_4999999_1"), "{e}");
    assert_eq!(databases(&mut admin), ["pkbench_123_4", "pkbench_4999999_1"]);

    let out = run_with_file(home, &url, "next", &file, &[]);
    let e = stderr(&out);
    assert!(out.status.success() && e.contains("Removed database pkbench_4999999_1"), "{e}");
    assert!(!e.contains("pkbench_123_4"), "{e}");
    assert_eq!(databases(&mut admin), ["pkbench_123_4"]);
}

#[test]
fn a_statement_past_the_statement_timeout_ends_the_run_with_its_batches_kept() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (_server, mut admin, url) = user_postgres();
    // Every table pkbench creates gets a trigger that sleeps 3 s on each INSERT once the table
    // holds more than its first batch.
    admin
        .batch_execute(
            "CREATE FUNCTION slow_after_first() RETURNS trigger LANGUAGE plpgsql AS $$
             DECLARE n bigint;
             BEGIN
               EXECUTE format('SELECT count(*) FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME) INTO n;
               IF n > 1000 THEN PERFORM pg_sleep(3); END IF;
               RETURN NULL;
             END $$;
             CREATE FUNCTION add_slow() RETURNS event_trigger LANGUAGE plpgsql AS $$
             DECLARE r record;
             BEGIN
               FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
                 EXECUTE format('CREATE TRIGGER slow AFTER INSERT ON %s FOR EACH STATEMENT EXECUTE FUNCTION slow_after_first()', r.object_identity);
               END LOOP;
             END $$;
             CREATE EVENT TRIGGER add_slow ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION add_slow();",
        )
        .unwrap();
    let (_secrets, file) = password_file();
    let out = run_with_file(home, &url, "timeout", &file, &["--statement-timeout", "1s"]);
    let e = stderr(&out);
    assert!(!out.status.success(), "{e}");
    assert!(e.contains("canceling statement due to statement timeout") && e.contains("--statement-timeout"), "{e}");
    assert_eq!(e.lines().filter(|l| l.starts_with("Error:")).count(), 1, "{e}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("timeout/results.json")).unwrap()).unwrap();
    let batches = results["runs"][0]["batches"].as_array().map_or(0, Vec::len);
    assert_eq!(batches, 1, "the committed first batch is kept: {results}");
    assert_eq!(pg_scratch(&mut admin), [], "the run dropped its schema");
}

#[test]
fn a_password_in_the_url_gets_a_warning_and_is_never_printed() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (_server, port) = postgres(None);
    let url = format!("postgres://postgres:{MARKER}@127.0.0.1:{port}/postgres");
    let out = pkbench(home).args(run_args(&url, &home.join("typed"))).output().unwrap();
    let e = stderr(&out);
    assert!(out.status.success(), "{e}");
    let warning: Vec<&str> = e.lines().filter(|l| l.starts_with("Warning: the password in --url")).collect();
    assert_eq!(warning.len(), 1, "{e}");
    assert!(warning[0].contains("--password-file") && warning[0].contains("PGPASSWORD"), "{e}");
    assert_no_marker("a password in --url", &out, &[home]);
    let out = pkbench(home).args(["doctor", &url]).output().unwrap();
    assert!(stderr(&out).contains("Warning: the password in the URL"), "{}", stderr(&out));
    assert_no_marker("a password in doctor's URL", &out, &[home]);
    // Without one in the URL: no warning.
    let (_secrets, file) = password_file();
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    let out = run_with_file(home, &url, "file", &file, &[]);
    assert!(out.status.success() && !stderr(&out).contains("Warning"), "{}", stderr(&out));
}
