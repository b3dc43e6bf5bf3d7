//! `pkbench run --engine myrocks`: a managed MariaDB server with RocksDB tables end to end, its
//! counters in results.json and the table, and signals that leave no server behind.

use super::mariadb_cli::{a_signal_keeps_results_and_leaves_no_server, folder_left, servers_left};
use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::server::ServerSetting;
use serde_json::Value;

#[test]
fn managed_myrocks_run_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_MYSQL_URL")
        .env_remove("PKBENCH_MYROCKS_URL")
        .args(["run", "--engine", "myrocks", "-s", "int,uuid4", "-n", "20k", "-b", "5k", "-q"])
        .args(["--server-setting", "rocksdb_default_cf_options=write_buffer_size=256k", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("write amplification") && stdout.contains("compaction bytes written /row"), "{stdout}");
    assert!(stdout.contains("size compacted"), "{stdout}");
    assert!(stdout.contains("LSM levels after the run") && stdout.contains("L0: files, MiB (score)"), "{stdout}");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "myrocks");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["verified_rows"], 20_000);
        assert!(run["size_bytes"].as_u64().unwrap() > 0);
        assert!(run["compacted_size_bytes"].as_u64().unwrap() > 0, "{}", run["strategy"]);
        // Within the counter budget a batch's counts may go to a later batch (span 0).
        let read = run["batches"].as_array().unwrap().iter().filter(|b| b["counters_span"] != 0);
        for batch in read {
            for name in
                ["wal_bytes", "ingest_bytes", "flush_bytes", "compaction_write_bytes", "bloom_checks", "keys_read"]
            {
                assert!(batch["counters"][name].is_u64(), "{name} in {}", batch["counters"]);
            }
            assert!(batch["lsm_levels"].is_array(), "{batch}");
        }
    }
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&doc), "results.json follows the committed schema");
    assert!(!folder_left(dir.path(), pid), "the managed server's folder was left behind");
    assert_eq!(servers_left(pid), Vec::<String>::new(), "managed servers left running");
}

#[test]
fn sigterm_and_ctrl_c_during_a_managed_run_keep_results_and_leave_no_server() {
    a_signal_keeps_results_and_leaves_no_server("myrocks", "-TERM", 143);
    a_signal_keeps_results_and_leaves_no_server("myrocks", "-INT", 130);
}

/// A user's MariaDB server with the RocksDB plugin, which pkbench did not start, reached by its
/// mysql:// URL with `--engine myrocks`: RocksDB tables there, every row verified, the password
/// never shown, and nothing of the run left on the server.
#[test]
fn run_on_a_users_myrocks_server_at_a_mysql_url() {
    use super::credentials_cli::{MARKER, pkbench, stderr, tcp};
    use mysql::prelude::Queryable;
    let home = tempfile::tempdir().unwrap();
    let mut opts = tcp(None);
    opts.settings.push(ServerSetting { name: "plugin_load_add".into(), value: "ha_rocksdb".into() });
    let port = opts.tcp.as_ref().unwrap().port;
    let server = ManagedMariaDb::start(&opts, 16, false).unwrap_or_else(|e| {
        panic!("could not start a MariaDB server with RocksDB (install Debian's mariadb-plugin-rocksdb): {e}")
    });
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    admin.query_drop(format!("CREATE USER 'pk'@'127.0.0.1' IDENTIFIED BY '{MARKER}'")).unwrap();
    admin.query_drop("GRANT ALL ON *.* TO 'pk'@'127.0.0.1'").unwrap();
    let out_dir = home.path().join("out");
    let out = pkbench(home.path())
        .env("MYSQL_PWD", MARKER)
        .args(["run", "--engine", "myrocks", "--url", &format!("mysql://pk@127.0.0.1:{port}/mysql")])
        .args(["-s", "int,uuid4", "-n", "4k", "-b", "1k", "--quiet", "-o"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "myrocks");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["verified_rows"], 4_000, "{}", run["strategy"]);
        assert!(run["batches"][0]["counters"]["keys_read"].is_u64(), "{}", run["batches"][0]);
    }
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(!text.contains(MARKER), "the password was shown: {text}");
    let left: Vec<String> = admin.query("SHOW DATABASES LIKE 'pkbench%'").unwrap();
    assert_eq!(left, Vec::<String>::new(), "the run left its database on the user's server");
}

/// A managed MyRocks run of `args` into `dir/name`: its results.json, and what it printed on
/// standard error (the tables as it makes them, its progress).
fn myrocks_run(dir: &std::path::Path, name: &str, args: &[&str]) -> (Value, String) {
    let out_dir = dir.join(name);
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_MYSQL_URL")
        .env_remove("PKBENCH_MYROCKS_URL")
        .args(["run", "--engine", "myrocks"])
        .args(args)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "myrocks", "{args:?}");
    (doc, stderr)
}

/// The timed step `step` of `run`.
fn phase<'r>(run: &'r Value, step: &str) -> &'r Value {
    let phases = run["phases"].as_array().unwrap();
    phases.iter().find(|p| p["name"] == step).unwrap_or_else(|| panic!("no {step} step in {phases:?}"))
}

/// The concurrent, app and schema workloads run on RocksDB tables: a schema file's foreign key
/// is dropped (RocksDB refuses them) with a note, and every reference is checked after the run.
#[test]
fn concurrent_app_and_a_schema_file_run_on_myrocks() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = myrocks_run(
        dir.path(),
        "concurrent",
        &["-w", "concurrent", "-s", "int,uuid4", "--threads", "2", "--duration", "1s", "--warmup", "0.2s", "-q"],
    );
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["workload"], "concurrent");
        let rows = run["verified_rows"].as_u64().unwrap();
        assert!(rows > 0, "{}", run["strategy"]);
    }
    let (doc, _) =
        myrocks_run(dir.path(), "app", &["-w", "app", "-s", "uuid4", "--users", "2k", "--orders-per-user", "3", "-q"]);
    let run = &doc["runs"][0];
    assert_eq!(run["workload"], "app");
    let fks = run["settings"]["workload_options"]["foreign_keys"].as_str().unwrap_or_default();
    assert!(fks.contains("orders.user_id is not enforced"), "{}", run["settings"]);
    assert!(!run["phases"].as_array().unwrap().is_empty(), "{run}");
    let schema = dir.path().join("shop.sql");
    std::fs::write(
        &schema,
        "CREATE TABLE customers (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL);
         CREATE TABLE orders (id CHAR(36) PRIMARY KEY, customer_id BIGINT NOT NULL, note VARCHAR(40),
           KEY (customer_id), FOREIGN KEY (customer_id) REFERENCES customers (id));",
    )
    .unwrap();
    let schema = schema.to_str().unwrap();
    let (doc, stderr) =
        myrocks_run(dir.path(), "schema", &["--schema", schema, "--table", "orders", "-s", "int,uuid4", "-n", "5k"]);
    assert!(stderr.contains("foreign key (customer_id) → customers dropped"), "{stderr}");
    for run in doc["runs"].as_array().unwrap() {
        // 5,000 orders and the 1,000 customers they reference.
        assert_eq!(run["verified_rows"], 6_000);
        let verify = phase(run, "verify")["note"].as_str().unwrap().to_string();
        assert!(verify.contains("each of 1 foreign keys resolves in every row"), "{verify}");
    }
}
