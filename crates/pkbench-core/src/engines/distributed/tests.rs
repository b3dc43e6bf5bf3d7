//! Snapshot tests against the documentation: version texts as each system prints them, the
//! DDL of every catalog strategy under both shardings, and each catalog query with its parser
//! on rows shaped like the documentation's examples. None of this ran on a live cluster.

use super::*;
use crate::engines::sql::bench;
use crate::strategy::{CATALOG, find};

/// Version texts on each wire, with what pkbench makes of them.
fn recognition(cases: &[(Wire, &str)]) -> String {
    let mut out = String::new();
    for (wire, text) in cases {
        let found = DistributedSql::recognise(*wire, text);
        let what = match found {
            Some(system) => format!("{} {}", system.label(), system.release(text).unwrap_or("(no release)")),
            None => "not distributed SQL".into(),
        };
        let kind = EngineKind::identify(*wire, text).map_or_else(|e| format!("refused: {e}"), |k| k.name().into());
        out.push_str(&format!("{wire:?} | {text}\n  -> {what}; engine: {kind}\n"));
    }
    out
}

#[test]
fn version_texts_name_the_system() {
    let cases = [
        // SELECT version() on CockroachDB.
        (
            Wire::Postgres,
            "CockroachDB CCL v23.2.4 (x86_64-pc-linux-gnu, built 2024/04/08 21:46:19, go1.21.9 X:nocoverageredesign)",
        ),
        (Wire::Postgres, "CockroachDB CCL v24.1.0 (aarch64-unknown-linux-gnu, built 2024/05/15 21:28:29, go1.22.2)"),
        (Wire::Postgres, "CockroachDB OSS v21.2.17 (x86_64-unknown-linux-gnu, built 2022/10/17 16:10:43, go1.16.6)"),
        // SELECT version() on YugabyteDB: PostgreSQL 11 up to 2.20, 15 from 2.25.
        (
            Wire::Postgres,
            "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6 (https://github.com/yugabyte/llvm-project.git 1e6329f40e5c531c09ade7015278078682293ebd), 64-bit",
        ),
        (
            Wire::Postgres,
            "PostgreSQL 11.2-YB-2.18.4.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 15.0.3, 64-bit",
        ),
        (
            Wire::Postgres,
            "PostgreSQL 15.2-YB-2.25.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 17.0.6, 64-bit",
        ),
        // SELECT VERSION() on TiDB.
        (Wire::Mysql, "8.0.11-TiDB-v7.5.1"),
        (Wire::Mysql, "5.7.25-TiDB-v6.5.0"),
        (Wire::Mysql, "8.0.11-TiDB-v8.5.0-serverless"),
        // Not distributed SQL: PostgreSQL, MariaDB and MySQL themselves, look-alikes, and the
        // right text on the wrong wire.
        (
            Wire::Postgres,
            "PostgreSQL 16.2 (Debian 16.2-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit",
        ),
        (Wire::Postgres, "PostgreSQL 16.1 on x86_64-pc-linux-gnu, compiled by gcc-yb-13 13.2.0, 64-bit"),
        (
            Wire::Postgres,
            "PostgreSQL 8.0.2 on i686-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2 20041017 (Red Hat 3.4.2-6.fc3), Redshift 1.0.77467",
        ),
        (Wire::Postgres, "8.0.11-TiDB-v7.5.1"),
        (Wire::Mysql, "10.11.6-MariaDB-0+deb12u1"),
        (Wire::Mysql, "8.0.36-0ubuntu0.22.04.1"),
        (Wire::Mysql, "8.0.31-tidb-compatible-proxy"),
        (Wire::Mysql, "CockroachDB CCL v23.2.4 (x86_64-pc-linux-gnu, built 2024/04/08 21:46:19, go1.21.9)"),
    ];
    insta::assert_snapshot!(recognition(&cases));
}

#[test]
fn doctor_refuses_them_by_name() {
    let err = DistributedSql::refuse_diagnosis(Wire::Mysql, "8.0.11-TiDB-v7.5.1").unwrap_err().to_string();
    assert!(err.contains("the server is TiDB") && err.contains("cannot diagnose"), "{err}");
    assert!(DistributedSql::refuse_diagnosis(Wire::Mysql, "10.11.6-MariaDB").is_ok());
}

