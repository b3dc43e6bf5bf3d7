//! TLS for real: a throwaway CA and server certificate (rcgen), managed PostgreSQL and MariaDB
//! servers listening on 127.0.0.1 with TLS on (and ones with it off), and pkbench's connection
//! layer against them: `verify-full` succeeds with the CA and fails without it in one line that
//! names the cause, `require` against a server without TLS fails clearly, `prefer` falls back and
//! says so.

#[path = "common/certs.rs"]
mod certs;

use certs::certificates;
use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::postgres::ManagedPostgres;
use pkbench_core::engines::server::{ManagedOptions, TcpListen, free_port};
use pkbench_core::engines::wire::mysql_target::MyTarget;
use pkbench_core::engines::wire::postgres_target::PgTarget;
use std::path::PathBuf;

const PASSWORD: &str = "tls-test-pw";

fn options(tls: Option<(PathBuf, PathBuf)>) -> ManagedOptions {
    ManagedOptions { tcp: Some(TcpListen { port: free_port().unwrap(), tls }), ..Default::default() }
}

fn start_pg(tls: Option<(PathBuf, PathBuf)>) -> (ManagedPostgres, u16) {
    let opts = options(tls);
    let port = opts.tcp.as_ref().unwrap().port;
    let server = ManagedPostgres::start(&opts, 32).unwrap_or_else(|e| panic!("could not start PostgreSQL: {e}"));
    let mut admin = server.config().connect(postgres::NoTls).unwrap();
    admin.batch_execute(&format!("ALTER USER postgres PASSWORD '{PASSWORD}'")).unwrap();
    (server, port)
}

fn start_mariadb(tls: Option<(PathBuf, PathBuf)>) -> (ManagedMariaDb, u16) {
    use mysql::prelude::Queryable;
    let opts = options(tls);
    let port = opts.tcp.as_ref().unwrap().port;
    let server = ManagedMariaDb::start(&opts, 16, false).unwrap_or_else(|e| panic!("could not start MariaDB: {e}"));
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    admin.query_drop(format!("CREATE USER 'pk'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")).unwrap();
    admin.query_drop("GRANT ALL ON *.* TO 'pk'@'127.0.0.1'").unwrap();
    (server, port)
}

fn one_line(e: &str) {
    assert!(!e.contains('\n'), "not one line: {e}");
    assert!(!e.contains(PASSWORD), "password shown: {e}");
}

#[test]
fn postgres_tls_modes_on_a_server_with_tls() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let (_server, port) = start_pg(Some((cert, key)));
    let base = format!("postgres://postgres:{PASSWORD}@127.0.0.1:{port}/postgres");

    let mut t =
        PgTarget::from_url(&format!("{base}?sslmode=verify-full&sslrootcert={}", ca.display()), &Default::default())
            .unwrap();
    let (_client, status) = t.connect_first("could not connect to").unwrap();
    assert!(status.encrypted, "{status:?}");
    assert!(status.protocol.as_deref().is_some_and(|p| p.starts_with("TLSv1.")), "{status:?}");

    let mut t = PgTarget::from_url(&format!("{base}?sslmode=verify-full"), &Default::default()).unwrap();
    let e = t.connect_first("could not connect to").err().unwrap().to_string();
    one_line(&e);
    assert!(e.contains("UnknownIssuer") && e.contains("sslrootcert=FILE"), "{e}");

    // prefer (the default) encrypts when the server offers TLS, without checking the certificate.
    let (_client, status) =
        PgTarget::from_url(&base, &Default::default()).unwrap().connect_first("could not connect to").unwrap();
    assert!(status.encrypted && status.asked == "sslmode=prefer", "{status:?}");
}

#[test]
fn postgres_without_tls_refuses_require_and_prefer_falls_back() {
    let (_server, port) = start_pg(None);
    let base = format!("postgres://postgres:{PASSWORD}@127.0.0.1:{port}/postgres");
    let e = PgTarget::from_url(&format!("{base}?sslmode=require"), &Default::default())
        .unwrap()
        .connect_first("could not connect to");
    let e = e.err().unwrap().to_string();
    one_line(&e);
    assert!(e.contains("the server does not offer TLS but require requires it"), "{e}");
    let (_client, status) =
        PgTarget::from_url(&base, &Default::default()).unwrap().connect_first("could not connect to").unwrap();
    assert!(!status.encrypted, "{status:?}");
    let note = status.note.unwrap();
    assert!(note.contains("fell back to plaintext"), "{note}");
}

#[test]
fn mariadb_tls_modes_on_servers_with_and_without_tls() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let (_tls_server, port) = start_mariadb(Some((cert, key)));
    let base = format!("mysql://pk:{PASSWORD}@127.0.0.1:{port}/mysql");

    let url = format!("{base}?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", ca.display());
    let (_conn, status) =
        MyTarget::from_url(&url, &Default::default()).unwrap().connect_first("could not connect to").unwrap();
    assert!(status.encrypted && status.protocol.as_deref().is_some_and(|p| p.starts_with("TLSv1.")), "{status:?}");

    let e = MyTarget::from_url(&format!("{base}?ssl-mode=VERIFY_IDENTITY"), &Default::default())
        .unwrap()
        .connect_first("could not connect to");
    let e = e.err().unwrap().to_string();
    one_line(&e);
    assert!(e.contains("UnknownIssuer") && e.contains("ssl-ca=FILE"), "{e}");

    let (_plain_server, port) = start_mariadb(None);
    let base = format!("mysql://pk:{PASSWORD}@127.0.0.1:{port}/mysql");
    let e = MyTarget::from_url(&format!("{base}?ssl-mode=REQUIRED"), &Default::default())
        .unwrap()
        .connect_first("could not connect to");
    let e = e.err().unwrap().to_string();
    one_line(&e);
    assert!(e.contains("the server does not offer TLS but ssl-mode=REQUIRED requires it"), "{e}");
    let (_conn, status) =
        MyTarget::from_url(&base, &Default::default()).unwrap().connect_first("could not connect to").unwrap();
    assert!(!status.encrypted && status.note.as_deref().is_some_and(|n| n.contains("fell back")), "{status:?}");
}
