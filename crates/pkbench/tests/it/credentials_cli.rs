//! `--url` and `doctor` as users reach their servers: TLS with a throwaway CA (rcgen), the engine
//! taken from the URL's scheme, passwords from PGPASSWORD, PGPASSFILE (and its 0600 rule),
//! PGSERVICE, PG* variables, MYSQL_PWD and ~/.my.cnf; and no password ever printed or written.
//! Servers are managed ones the test starts on free ports; HOME points at a temp folder, so the
//! real ~/.pgpass and ~/.my.cnf are never read.

use assert_cmd::Command;
#[path = "../../../pkbench-core/tests/it/common/certs.rs"]
mod certs;

use certs::certificates;
use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::postgres::ManagedPostgres;
use pkbench_core::engines::server::{ManagedOptions, TcpListen, free_port};
use std::path::{Path, PathBuf};

/// The password of every test server: it must appear in no output and no file.
pub(crate) const MARKER: &str = "Mark3rPw-q7Zx";

/// pkbench with no credentials from the environment and HOME in `home`.
pub(crate) fn pkbench(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("pkbench").expect("pkbench binary");
    for var in [
        "PKBENCH_PG_URL",
        "PKBENCH_MYSQL_URL",
        "PKBENCH_MYROCKS_URL",
        "PGHOST",
        "PGPORT",
        "PGUSER",
        "PGDATABASE",
        "PGPASSWORD",
        "PGPASSFILE",
        "PGSERVICE",
        "PGSERVICEFILE",
        "PGSSLMODE",
        "PGSSLROOTCERT",
        "MYSQL_PWD",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home).current_dir(home);
    cmd
}

pub(crate) fn tcp(tls: Option<(PathBuf, PathBuf)>) -> ManagedOptions {
    ManagedOptions { tcp: Some(TcpListen { port: free_port().unwrap(), tls }), ..Default::default() }
}

/// A PostgreSQL server on 127.0.0.1 whose user `postgres` has password [`MARKER`].
pub(crate) fn postgres(tls: Option<(PathBuf, PathBuf)>) -> (ManagedPostgres, u16) {
    let opts = tcp(tls);
    let port = opts.tcp.as_ref().unwrap().port;
    let server = ManagedPostgres::start(&opts, 32).unwrap();
    let mut admin = server.config().connect(postgres::NoTls).unwrap();
    admin.batch_execute(&format!("ALTER USER postgres PASSWORD '{MARKER}'")).unwrap();
    (server, port)
}

