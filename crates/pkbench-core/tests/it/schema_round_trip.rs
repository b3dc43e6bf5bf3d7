//! The proof that `run --schema` measures the user's table as written: public sample schemas,
//! as their own dump tools write them, are loaded into a real server as given and rendered by
//! pkbench for `int`; the engine's own dump of both (`mysqldump --no-data`, `pg_dump
//! --schema-only`, SQLite's catalog) must be identical except in what pkbench lists as changed:
//! the key column, the columns that reference it, and each change named in the list.

use crate::common::shared;
use mysql::prelude::Queryable;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::schema_sql::{Change, render_with_changes};
use pkbench_core::schema::{Schema, parse};
use pkbench_core::strategy::find;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema/public");

fn fixture(name: &str) -> (PathBuf, Schema, EngineKind) {
    let path = Path::new(FIXTURES).join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let engine = match name.rsplit('.').nth(1) {
        Some("mariadb") => EngineKind::MariaDb,
        Some("postgres") => EngineKind::Postgres,
        Some("sqlite") => EngineKind::Sqlite,
        other => panic!("fixture {name}: unknown engine {other:?}"),
    };
    let schema = parse(&text, Some(engine)).unwrap_or_else(|e| panic!("{name}: {e}"));
    (path, schema, engine)
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// One table's part of a dump: its statements, each a list of lines.
type Statements = Vec<Vec<String>>;

/// Compares the dump of the file's tables with the dump of pkbench's: every statement pairs up
/// by its first lines, and every line that differs (and every statement without a partner)
/// names a column, index or constraint that `changes` lists for its table.
fn assert_same_but_listed(
    name: &str,
    file: &Statements,
    ours: &Statements,
    changes: &[Change],
    table_of: fn(&str) -> String,
) {
    let head = |s: &Vec<String>| s.iter().take(2).cloned().collect::<Vec<_>>().join("\n");
    let allowed = |table: &str, line: &str| {
        changes
            .iter()
            .filter(|c| c.table.eq_ignore_ascii_case(table))
            .any(|c| if c.subject == c.table { line.trim_start().starts_with(')') } else { mentions(line, &c.subject) })
    };
    let mut unexplained = Vec::new();
    for (side, mine, theirs) in [("file", file, ours), ("pkbench", ours, file)] {
        for s in mine {
            let table = table_of(&s[0]);
            match theirs.iter().find(|t| head(t) == head(s)) {
                Some(other) => {
                    for (i, line) in s.iter().enumerate() {
                        let same = other.get(i).is_some_and(|o| o == line);
                        if !same && !allowed(&table, line) {
                            unexplained.push(format!("{side} only: {line}"));
                        }
                    }
                    if other.len() != s.len() && !s.iter().chain(other).any(|l| allowed(&table, l)) {
                        unexplained.push(format!("{side}: {} has {} lines, the other {}", s[0], s.len(), other.len()));
                    }
                }
                None if s.iter().take(2).any(|l| allowed(&table, l)) => {}
                None => unexplained.push(format!("{side} only: {}", s.join(" "))),
            }
        }
    }
    unexplained.dedup();
    assert!(
        unexplained.is_empty(),
        "{name}: differences pkbench does not list:\n{}\nlisted:\n{}",
        unexplained.join("\n"),
        changes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("\n")
    );
}

/// Whether `line` names identifier `name` (bare, or in backquotes or double quotes).
fn mentions(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// `sql` split into statements (at lines ending in `;`), without comments, blank lines and
/// session settings.
fn statements(sql: &str) -> Statements {
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for line in sql.lines() {
        let t = line.trim_end();
        if current.is_empty()
            && (t.is_empty()
                || t.starts_with("--")
                || t.starts_with("/*!")
                || t.starts_with("SET ")
                || t.starts_with('\\')
                || t.starts_with("SELECT pg_catalog"))
        {
            continue;
        }
        current.push(t.to_string());
        if t.ends_with(';') {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

fn round_trip_mariadb(name: &str, key_table: &str) {
    let (path, schema, _) = fixture(name);
    let db = name.split('.').next().unwrap();
    let (file_db, ours_db) = (format!("rt_{db}_file"), format!("rt_{db}_ours"));
    let (_, socket) = shared::mariadb_database(&file_db);
    let (opts, _) = shared::mariadb_database(&ours_db);
    let socket = format!("--socket={}", socket.display());
    let input = std::fs::File::open(&path).unwrap();
    run(
        Command::new("mariadb").args([&socket, "-uroot", &file_db]).stdin(input),
        "load the file with the mariadb client",
    );
    let rendered =
        render_with_changes(&schema, key_table, find("int").unwrap(), EngineKind::MariaDb, &ours_db).unwrap();
    let mut conn = mysql::Conn::new(opts).unwrap();
    for stmt in rendered.statements.iter().chain(&rendered.deferred) {
        conn.query_drop(stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
    }
    let tables: Vec<String> = conn
        .query(format!("SELECT table_name FROM information_schema.tables WHERE table_schema = '{ours_db}' ORDER BY 1"))
        .unwrap();
    assert_eq!(tables.len(), schema.tables.len(), "{name}: every table is made");
    let dump = |db: &str| {
        let mut cmd = Command::new("mysqldump");
        cmd.args([&socket, "-uroot", "--no-data", "--skip-triggers", "--compact", db]).args(&tables);
        statements(&run(&mut cmd, "mysqldump"))
    };
    let table_of = |first: &str| first.split('`').nth(1).unwrap_or_default().to_string();
    assert_same_but_listed(name, &dump(&file_db), &dump(&ours_db), &rendered.changes, table_of);
}

fn round_trip_postgres(name: &str, key_table: &str) {
    let (path, schema, _) = fixture(name);
    let db = name.split('.').next().unwrap();
    let (file_db, ours_db) = (format!("rt_{db}_file"), format!("rt_{db}_ours"));
    let file_config = shared::postgres_database(&file_db);
    let ours_config = shared::postgres_database(&ours_db);
    let bin = postgres_bin_dir();
    let (host, port) = match (file_config.get_hosts(), file_config.get_ports()) {
        ([postgres::config::Host::Unix(dir)], [port]) => (dir.display().to_string(), port.to_string()),
        other => panic!("the shared cluster listens on its socket: {other:?}"),
    };
    let user = file_config.get_user().unwrap().to_string();
    let conn_args = ["-h", &host, "-p", &port, "-U", &user];
    run(
        Command::new(bin.join("psql"))
            .args(conn_args)
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", &file_db, "-f"])
            .arg(&path),
        "load the file with psql",
    );
    let rendered =
        render_with_changes(&schema, key_table, find("int").unwrap(), EngineKind::Postgres, "public").unwrap();
    let mut client = ours_config.connect(postgres::NoTls).unwrap();
    for stmt in rendered.statements.iter().chain(&rendered.deferred) {
        client.batch_execute(stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
    }
    let dump = |db: &str| {
        statements(&run(
            Command::new(bin.join("pg_dump")).args(conn_args).args(["--schema-only", "--no-owner", "-d", db]),
            "pg_dump",
        ))
    };
    let table_of = |first: &str| {
        let after = first.split("public.").nth(1).unwrap_or_default();
        after.split([' ', '(']).next().unwrap_or_default().to_string()
    };
    assert_same_but_listed(name, &dump(&file_db), &dump(&ours_db), &rendered.changes, table_of);
}

fn round_trip_sqlite(name: &str, key_table: &str) {
    let (path, schema, _) = fixture(name);
    let dir = tempfile::tempdir().unwrap();
    let file_db = rusqlite::Connection::open(dir.path().join("file.db")).unwrap();
    file_db.execute_batch(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let rendered = render_with_changes(&schema, key_table, find("int").unwrap(), EngineKind::Sqlite, "").unwrap();
    let ours_db = rusqlite::Connection::open(dir.path().join("ours.db")).unwrap();
    for stmt in rendered.statements.iter().chain(&rendered.deferred) {
        ours_db.execute_batch(stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
    }
    let table_of = |first: &str| first.split('"').nth(1).unwrap_or_default().to_string();
    assert_same_but_listed(name, &catalog(&file_db), &catalog(&ours_db), &rendered.changes, table_of);
}

/// SQLite's catalog of every table, one statement per table: its columns, indexes and foreign
/// keys as the PRAGMAs report them.
fn catalog(db: &rusqlite::Connection) -> Statements {
    let strings = |sql: &str| -> Vec<Vec<String>> {
        let mut stmt = db.prepare(sql).unwrap();
        let n = stmt.column_count();
        stmt.query_map([], |row| {
            (0..n)
                .map(|i| row.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let tables = strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1");
    let mut out = Vec::new();
    for t in tables {
        let t = t[0].trim_start_matches("Text(\"").trim_end_matches("\")").to_string();
        let mut lines = vec![format!("TABLE \"{t}\"")];
        for c in strings(&format!("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('{t}')")) {
            lines.push(format!(
                "column \"{}\" {}",
                c[0].trim_start_matches("Text(\"").trim_end_matches("\")"),
                c[1..].join(" ")
            ));
        }
        for i in
            strings(&format!("SELECT name, \"unique\", origin, partial FROM pragma_index_list('{t}') ORDER BY name"))
        {
            let index = i[0].trim_start_matches("Text(\"").trim_end_matches("\")").to_string();
            let cols = strings(&format!("SELECT name FROM pragma_index_info('{index}') ORDER BY seqno"));
            let cols: Vec<String> = cols.iter().map(|c| c[0].clone()).collect();
            lines.push(format!("index \"{index}\" {} ({})", i[1..].join(" "), cols.join(", ")));
        }
        for fk in strings(&format!(
            "SELECT \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list('{t}') ORDER BY id, seq"
        )) {
            lines.push(format!("foreign key {}", fk.join(" ")));
        }
        lines.push(";".into());
        out.push(lines);
    }
    out
}

#[test]
fn sakila_as_mysqldump_writes_it_round_trips_on_mariadb() {
    round_trip_mariadb("sakila.mariadb.sql", "rental");
}

#[test]
fn employees_as_mysqldump_writes_it_round_trips_on_mariadb() {
    round_trip_mariadb("employees.mariadb.sql", "employees");
}

#[test]
fn chinook_as_mysqldump_writes_it_round_trips_on_mariadb() {
    round_trip_mariadb("chinook.mariadb.sql", "Track");
}

#[test]
fn chinook_as_pg_dump_writes_it_round_trips_on_postgres() {
    round_trip_postgres("chinook.postgres.sql", "track");
}

#[test]
fn northwind_as_pg_dump_writes_it_round_trips_on_postgres() {
    round_trip_postgres("northwind.postgres.sql", "orders");
}

#[test]
fn chinook_as_sqlite_writes_it_round_trips_on_sqlite() {
    round_trip_sqlite("chinook.sqlite.sql", "Track");
}

/// The folder of the `postgres` the shared cluster runs (found as pkbench finds it: on PATH,
/// else Debian's newest), where its own psql and pg_dump are.
fn postgres_bin_dir() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("postgres")).find(|p| p.is_file()));
    let debian = || {
        let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin/postgres"))))
            .collect();
        versions.sort();
        versions.pop().map(|(_, p)| p)
    };
    let postgres = on_path.or_else(debian).expect("a PostgreSQL server binary (scripts/setup-test-deps installs one)");
    std::fs::canonicalize(postgres).unwrap().parent().unwrap().to_path_buf()
}