#[test]
fn shardings_parse_and_default_per_system() {
    assert_eq!(Sharding::parse("HASH").ok(), Some(Sharding::Hash));
    assert!(Sharding::parse("list").unwrap_err().to_string().contains("use range or hash"));
    let defaults: Vec<_> = DistributedSql::ALL.iter().map(|s| (s.label(), s.default_sharding().name())).collect();
    assert_eq!(defaults, [("CockroachDB", "range"), ("YugabyteDB", "hash"), ("TiDB", "range")]);
    for system in DistributedSql::ALL {
        for sharding in Sharding::ALL {
            let dialect = system.dialect(sharding);
            assert_eq!((dialect.kind(), dialect.product()), (system.kind(), system.label()));
        }
    }
}

/// Every catalog strategy's tables on `system` under both shardings, or why it is refused.
fn catalog_ddl(system: DistributedSql) -> String {
    let mut out = String::new();
    for strategy in CATALOG {
        out.push_str(&format!("## {}\n", strategy.name));
        let rendered: Vec<String> = Sharding::ALL
            .iter()
            .map(|s| match bench::render(system.dialect(*s), strategy, "pkbench") {
                Ok(sql) => sql.create.join(";\n       "),
                Err(e) => format!("refused: {e}"),
            })
            .collect();
        if rendered[0] == rendered[1] {
            out.push_str(&format!("both:  {}\n", rendered[0]));
        } else {
            out.push_str(&format!("range: {}\nhash:  {}\n", rendered[0], rendered[1]));
        }
    }
    out
}

#[test]
fn cockroach_ddl_of_every_strategy() {
    insta::assert_snapshot!(catalog_ddl(DistributedSql::Cockroach));
}

#[test]
fn yugabyte_ddl_of_every_strategy() {
    insta::assert_snapshot!(catalog_ddl(DistributedSql::Yugabyte));
}

#[test]
fn tidb_ddl_of_every_strategy() {
    insta::assert_snapshot!(catalog_ddl(DistributedSql::Tidb));
}

#[test]
fn yugabyte_on_postgresql_11_needs_pgcrypto_for_server_uuids() {
    let dialect = DistributedSql::Yugabyte.dialect(Sharding::Hash);
    let uuid4 = find("uuid4-server").unwrap();
    let old = dialect.version_requirement(uuid4, "11.2-YB-2.20.1.0-b0").unwrap();
    assert!(old.contains("pgcrypto") && old.contains("2.20.1.0"), "{old}");
    assert_eq!(dialect.version_requirement(uuid4, "15.2-YB-2.25.1.0-b0"), None);
    assert_eq!(dialect.version_requirement(find("uuid4").unwrap(), "11.2-YB-2.20.1.0-b0"), None);
}

fn rows(cells: &[&[Option<&str>]]) -> Vec<CatalogRow> {
    cells.iter().map(|r| r.iter().map(|c| c.map(String::from)).collect()).collect()
}

#[test]
fn cockroach_ranges_query_and_parser() {
    // Shaped like the docs' `SHOW RANGES FROM TABLE movr.users WITH DETAILS` example, for an
    // integer key: the last range takes every new key.
    let sample = rows(&[
        &[Some("178"), Some("…/<TableMin>"), Some("…/1/1"), Some("2"), Some("0"), Some("0"), Some("{2,5,7}")],
        &[
            Some("181"),
            Some("…/1/1"),
            Some("…/1/400001"),
            Some("8"),
            Some("423624589"),
            Some("400000"),
            Some("{7,8,9}"),
        ],
        &[
            Some("94"),
            Some("…/1/400001"),
            Some("<after:/Table/107/1/\"amsterdam\">"),
            Some("5"),
            Some("113245"),
            Some("107"),
            Some("{2,5,7}"),
        ],
    ]);
    let figures = cockroach::parse_ranges(&sample).unwrap();
    insta::assert_snapshot!(format!("{}\n\n{}", cockroach::ranges_sql("pkbench.bench"), render(&figures)));
}