/// Output and every file under `dirs` hold no [`MARKER`].
pub(crate) fn assert_no_marker(what: &str, out: &std::process::Output, dirs: &[&Path]) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(MARKER), "{what}: the password is in {stream}: {text}");
    }
    for dir in dirs {
        for entry in walk(dir) {
            let bytes = std::fs::read(&entry).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(MARKER),
                "{what}: the password is in {}",
                entry.display()
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

pub(crate) fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn results(out_dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap()).unwrap()
}

/// The engine settings of the first strategy in results.json.
fn engine_settings(out_dir: &Path) -> serde_json::Value {
    let r = results(out_dir);
    let text = r.to_string();
    assert!(text.contains("connection_encrypted"), "no TLS record in results.json: {text}");
    r
}

pub(crate) fn run_args(url: &str, out: &Path) -> Vec<String> {
    ["run", "--url", url, "-s", "int", "-n", "2k", "-b", "1k", "--quiet", "--format", "json", "-o"]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
}

/// A MariaDB server on 127.0.0.1 with user `pk`@127.0.0.1, password [`MARKER`], all privileges.
pub(crate) fn mariadb() -> (ManagedMariaDb, u16) {
    use mysql::prelude::Queryable;
    let opts = tcp(None);
    let port = opts.tcp.as_ref().unwrap().port;
    let server = ManagedMariaDb::start(&opts, 16, false).unwrap();
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    admin.query_drop(format!("CREATE USER 'pk'@'127.0.0.1' IDENTIFIED BY '{MARKER}'")).unwrap();
    admin.query_drop("GRANT ALL ON *.* TO 'pk'@'127.0.0.1'").unwrap();
    (server, port)
}

#[test]
fn postgres_tls_from_the_url_recorded_in_results_and_engine_from_the_scheme() {
    let home = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(home.path());
    let (_server, port) = postgres(Some((cert, key)));
    let url = format!(
        "postgres://postgres:{MARKER}@127.0.0.1:{port}/postgres?sslmode=verify-full&sslrootcert={}",
        ca.display()
    );
    let out_dir = home.path().join("verify-full");
    // No --engine: the postgres:// scheme picks it.
    let out = pkbench(home.path()).args(run_args(&url, &out_dir)).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let r = engine_settings(&out_dir).to_string();
    assert!(r.contains(r#""connection_encrypted":"yes""#) && r.contains(r#""connection_tls_version":"TLSv1."#), "{r}");
    assert!(r.contains(r#""engine":"postgres""#) || r.contains("PostgreSQL"), "{r}");
    assert_no_marker("verify-full run", &out, &[home.path()]);

    // Without the CA: one line naming the cause and what to do.
    let url = format!("postgres://postgres:{MARKER}@127.0.0.1:{port}/postgres?sslmode=verify-full");
    let out = pkbench(home.path()).args(run_args(&url, &home.path().join("no-ca"))).output().unwrap();
    let e = stderr(&out);
    // The password typed in the URL gets its warning, then the error's one line.
    let lines: Vec<&str> = e.trim().lines().collect();
    assert!(!out.status.success() && lines.len() == 2 && lines[0].starts_with("Warning: the password in --url"), "{e}");
    assert!(lines[1].contains("UnknownIssuer") && lines[1].contains("sslrootcert=FILE"), "{e}");
    assert_no_marker("verify-full without CA", &out, &[home.path()]);
}

#[test]
fn postgres_prefer_falls_back_and_passwords_come_from_the_environment_and_files() {
    let home = tempfile::tempdir().unwrap();
    let (_server, port) = postgres(None);
    let no_password = format!("postgres://postgres@127.0.0.1:{port}/postgres");

    // PGPASSWORD; the server has no TLS, so the default prefer falls back and results say so.
    let out_dir = home.path().join("pgpassword");
    let out = pkbench(home.path()).env("PGPASSWORD", MARKER).args(run_args(&no_password, &out_dir)).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let r = engine_settings(&out_dir).to_string();
    assert!(r.contains(r#""connection_encrypted":"no""#) && r.contains("fell back to plaintext"), "{r}");
    assert_no_marker("PGPASSWORD run", &out, &[home.path()]);

    // require against a server without TLS: one clear line.
    let url = format!("{no_password}?sslmode=require");
    let out =
        pkbench(home.path()).env("PGPASSWORD", MARKER).args(run_args(&url, &home.path().join("req"))).output().unwrap();
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("the server does not offer TLS but require requires it"), "{e}");

    // ~/.pgpass: used at 0600, ignored (and the error says why) when others may read it.
    let pgpass = home.path().join(".pgpass");
    std::fs::write(&pgpass, format!("# comment\n127.0.0.1:{port}:*:postgres:{MARKER}\n")).unwrap();
    let set_mode =
        |mode| std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    set_mode(0o644);
    let out = pkbench(home.path()).args(run_args(&no_password, &home.path().join("open-pgpass"))).output().unwrap();
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("chmod 0600") && e.trim().lines().count() == 1, "{e}");
    set_mode(0o600);
    let out = pkbench(home.path()).args(run_args(&no_password, &home.path().join("pgpass"))).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_file(&pgpass).unwrap();

    // PGPASSFILE elsewhere, and PG* variables with a bare postgres:// URL.
    let passfile = home.path().join("passfile");
    std::fs::write(&passfile, format!("*:*:*:*:{MARKER}\n")).unwrap();
    std::fs::set_permissions(&passfile, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = pkbench(home.path())
        .env("PGPASSFILE", &passfile)
        .envs([
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", &port.to_string()),
            ("PGUSER", "postgres"),
            ("PGDATABASE", "postgres"),
        ])
        .args(run_args("postgres://", &home.path().join("pg-vars")))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    // A service in ~/.pg_service.conf.
    std::fs::write(
        home.path().join(".pg_service.conf"),
        format!("[bench]\nhost=127.0.0.1\nport={port}\nuser=postgres\ndbname=postgres\npassword={MARKER}\n"),
    )
    .unwrap();
    let out = pkbench(home.path())
        .args(run_args("postgres://?service=bench", &home.path().join("service")))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = pkbench(home.path()).env("PGSERVICE", "bench").args(["doctor", "postgres://"]).output().unwrap();
    assert!(stderr(&out).contains("doctor found no tables"), "{}", stderr(&out));
    assert_no_marker("service", &out, &[home.path().join("service").as_path()]);

    // No password anywhere and no terminal: the error says where to give one.
    let out = pkbench(home.path()).args(run_args(&no_password, &home.path().join("none"))).output().unwrap();
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("PGPASSWORD, ~/.pgpass"), "{e}");
}

#[test]
fn mariadb_passwords_from_mysql_pwd_and_my_cnf() {
    let home = tempfile::tempdir().unwrap();
    let (_server, port) = mariadb();
    let url = format!("mariadb://pk@127.0.0.1:{port}/mysql");

    let out_dir = home.path().join("pwd");
    let out = pkbench(home.path()).env("MYSQL_PWD", MARKER).args(run_args(&url, &out_dir)).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let r = engine_settings(&out_dir).to_string();
    assert!(r.contains(r#""connection_encrypted":"no""#) && r.contains("ssl-mode=PREFERRED"), "{r}");
    assert_no_marker("MYSQL_PWD run", &out, &[home.path()]);

    std::fs::write(
        home.path().join(".my.cnf"),
        format!("[mysqld]\nskip-networking\n[client]\npassword=\"{MARKER}\"\n"),
    )
    .unwrap();
    let out = pkbench(home.path()).args(run_args(&url, &home.path().join("cnf"))).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_file(home.path().join(".my.cnf")).unwrap();

    let out = pkbench(home.path()).args(run_args(&url, &home.path().join("none"))).output().unwrap();
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("MYSQL_PWD") && e.trim().lines().count() == 1, "{e}");
}

#[test]
fn no_command_prints_or_writes_a_password_from_any_url() {
    let home = tempfile::tempdir().unwrap();
    let closed = free_port().unwrap();
    let urls = [
        format!("mysql//u:{MARKER}@host"),
        format!("postgres//u:{MARKER}@host/db"),
        format!("mysql:/u:{MARKER}@host"),
        format!("mysql:{MARKER}@host"),
        format!("http://u:{MARKER}@h/db"),
        format!("mysql://u:{MARKER}"),
        format!("postgres://u:{MARKER}"),
        format!("postgres://u:{MARKER}@[::1/db"),
        format!("postgres://u:{MARKER}@127.0.0.1:{closed}/db"),
        format!("postgresql://u:{MARKER}@127.0.0.1:{closed}/db?sslmode=verify-full"),
        format!("postgres://u:{MARKER}@127.0.0.1:{closed}/db?sslmode=bogus"),
        format!("mysql://u:{MARKER}@127.0.0.1:{closed}/db"),
        format!("mariadb://u:{MARKER}@127.0.0.1:{closed}/db?ssl-mode=bogus"),
        format!("mysql://u:{MARKER}@127.0.0.1:{closed}/db?unknown=1"),
        format!("postgres://u:p@ss:{MARKER}@127.0.0.1:{closed}/db"),
        format!("host=127.0.0.1 port={closed} user=u password={MARKER}"),
    ];
    for (i, url) in urls.iter().enumerate() {
        let out_dir = home.path().join(format!("out{i}"));
        let mut runs: Vec<Vec<String>> = vec![run_args(url, &out_dir)];
        for engine in ["postgres", "mariadb"] {
            let mut args = run_args(url, &out_dir);
            args.splice(1..1, ["--engine".to_string(), engine.to_string()]);
            runs.push(args);
        }
        runs.push(vec!["doctor".into(), url.clone()]);
        runs.push(vec!["doctor".into(), url.clone(), "--format".into(), "json".into()]);
        for args in runs {
            let out = pkbench(home.path()).args(&args).timeout(std::time::Duration::from_secs(60)).output().unwrap();
            assert!(!out.status.success(), "{args:?} succeeded");
            assert_no_marker(&format!("{args:?}"), &out, &[home.path()]);
        }
    }
}
