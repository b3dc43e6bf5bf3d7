//! `doctor` on managed throwaway PostgreSQL clusters (the default version's tables in a database
//! of their own on the binary's shared cluster): tables built with pkbench's own DDL and key
//! streams for int, uuid4, uuid4-text and uuid7 (one schema each), plus edge cases. Doctor must
//! name each scheme and layout, give the right top advice, match `pgstatindex`, stay inside a
//! read-only transaction, and fail on bad URLs with one line that hides the password.

use crate::common::shared;
use pkbench_core::doctor::postgres::{ReadOnlySession, diagnose, diagnose_session};
use pkbench_core::doctor::{
    AdviceKind, DoctorOptions, DoctorReport, KeyScheme, KeyStorage, Layout, TableReport, migration_sql_for, to_json,
};
use pkbench_core::engines::postgres::{ManagedPostgres, bin_dir_for_version, render_schema};
use pkbench_core::engines::server::{ManagedOptions, wait_until};
use pkbench_core::generators::Key;
use pkbench_core::keys::KeyStream;
use pkbench_core::strategy::find;
use postgres::types::ToSql;
use std::time::Duration;

const ROWS: u64 = 20_000;
const PAYLOAD: usize = 50;

fn start() -> ManagedPostgres {
    start_version(None)
}

/// A managed cluster of PostgreSQL `major` (`None`: the default, Debian's newest).
fn start_version(major: Option<u32>) -> ManagedPostgres {
    let server_bin = major.map(|m| {
        bin_dir_for_version(m)
            .unwrap_or_else(|e| panic!("PostgreSQL {m} is needed (scripts/setup-test-deps installs it): {e}"))
    });
    let options = ManagedOptions { server_bin, ..Default::default() };
    ManagedPostgres::start(&options, 32).unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"))
}

fn url(server: &ManagedPostgres, user: &str) -> String {
    format!("postgresql://{user}@/postgres?host={}&port={}", server.dir().display(), server.port())
}

/// Creates `strategy`'s table with pkbench's DDL in schema `schema` and inserts [`ROWS`] rows of
/// its key stream.
fn fixture(client: &mut postgres::Client, strategy: &str, schema: &str) {
    let s = find(strategy).unwrap();
    let sql = render_schema(s, schema).unwrap();
    client.batch_execute(&format!("CREATE SCHEMA {schema}")).unwrap();
    for stmt in &sql.create {
        client.batch_execute(stmt).unwrap();
    }
    let mut stream = KeyStream::new(s, 7);
    let payload = vec![0xa5u8; PAYLOAD];
    for _ in 0..ROWS / 1_000 {
        let rows: Vec<_> = (0..1_000).map(|_| stream.next_row()).collect();
        let column = |key: fn(&pkbench_core::keys::KeyRow) -> Option<Key>| -> Option<Box<dyn ToSql + Sync>> {
            let keys: Vec<Key> = rows.iter().filter_map(key).collect();
            let storage = s.primary.storage;
            match keys.first()? {
                Key::Int(_) => {
                    Some(Box::new(keys.iter().map(|k| if let Key::Int(i) = k { *i } else { 0 }).collect::<Vec<i64>>()))
                }
                Key::Uuid(_) => {
                    let ids: Vec<uuid::Uuid> = keys
                        .iter()
                        .map(|k| if let Key::Uuid(b) = k { uuid::Uuid::from_bytes(*b) } else { uuid::Uuid::nil() })
                        .collect();
                    if matches!(storage, pkbench_core::strategy::Storage::Text36) {
                        Some(Box::new(ids.iter().map(|u| u.hyphenated().to_string()).collect::<Vec<String>>()))
                    } else {
                        Some(Box::new(ids))
                    }
                }
            }
        };
        let mut params: Vec<Box<dyn ToSql + Sync>> =
            [column(|r| r.primary), column(|r| r.secondary)].into_iter().flatten().collect();
        params.push(Box::new(payload.clone()));
        if params.len() == 1 {
            params.push(Box::new(1_000i32));
        }
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
        client.execute(&sql.insert.sql, &refs).unwrap();
    }
}

fn bench<'a>(report: &'a DoctorReport, schema: &str) -> &'a TableReport {
    let name = format!("{schema}.bench");
    report.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no {name} in {report:#?}"))
}

