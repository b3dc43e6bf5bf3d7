//! Every connection ends within its time limit with one line: a port that accepts and never
//! answers (a listener in the test, so no server is needed), and a server of the other
//! protocol (managed PostgreSQL and MariaDB on free ports, with the server-tests feature).

use assert_cmd::Command;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// Runs `pkbench args` and returns its stderr and how long it took; it must fail.
fn fails_within(args: &[&str], limit: Duration) -> String {
    let started = Instant::now();
    let out = Command::cargo_bin("pkbench")
        .unwrap()
        .env_remove("PGPASSWORD")
        .env_remove("MYSQL_PWD")
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded: {stderr}");
    assert!(took < limit, "{args:?} took {took:?}, beyond {limit:?}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

#[test]
fn a_port_that_accepts_and_never_answers_ends_within_the_connect_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accept every connection and keep it open without a word.
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().take(16).collect();
        std::thread::sleep(Duration::from_secs(300));
        drop(held);
    });
    let out = tempfile::tempdir().unwrap();
    let out = out.path().join("r").display().to_string();
    for (url, protocol) in [
        (format!("postgres://u@127.0.0.1:{port}/db"), "PostgreSQL"),
        (format!("mysql://u@127.0.0.1:{port}/db"), "MySQL/MariaDB"),
    ] {
        let run = ["run", "--url", &url, "--connect-timeout", "1", "-n", "1k", "-b", "1k", "-s", "int", "-o", &out];
        let doctor = ["doctor", &url, "--connect-timeout", "1"];
        for args in [&run[..], &doctor[..]] {
            let e = fails_within(args, Duration::from_secs(8));
            assert!(e.contains("no answer within 1 s (--connect-timeout)") && e.contains(protocol), "{args:?}: {e}");
        }
        // The URL's own limit (libpq's connect_timeout, the mysql crate's tcp_connect_timeout_ms).
        let own = match protocol {
            "PostgreSQL" => format!("{url}?connect_timeout=1"),
            _ => format!("{url}?tcp_connect_timeout_ms=1000"),
        };
        let e = fails_within(&["doctor", &own, "--connect-timeout", "100"], Duration::from_secs(8));
        assert!(e.contains("no answer within 1 s"), "{e}");
    }
}

#[test]
fn connect_timeouts_are_checked_before_anything_starts() {
    for args in [&["doctor", "postgres://u@h/db", "--connect-timeout", "0"][..], &["run", "--connect-timeout", "soon"]]
    {
        let out = Command::cargo_bin("pkbench").unwrap().args(args).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("is not a timeout: give seconds above 0"), "{e}");
    }
    let e = fails_within(&["run", "--statement-timeout", "1m", "-n", "1k"], Duration::from_secs(30));
    assert!(e.contains("--statement-timeout applies to your server at --url"), "{e}");
}

/// A server of the other protocol on each port: one line within the limit, never a hang.
#[cfg(feature = "server-tests")]
#[test]
fn a_server_of_the_other_protocol_gives_one_line_within_the_timeout() {
    use crate::credentials_cli::{mariadb, postgres};
    let (_pg, pg_port) = postgres(None);
    let (_my, my_port) = mariadb();
    let home = tempfile::tempdir().unwrap();
    for (url, engine, protocol) in [
        (format!("mysql://u@127.0.0.1:{pg_port}/db"), "mariadb", "MySQL/MariaDB"),
        (format!("postgres://u@127.0.0.1:{my_port}/db"), "postgres", "PostgreSQL"),
    ] {
        let out = home.path().join(engine).display().to_string();
        let run = ["run", "--url", &url, "--connect-timeout", "3", "-n", "1k", "-b", "1k", "-s", "int", "-o", &out];
        let doctor = ["doctor", &url, "--connect-timeout", "3"];
        for args in [&run[..], &doctor[..]] {
            let e = fails_within(args, Duration::from_secs(10));
            assert!(e.contains("could not connect to") && e.contains(&url), "{args:?}: {e}");
            assert!(e.contains(&format!("is a {protocol} server listening there?")), "{args:?}: {e}");
        }
    }
}