#[test]
fn yugabyte_tablet_queries_and_parsers() {
    let props = yugabyte::parse_table_properties(&rows(&[&[Some("3"), Some("1"), Some("f")]])).unwrap();
    assert_eq!(props, yugabyte::TableProperties { tablets: 3, hash_key_columns: 1, colocated: false });
    // yb_tablet_metadata as the docs show it: hash codes over 0..65536, leaders by address.
    let metadata = rows(&[
        &[Some("0ee55a2cbc2d4228bc886cd0539ee0e3"), Some("0"), Some("21845"), Some("127.0.0.1:5433")],
        &[Some("0d2755a0722444649074eb33c1731814"), Some("21845"), Some("43690"), Some("127.0.0.2:5433")],
        &[Some("da65e0afabe04c7996d788e282238766"), Some("43690"), Some("65536"), Some("127.0.0.3:5433")],
    ]);
    // yb_local_tablets as the docs show it: partition keys as bytea (hex here), NULL at the ends.
    let local = rows(&[
        &[Some("e09f981d148c4895a82e5dc66de446b0"), None, Some("5555")],
        &[Some("ebeb23077f534fa0928aad93b37b9da9"), Some("5555"), Some("aaaa")],
        &[Some("da65e0afabe04c7996d788e282238766"), Some("aaaa"), None],
    ]);
    insta::assert_snapshot!(format!(
        "{}\n\n{}\n\n{}\n{}\n\n{}",
        yugabyte::table_properties_sql("pkbench", "bench"),
        yugabyte::tablet_metadata_sql("pkbench", "bench"),
        render(&yugabyte::parse_tablet_metadata(&metadata).unwrap()),
        yugabyte::local_tablets_sql("pkbench", "bench"),
        render(&yugabyte::parse_local_tablets(&local).unwrap()),
    ));
}

#[test]
fn tidb_region_queries_and_parsers() {
    // TIKV_REGION_STATUS keys are hex (`t` 106 `_r` …); sizes in MiB; a row-data region and
    // the region of the table's end.
    let regions = rows(&[
        &[
            Some("2"),
            Some("7480000000000000FF6A5F720000000000FA"),
            Some("7480000000000000FF6A5F728000000000FF0186A10000000000FA"),
            Some("1"),
            Some("96"),
            Some("100001"),
            Some("0"),
        ],
        &[
            Some("3011"),
            Some("7480000000000000FF6A5F728000000000FF0186A10000000000FA"),
            Some(""),
            Some("4"),
            Some("41"),
            Some("42817"),
            Some("6094848"),
        ],
    ]);
    let hot = rows(&[&[Some("3011"), None, Some("WRITE"), Some("1092"), Some("6094848")]]);
    insta::assert_snapshot!(format!(
        "{}\n\n{}\n{}\n\n{:#?}",
        tidb::regions_sql("pkbench", "bench"),
        render(&tidb::parse_regions(&regions).unwrap()),
        tidb::hot_regions_sql("pkbench", "bench"),
        tidb::parse_hot_regions(&hot).unwrap(),
    ));
}

#[test]
fn parsers_refuse_rows_of_another_shape() {
    let short = rows(&[&[Some("1"), Some("a")]]);
    let err = cockroach::parse_ranges(&short).unwrap_err();
    assert!(matches!(&err, Error::UnexpectedResponse(m) if m.contains("returned 2 columns, expected 7")), "{err:?}");
    let bad = rows(&[&[Some("1"), None, None, Some("1"), Some("lots"), None, None]]);
    let err = tidb::parse_regions(&bad).unwrap_err();
    assert!(matches!(&err, Error::UnexpectedResponse(m) if m.contains("APPROXIMATE_SIZE is not a count")), "{err:?}");
    assert!(matches!(yugabyte::parse_table_properties(&[]), Err(Error::UnexpectedResponse(_))));
    assert_eq!(number(Some("0.00011300000000000000000"), "range_size_mb").unwrap(), Some(0));
}

#[test]
fn catalog_filters_quote_names() {
    assert!(tidb::regions_sql("it's", "t").contains("s.DB_NAME = 'it''s'"));
}

#[test]
fn app_tables_on_each_system() {
    let mut out = String::new();
    for system in DistributedSql::ALL {
        for sharding in Sharding::ALL {
            for name in ["int", "uuid4"] {
                let sql = crate::engines::sql::app::render(system.dialect(sharding), find(name).unwrap(), "s").unwrap();
                out.push_str(&format!("## {} {sharding} {name}\n{}\n", system.label(), sql.create.join(";\n")));
            }
        }
    }
    insta::assert_snapshot!(out);
}