fn validate(report: &DoctorReport) {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let value: serde_json::Value = serde_json::from_str(&to_json(report)).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn names_schemes_layouts_advice_and_matches_pgstatindex() {
    names_schemes_layouts_advice_and_matches_pgstatindex_on(None);
}

#[test]
fn names_schemes_layouts_advice_and_matches_pgstatindex_on_postgresql_18() {
    names_schemes_layouts_advice_and_matches_pgstatindex_on(Some(18));
}

/// Doctor on a cluster of PostgreSQL `major` (`None`: the default), whose major version the
/// report must name.
fn names_schemes_layouts_advice_and_matches_pgstatindex_on(major: Option<u32>) {
    // The default version's tables go in a database of their own on the shared cluster; another
    // version gets a cluster of its own.
    let own = major.map(|m| start_version(Some(m)));
    let config = match &own {
        Some(server) => server.config(),
        None => shared::postgres_database("doctor_names"),
    };
    let url = |user: &str| shared::postgres_url(&config, user);
    let mut client = config.connect(postgres::NoTls).unwrap();
    let num: String = client.query_one("SHOW server_version_num", &[]).unwrap().get(0);
    let reported = num.parse::<u32>().unwrap() / 10_000;
    if let Some(major) = major {
        assert_eq!(reported, major, "the cluster started is PostgreSQL {major}");
    }
    let version = format!("{reported}.");
    client.batch_execute("CREATE EXTENSION pgstattuple").unwrap();
    let cases: &[(&str, &str, KeyScheme, KeyStorage, &[AdviceKind])] = &[
        ("int", "s_int", KeyScheme::Sequence, KeyStorage::Integer, &[]),
        ("uuid7", "s_uuid7", KeyScheme::UuidV7, KeyStorage::NativeUuid, &[]),
        ("uuid4", "s_uuid4", KeyScheme::UuidV4, KeyStorage::NativeUuid, &[AdviceKind::TimeOrderedKey]),
        (
            "uuid4-text",
            "s_uuid4_text",
            KeyScheme::UuidV4,
            KeyStorage::Text36,
            &[AdviceKind::TimeOrderedKey, AdviceKind::BinaryStorage],
        ),
    ];
    for (strategy, schema, ..) in cases {
        fixture(&mut client, strategy, schema);
    }
    let report = diagnose(&url("postgres"), &DoctorOptions::default()).unwrap();
    validate(&report);
    assert_eq!(report.engine, "postgres");
    assert!(report.engine_version.starts_with(&version), "the server found: {}", report.engine_version);
    // The report says how it connected: here a local Unix socket, which TLS does not apply to.
    assert!(report.notes[0].starts_with("connection not encrypted"), "{:?}", report.notes);
    assert!(report.read_only.as_deref().unwrap().contains("transaction_read_only = on"), "{:?}", report.read_only);
    for &(strategy, schema, scheme, storage, top) in cases {
        let t = bench(&report, schema);
        let s = t.primary_key.as_ref().unwrap().scheme.as_ref().unwrap();
        assert_eq!((s.scheme, s.storage, t.layout), (scheme, storage, Layout::HeapWithKeyIndex), "{strategy}: {t:#?}");
        assert!(s.share > 0.95 && s.samples >= 500, "{strategy}: {s:?}");
        assert!(s.sampling.contains("ctid ranges"), "{strategy}: {}", s.sampling);
        assert_eq!(t.rows, ROWS);
        let kinds: Vec<AdviceKind> = t.advice.iter().map(|a| a.kind).collect();
        assert_eq!(kinds, top, "{strategy}: {:#?}", t.advice);
        if top.is_empty() {
            assert!(t.verdict.starts_with("The key is fine"), "{strategy}: {}", t.verdict);
        }
        let order = t.primary_key.as_ref().unwrap().order.as_ref().unwrap();
        assert_eq!(order.appends_in_order, Some(!scheme.is_random()), "{strategy}: {order:?}");
        // The index figures are pgstatindex's own.
        let index = t.btrees.iter().find(|b| b.stats.kind == "index").unwrap();
        assert!(index.estimated.is_none(), "{strategy}: {index:?}");
        let r = client
            .query_one(
                &format!(
                    "SELECT leaf_pages, avg_leaf_density, leaf_fragmentation FROM pgstatindex('{schema}.bench_pkey')"
                ),
                &[],
            )
            .unwrap();
        assert_eq!(index.stats.leaf_pages, r.get::<_, i64>(0) as u64, "{strategy}");
        assert!((index.stats.leaf_fill - r.get::<_, f64>(1) / 100.0).abs() < 1e-9, "{strategy}");
        assert!((index.stats.leaf_out_of_order - r.get::<_, f64>(2) / 100.0).abs() < 1e-9, "{strategy}");
    }
    let random = bench(&report, "s_uuid4").btrees.iter().find(|b| b.stats.kind == "index").unwrap().stats.leaf_fill;
    let ordered = bench(&report, "s_uuid7").btrees.iter().find(|b| b.stats.kind == "index").unwrap().stats.leaf_fill;
    assert!(ordered > random + 0.1, "v7 {ordered} vs v4 {random}");
    text_key_script_runs(&mut client, &url("postgres"), reported);
}

/// The script for the uuid4-text table converts the key to uuid, and the column of a table whose
/// foreign key holds it, and runs on PostgreSQL `reported` at `url`.
fn text_key_script_runs(client: &mut postgres::Client, url: &str, reported: u32) {
    client
        .batch_execute(
            "CREATE TABLE s_uuid4_text.items (id bigserial PRIMARY KEY, bench_id text REFERENCES s_uuid4_text.bench ON DELETE CASCADE);
             INSERT INTO s_uuid4_text.items (bench_id) SELECT id FROM s_uuid4_text.bench LIMIT 1000;
             ALTER TABLE s_uuid4_text.bench ADD COLUMN parent text REFERENCES s_uuid4_text.bench;
             UPDATE s_uuid4_text.bench SET parent = id WHERE id < '4';
             CREATE TABLE s_uuid4_text.profile (bench_id text PRIMARY KEY REFERENCES s_uuid4_text.bench);
             CREATE TABLE s_uuid4_text.badge (id serial PRIMARY KEY,
                 profile_id text NOT NULL CONSTRAINT badge_profile REFERENCES s_uuid4_text.profile ON DELETE CASCADE);
             INSERT INTO s_uuid4_text.profile SELECT id FROM s_uuid4_text.bench LIMIT 500;
             INSERT INTO s_uuid4_text.badge (profile_id) SELECT bench_id FROM s_uuid4_text.profile;",
        )
        .unwrap();
    one_to_one_child_names_its_parent(url);
    let only =
        DoctorOptions { schema: Some("s_uuid4_text".into()), table: Some("bench".into()), ..DoctorOptions::default() };
    let text = diagnose(url, &only).unwrap();
    assert_eq!(text.tables.len(), 1);
    let items = &text.tables[0].referenced_by;
    let found: Vec<(&str, &str)> = items.iter().map(|r| (r.table.as_str(), r.column.as_str())).collect();
    assert_eq!(
        found,
        [
            ("s_uuid4_text.bench", "parent"),
            ("s_uuid4_text.items", "bench_id"),
            ("s_uuid4_text.profile", "bench_id"),
            ("s_uuid4_text.badge", "profile_id")
        ],
        "{items:?}"
    );
    let via = items[3].references.as_ref().unwrap();
    assert_eq!((via.table.as_str(), via.column.as_str()), ("s_uuid4_text.profile", "bench_id"));
    assert!(items[1].nullable && items[1].definition.as_deref().unwrap().contains("REFERENCES s_uuid4_text.bench(id)"));
    // The whole schema's script: the profile, advised too, is converted once, with the bench.
    let whole = DoctorOptions { schema: Some("s_uuid4_text".into()), ..DoctorOptions::default() };
    let script = migration_sql_for(url, &diagnose(url, &whole).unwrap()).unwrap();
    assert!(
        script.contains("-- The key is a foreign key to s_uuid4_text.bench.id, and must keep its type"),
        "{script}"
    );
    assert_eq!(script.matches("\"profile\" ALTER COLUMN \"bench_id\" TYPE uuid").count(), 1, "{script}");
    assert!(script.contains("TYPE uuid USING \"id\"::uuid"), "{script}");
    assert!(script.contains("ALTER TABLE \"s_uuid4_text\".\"items\" ALTER COLUMN \"bench_id\" TYPE uuid"), "{script}");
    if reported >= 18 {
        assert!(script.contains("after the conversion below, run\n-- ALTER TABLE \"s_uuid4_text\".\"bench\" ALTER COLUMN \"id\" SET DEFAULT uuidv7();"), "{script}");
        // And for a native uuid key the default is set at once, and runs.
        let native = DoctorOptions { schema: Some("s_uuid4".into()), ..DoctorOptions::default() };
        let uuid4 = diagnose(url, &native).unwrap();
        let script = migration_sql_for(url, &uuid4).unwrap();
        assert!(
            script.contains("ALTER TABLE \"s_uuid4\".\"bench\" ALTER COLUMN \"id\" SET DEFAULT uuidv7();"),
            "{script}"
        );
        client.batch_execute(&script).unwrap();
    } else {
        assert!(script.contains("no uuidv7()"), "{script}");
    }
    client.batch_execute(&script).unwrap();
    let after = diagnose(url, &only).unwrap();
    let s = after.tables[0].primary_key.as_ref().unwrap().scheme.as_ref().unwrap();
    assert_eq!(s.storage, KeyStorage::NativeUuid);
    // Every item still references its row, through the foreign key made again as it was.
    let joined: i64 = client
        .query_one("SELECT count(*) FROM s_uuid4_text.items i JOIN s_uuid4_text.bench b ON b.id = i.bench_id", &[])
        .unwrap()
        .get(0);
    assert_eq!(joined, 1000);
    let fk: String = client
        .query_one(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 's_uuid4_text.items'::regclass AND contype = 'f'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(fk.contains("ON DELETE CASCADE"), "{fk}");
    // Down the chain too: every badge reaches its bench, and its ON DELETE CASCADE is kept.
    let chained: i64 = client
        .query_one(
            "SELECT count(*) FROM s_uuid4_text.badge g JOIN s_uuid4_text.profile p ON p.bench_id = g.profile_id \
             JOIN s_uuid4_text.bench b ON b.id = p.bench_id",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(chained, 500);
    let badge: String = client
        .query_one("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'badge_profile'", &[])
        .unwrap()
        .get(0);
    assert!(badge.contains("ON DELETE CASCADE"), "{badge}");
}

/// The profile's key is a copy of a bench's: its advice and script name the bench's key, and its
/// script converts nothing on its own.
fn one_to_one_child_names_its_parent(url: &str) {
    let profile = DoctorOptions {
        schema: Some("s_uuid4_text".into()),
        table: Some("profile".into()),
        ..DoctorOptions::default()
    };
    let child = diagnose(url, &profile).unwrap();
    let parent = child.tables[0].key_references.as_ref().unwrap();
    assert_eq!((parent.table.as_str(), parent.column.as_str()), ("s_uuid4_text.bench", "id"));
    assert!(
        child.tables[0].verdict.contains(
            "a copy of s_uuid4_text.bench.id through its foreign key: switch that table's new keys to UUIDv7"
        ),
        "{}",
        child.tables[0].verdict
    );
    let script = migration_sql_for(url, &child).unwrap();
    assert!(script.contains("-- New keys are copies of s_uuid4_text.bench.id"), "{script}");
    assert!(!script.contains("ALTER TABLE"), "{script}");
}

#[test]
fn read_only_edge_cases_and_one_line_errors() {
    let server = start();
    let mut client = server.config().connect(postgres::NoTls).unwrap();
    client
        .batch_execute(
            "CREATE TABLE nokey (v text); INSERT INTO nokey VALUES ('x'), ('y');
             CREATE TABLE pair (a int, b int, PRIMARY KEY (a, b)); INSERT INTO pair VALUES (1, 2), (2, 1);
             CREATE TABLE empty (id uuid PRIMARY KEY);
             CREATE TABLE ext (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ext_id uuid NOT NULL UNIQUE);
             INSERT INTO ext (ext_id) SELECT gen_random_uuid() FROM generate_series(1, 3000);",
        )
        .unwrap();
    let u = url(&server, "postgres");
    // A write inside doctor's session is refused.
    let mut session = ReadOnlySession::connect(&u, &Default::default()).unwrap();
    let err = session.client().batch_execute("CREATE TABLE evil (x int)").unwrap_err();
    assert!(err.as_db_error().unwrap().message().contains("read-only transaction"), "{err}");
    drop(session);
    let mut session = ReadOnlySession::connect(&u, &Default::default()).unwrap();
    let report = diagnose_session(&mut session, &DoctorOptions::default()).unwrap();
    validate(&report);
    let table = |n: &str| report.tables.iter().find(|t| t.name == n).unwrap();
    assert_eq!(table("nokey").layout, Layout::HeapNoKey);
    assert!(table("nokey").verdict.starts_with("No primary key"));
    assert_eq!(table("pair").primary_key.as_ref().unwrap().columns, ["a", "b"]);
    assert!(table("pair").advice.is_empty());
    assert_eq!(table("empty").rows, 0);
    let ext = table("ext");
    assert_eq!(ext.unique_keys[0].scheme.as_ref().unwrap().scheme, KeyScheme::UuidV4);
    assert_eq!(ext.advice[0].kind, AdviceKind::TimeOrderedUniqueColumn, "{:#?}", ext.advice);
    // The session is still read-only and nothing was created.
    let still: String = session.client().query_one("SHOW transaction_read_only", &[]).unwrap().get(0);
    assert_eq!(still, "on");
    drop(session);
    let n: i64 = client.query_one("SELECT count(*) FROM pg_class WHERE relname = 'evil'", &[]).unwrap().get(0);
    assert_eq!(n, 0);
    let missing = diagnose(&u, &DoctorOptions { table: Some("nope".into()), ..DoctorOptions::default() });
    let missing = missing.unwrap_err();
    assert!(matches!(&missing, pkbench_core::Error::NotFound(_)), "{missing:?}");
    assert!(missing.to_string().contains("no table 'nope'"));

    // Password authentication for one role; a wrong password and an unreachable server.
    let hba = server.dir().join("data").join("pg_hba.conf");
    std::fs::write(&hba, "local all postgres trust\nlocal all all scram-sha-256\n").unwrap();
    client
        .batch_execute(
            "SELECT pg_reload_conf(); CREATE ROLE doc LOGIN PASSWORD 'Right-Pw-1'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO doc;",
        )
        .unwrap();
    let with =
        |pw: &str| format!("postgresql://doc:{pw}@/postgres?host={}&port={}", server.dir().display(), server.port());
    // The server reads pg_hba.conf again a moment after the reload is asked for.
    let asks_for_a_password = || {
        diagnose(&with("Wrong-Secret-9"), &DoctorOptions::default()).is_err_and(|e| {
            e.server_kind() == Some(pkbench_core::ServerErrorKind::AuthenticationFailed)
                && e.to_string().contains("password authentication failed")
        })
    };
    assert!(wait_until(Duration::from_secs(30), asks_for_a_password), "pg_hba.conf was not reloaded");
    let err = diagnose(&with("Wrong-Secret-9"), &DoctorOptions::default()).unwrap_err().to_string();
    assert!(!err.contains("Wrong-Secret-9") && !err.contains('\n') && err.contains("doc:***@"), "{err}");
    assert!(err.contains("password authentication failed"), "{err}");
    let err = diagnose("postgres://u:Hidden-Pw-7@127.0.0.1:1/db", &DoctorOptions::default()).unwrap_err().to_string();
    assert!(!err.contains("Hidden-Pw-7") && !err.contains('\n') && err.contains("u:***@127.0.0.1:1"), "{err}");
    // Without the right to run pgstatindex, doctor estimates and says so.
    let report = diagnose(&with("Right-Pw-1"), &DoctorOptions::default()).unwrap();
    let index =
        table_of(&report, "ext").btrees.iter().find(|b| b.stats.name == "ext_ext_id_key").map(|b| b.estimated.clone());
    assert!(matches!(index, Some(Some(_))), "{report:#?}");
    assert!(report.notes.iter().any(|n| n.contains("not installed") || n.contains("failed")), "{:?}", report.notes);
}

fn table_of<'a>(report: &'a DoctorReport, name: &str) -> &'a TableReport {
    report.tables.iter().find(|t| t.name == name).unwrap()
}

#[test]
fn doctor_on_postgresql_16_without_contrib_reports_the_server_and_what_it_could_not_measure() {
    // The `pgserver` wheel's PostgreSQL 16 ships no pgstattuple.
    let server = start_version(Some(16));
    let mut client = server.config().connect(postgres::NoTls).unwrap();
    fixture(&mut client, "uuid4", "s_uuid4");
    let report = diagnose(&url(&server, "postgres"), &DoctorOptions::default()).unwrap();
    validate(&report);
    assert!(report.engine_version.starts_with("16."), "the server found: {}", report.engine_version);
    assert!(report.notes.iter().any(|n| n.contains("pgstattuple is not installed")), "{:?}", report.notes);
    let t = bench(&report, "s_uuid4");
    assert_eq!(t.primary_key.as_ref().unwrap().scheme.as_ref().unwrap().scheme, KeyScheme::UuidV4);
}
