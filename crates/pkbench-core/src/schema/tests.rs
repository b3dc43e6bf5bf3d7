use super::*;
use crate::engines::EngineKind;
use crate::engines::schema_sql::render;
use crate::values::SqlType;

/// The test schema in PostgreSQL syntax: a parent with three secondary indexes (one
/// composite), TEXT and JSON columns with NULLs, and a child with a foreign key.
const POSTGRES: &str = "
CREATE TABLE accounts (
    id bigint PRIMARY KEY,
    email varchar(120) NOT NULL,
    name text,
    country char(2) NOT NULL,
    created_at timestamptz NOT NULL,
    profile jsonb
);
CREATE UNIQUE INDEX accounts_email ON accounts (email);
CREATE INDEX accounts_country_created ON accounts (country, created_at);
CREATE INDEX accounts_created ON accounts (created_at);
CREATE TABLE orders (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id),
    amount numeric(10,2) NOT NULL,
    note text
);
CREATE INDEX orders_account ON orders (account_id);
";

const MYSQL: &str = "
CREATE TABLE `accounts` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `email` varchar(120) NOT NULL,
  `name` text COMMENT 'pkbench: len=8..40 nulls=0.2',
  `country` char(2) NOT NULL,
  `created_at` datetime NOT NULL,
  `profile` json DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `accounts_email` (`email`),
  KEY `accounts_country_created` (`country`,`created_at`),
  KEY `accounts_created` (`created_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE `orders` (
  `id` bigint NOT NULL,
  `account_id` bigint NOT NULL,
  `amount` decimal(10,2) NOT NULL,
  `note` text,
  PRIMARY KEY (`id`),
  KEY `orders_account` (`account_id`),
  CONSTRAINT `orders_account_fk` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`)
) ENGINE=InnoDB;
";

const SQLITE: &str = "
CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, country TEXT NOT NULL, created_at TIMESTAMP NOT NULL, profile JSON);
CREATE INDEX accounts_country_created ON accounts (country, created_at);
CREATE INDEX accounts_created ON accounts (created_at);
CREATE TABLE orders (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), amount REAL NOT NULL, note TEXT);
";

/// What `pg_dump --schema-only` writes around the tables.
const PG_DUMP: &str = "
--
-- PostgreSQL database dump
--
SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);
CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := now(); RETURN NEW; END;
$$;
SET default_table_access_method = heap;
CREATE TABLE public.accounts (
    id bigint NOT NULL,
    email character varying(120) NOT NULL,
    profile jsonb
);
ALTER TABLE public.accounts OWNER TO app;
CREATE SEQUENCE public.accounts_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.accounts_id_seq OWNED BY public.accounts.id;
CREATE TABLE public.orders (
    id bigint NOT NULL,
    account_id bigint NOT NULL
);
ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX accounts_email ON public.accounts USING btree (email);
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_account_fk FOREIGN KEY (account_id) REFERENCES public.accounts(id);
CREATE TRIGGER accounts_touch BEFORE UPDATE ON public.accounts FOR EACH ROW EXECUTE FUNCTION public.touch();
GRANT SELECT ON TABLE public.accounts TO reporting;
";

fn check_fixture(schema: &Schema) {
    let accounts = schema.key_table(None).unwrap();
    assert_eq!(accounts.name, "accounts");
    assert_eq!(accounts.primary_key, ["id"]);
    let mut indexes: Vec<(Vec<String>, bool)> =
        accounts.indexes.iter().map(|i| (i.columns.clone(), i.unique)).collect();
    indexes.sort();
    assert_eq!(
        indexes,
        [
            (vec!["country".to_string(), "created_at".to_string()], false),
            (vec!["created_at".to_string()], false),
            (vec!["email".to_string()], true),
        ]
    );
    assert!(accounts.column("name").unwrap().nullable && !accounts.column("email").unwrap().nullable);
    assert_eq!(accounts.column("created_at").unwrap().sql_type, Some(SqlType::Timestamp));
    let orders = schema.table("orders").unwrap();
    assert_eq!(orders.foreign_keys.len(), 1);
    assert_eq!(
        (orders.foreign_keys[0].columns.as_slice(), orders.foreign_keys[0].table.as_str()),
        (&["account_id".to_string()][..], "accounts")
    );
    schema.check_types().unwrap();
}

#[test]
fn the_test_schema_reads_the_same_in_every_dialect() {
    check_fixture(&parse(POSTGRES, Some(EngineKind::Postgres)).unwrap());
    check_fixture(&parse(MYSQL, Some(EngineKind::MariaDb)).unwrap());
    check_fixture(&parse(SQLITE, Some(EngineKind::Sqlite)).unwrap());
    let pg = parse(POSTGRES, Some(EngineKind::Postgres)).unwrap();
    let accounts = pg.table("accounts").unwrap();
    assert_eq!(accounts.column("profile").unwrap().sql_type, Some(SqlType::Json));
    assert_eq!(accounts.column("email").unwrap().sql_type, Some(SqlType::Text { max_chars: Some(120) }));
    let my = parse(MYSQL, Some(EngineKind::MariaDb)).unwrap();
    assert_eq!(
        my.table("accounts").unwrap().column("name").unwrap().comment.as_deref(),
        Some("pkbench: len=8..40 nulls=0.2")
    );
}

#[test]
fn a_pg_dump_file_works_as_given_and_lists_what_it_skipped() {
    let schema = parse(PG_DUMP, Some(EngineKind::Postgres)).unwrap();
    let accounts = schema.key_table(None).unwrap();
    assert_eq!((accounts.name.as_str(), accounts.primary_key.as_slice()), ("accounts", &["id".to_string()][..]));
    assert_eq!(schema.table("orders").unwrap().foreign_keys[0].table, "accounts");
    let skipped: Vec<&str> = schema.skipped.iter().map(|s| s.what.as_str()).collect();
    for what in [
        "SET statement_timeout",
        "SELECT pg_catalog",
        "CREATE FUNCTION",
        "CREATE SEQUENCE",
        "CREATE TRIGGER",
        "GRANT SELECT",
    ] {
        assert!(
            skipped
                .iter()
                .any(|s| s.starts_with(what.split(' ').next().unwrap()) && s.contains(what.split(' ').nth(1).unwrap())),
            "{what} in {skipped:?}"
        );
    }
    let function = schema.skipped.iter().find(|s| s.what == "CREATE FUNCTION").unwrap();
    assert_eq!(function.line, 8, "the dollar-quoted body stays in one statement");
}

fn error(sql: &str, table: Option<&str>) -> String {
    match parse(sql, Some(EngineKind::Postgres)) {
        Err(e) => e.to_string(),
        Ok(schema) => match schema.key_table(table).and_then(|_| schema.check_types()) {
            Err(e) => e.to_string(),
            Ok(()) => panic!("no error for {sql}"),
        },
    }
}

#[test]
fn bad_files_get_one_line_with_the_line_number() {
    let cases = [
        ("\nCREATE TABLE t (id bigint PRIMARY KEY,\n  x int,,\n);", None, "line 2: the statement does not parse"),
        ("CREATE TABLE t (a int);", None, "line 1: table t has no primary key"),
        // The parser quotes a string holding a line break as the token it found.
        ("CREATE TABLE t (id int PRIMARY KEY, x '\n' int);", None, "found: '\\n'"),
        (
            "\n\nCREATE TABLE t (a int, b int, PRIMARY KEY (a, b));",
            None,
            "line 3: table t's primary key is composite (a, b)",
        ),
        (
            "CREATE TABLE t (id bigint PRIMARY KEY,\n  area polygon);",
            None,
            "line 2: pkbench cannot generate values for t.area of type polygon",
        ),
        (
            "CREATE TABLE c (id int PRIMARY KEY,\n  p int REFERENCES parent (id));",
            None,
            "line 2: table c's foreign key (p) references table parent",
        ),
        ("CREATE TABLE t (id int PRIMARY KEY);", Some("x"), "--table x is not in the schema file: use one of t"),
        ("SET x = 1;", None, "the schema file has no CREATE TABLE"),
        (
            "CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (id int PRIMARY KEY);",
            None,
            "choose the table whose key to replace with --table",
        ),
    ];
    for (sql, table, expected) in cases {
        let e = error(sql, table);
        assert!(e.contains(expected), "{sql:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn the_test_schema_renders_per_strategy_and_engine() {
    let schema = parse(POSTGRES, Some(EngineKind::Postgres)).unwrap();
    let mut out = String::new();
    for engine in [EngineKind::Sqlite, EngineKind::Postgres, EngineKind::MariaDb] {
        for name in ["int", "uuid7", "uuid4", "uuid4-text"] {
            let strategy = crate::strategy::find(name).unwrap();
            out.push_str(&format!("## {engine} {name}\n"));
            for stmt in render(&schema, "accounts", strategy, engine, "pkbench").unwrap() {
                out.push_str(&stmt);
                out.push('\n');
            }
        }
    }
    insta::assert_snapshot!(out);
}

#[cfg(feature = "sqlite")]
#[test]
fn the_rendered_sqlite_schema_is_accepted_and_its_foreign_keys_hold() {
    let schema = parse(POSTGRES, Some(EngineKind::Postgres)).unwrap();
    for name in ["int", "uuid7", "uuid4", "uuid4-text"] {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        let strategy = crate::strategy::find(name).unwrap();
        for stmt in render(&schema, "accounts", strategy, EngineKind::Sqlite, "").unwrap() {
            db.execute_batch(&stmt).unwrap_or_else(|e| panic!("{name}: {stmt}: {e}"));
        }
        let orphan = db.execute("INSERT INTO orders (id, account_id, amount) VALUES (1, 42, 1.5)", []);
        assert!(orphan.is_err(), "{name}: the foreign key holds");
    }
}

#[test]
fn trailing_pkbench_comments_attach_to_their_columns() {
    let sql = "
CREATE TABLE accounts (
    id bigint PRIMARY KEY, -- the key, not pkbench's
    -- pkbench: on a line of its own belongs to no column
    email varchar(120) NOT NULL, -- pkbench: len=8..40 distinct=900
    name text /* pkbench: nulls=0.2 */,
    profile jsonb -- pkbench: len=100..400 nulls=0.5
);
CREATE TABLE `orders` (
  `id` bigint NOT NULL, -- pkbench: distinct=5
  `note` text COMMENT 'pkbench: len=1..9', -- pkbench: len=2..3
  `memo` text COMMENT 'plain words', -- pkbench: nulls=0.9
  PRIMARY KEY (`id`) -- pkbench: belongs to no column
);";
    let schema = parse(sql, Some(EngineKind::MariaDb)).unwrap();
    let comment = |t: &str, c: &str| schema.table(t).unwrap().column(c).unwrap().comment.clone();
    assert_eq!(comment("accounts", "id"), None);
    assert_eq!(comment("accounts", "email").as_deref(), Some("pkbench: len=8..40 distinct=900"));
    assert_eq!(comment("accounts", "name").as_deref(), Some("pkbench: nulls=0.2"));
    assert_eq!(comment("accounts", "profile").as_deref(), Some("pkbench: len=100..400 nulls=0.5"));
    assert_eq!(comment("orders", "id").as_deref(), Some("pkbench: distinct=5"));
    // A COMMENT that is pkbench's wins; a plain one gives way to the trailing comment.
    assert_eq!(comment("orders", "note").as_deref(), Some("pkbench: len=1..9"));
    assert_eq!(comment("orders", "memo").as_deref(), Some("pkbench: nulls=0.9"));
    for t in &schema.tables {
        for c in &t.columns {
            if let Some(text) = &c.comment {
                crate::values::SpecOverrides::parse_comment(text).unwrap();
            }
        }
    }
    // The same in PostgreSQL's dialect.
    let pg = parse(&sql[..sql.find("CREATE TABLE `orders`").unwrap()], Some(EngineKind::Postgres)).unwrap();
    assert_eq!(pg.tables[0].column("name").unwrap().comment.as_deref(), Some("pkbench: nulls=0.2"));
}

/// A MySQL table with what a faithful copy must keep: unsigned and enum types, a default and
/// `ON UPDATE`, a character set, a `CHECK`, a generated column, a prefix index and a named
/// foreign key with its actions.
const MYSQL_AS_WRITTEN: &str = "
CREATE TABLE `shop` (`id` int unsigned NOT NULL AUTO_INCREMENT, PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE `item` (
  `id` int unsigned NOT NULL AUTO_INCREMENT,
  `shop_id` int unsigned NOT NULL,
  `title` varchar(200) CHARACTER SET latin1 NOT NULL,
  `grade` enum('low','high') NOT NULL DEFAULT 'low',
  `qty` smallint unsigned NOT NULL CHECK (`qty` < 1000),
  `double_qty` int AS (`qty` * 2) VIRTUAL,
  `touched` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(),
  PRIMARY KEY (`id`),
  KEY `item_title` (`title`(20)),
  CONSTRAINT `item_shop` FOREIGN KEY (`shop_id`) REFERENCES `shop` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
";

#[test]
fn on_its_own_engine_a_table_is_kept_as_written_and_only_the_key_changes() {
    let schema = parse(MYSQL_AS_WRITTEN, Some(EngineKind::MariaDb)).unwrap();
    let strategy = crate::strategy::find("uuid4").unwrap();
    let r =
        crate::engines::schema_sql::render_with_changes(&schema, "shop", strategy, EngineKind::MariaDb, "d").unwrap();
    let item = r.statements.iter().find(|s| s.contains("`item`")).unwrap();
    for kept in [
        "`title` VARCHAR(200) CHARACTER SET latin1 NOT NULL",
        "ENUM('low', 'high') NOT NULL DEFAULT 'low'",
        "SMALLINT UNSIGNED NOT NULL CHECK (`qty` < 1000)",
        "AS (`qty` * 2) VIRTUAL",
        "ON UPDATE current_timestamp()",
        "KEY `item_title` (`title`(20))",
        "CONSTRAINT `item_shop` FOREIGN KEY (`shop_id`) REFERENCES d.`shop` (`id`) ON DELETE CASCADE",
        "ENGINE=InnoDB DEFAULT CHARSET = utf8mb4",
    ] {
        assert!(item.contains(kept), "{kept} missing from {item}");
    }
    let listed: Vec<String> = r.changes.iter().map(|c| format!("{}.{}", c.table, c.subject)).collect();
    assert_eq!(listed, ["shop.id", "item.shop_id"], "only the key and its reference change: {:?}", r.changes);
    // The generated column is never inserted into; the enum's labels are what it draws.
    let plan = Plan::new(&schema, "shop").unwrap();
    let fill = plan.fills.iter().position(|f| f.table.name == "item").unwrap();
    let sql = crate::engines::schema_sql::run_sql(&plan, strategy, EngineKind::MariaDb, "d").unwrap();
    assert!(!sql.inserts[fill].sql.contains("double_qty"), "{}", sql.inserts[fill].sql);
    assert_eq!(plan.fills[fill].table.column("grade").unwrap().labels, ["low", "high"]);
}

#[test]
fn on_another_engine_each_conversion_is_listed() {
    let schema = parse(MYSQL_AS_WRITTEN, Some(EngineKind::MariaDb)).unwrap();
    let strategy = crate::strategy::find("int").unwrap();
    let r =
        crate::engines::schema_sql::render_with_changes(&schema, "shop", strategy, EngineKind::Postgres, "p").unwrap();
    let said: Vec<String> = r.changes.iter().map(|c| c.to_string()).collect();
    for expected in [
        "item.grade: ENUM('low', 'high') NOT NULL DEFAULT 'low' → VARCHAR(4) NOT NULL",
        "item.touched: TIMESTAMP NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp() → TIMESTAMP NOT NULL",
        "item.double_qty: INT AS (`qty` * 2) VIRTUAL → INTEGER (its generating expression is another engine's",
        "item: table options DEFAULT CHARSET = utf8mb4 dropped",
    ] {
        assert!(said.iter().any(|s| s.starts_with(expected)), "{expected} not in {said:#?}");
    }
}

#[test]
fn a_sqlite_schema_with_unsigned_type_names_is_read_as_sqlite() {
    // As MediaWiki's SQLite schema writes its tables: free type names, AUTOINCREMENT.
    let sql = "CREATE TABLE revision (rev_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, rev_page INTEGER UNSIGNED NOT NULL);";
    assert_eq!(crate::schema::detect_engine(sql), Some(EngineKind::Sqlite));
    let schema = parse(sql, crate::schema::detect_engine(sql)).unwrap();
    assert_eq!(schema.tables[0].columns.len(), 2);
    for (sql, engine) in [
        ("CREATE TABLE t (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY);", EngineKind::MariaDb),
        ("CREATE TABLE t (id BIGSERIAL PRIMARY KEY);", EngineKind::Postgres),
        ("CREATE TABLE t (id INTEGER PRIMARY KEY, b) WITHOUT ROWID;", EngineKind::Sqlite),
    ] {
        assert_eq!(crate::schema::detect_engine(sql), Some(engine), "{sql}");
    }
}

#[test]
fn binary_columns_keep_their_length_limits() {
    // As MediaWiki's MySQL schema writes them: a SHA-1 in VARBINARY(32), a comment in TINYBLOB.
    let sql = "CREATE TABLE r (id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL, sha1 VARBINARY(32) DEFAULT '' NOT NULL, c TINYBLOB, ts BINARY(14) NOT NULL, b LONGBLOB, PRIMARY KEY(id));";
    let schema = parse(sql, Some(EngineKind::MariaDb)).unwrap();
    let r = &schema.tables[0];
    let max = |c: &str| r.column(c).unwrap().sql_type;
    assert_eq!(max("sha1"), Some(SqlType::Binary { max: Some(32) }));
    assert_eq!(max("c"), Some(SqlType::Binary { max: Some(255) }));
    assert_eq!(max("ts"), Some(SqlType::Binary { max: Some(14) }));
    assert_eq!(max("b"), Some(SqlType::Binary { max: None }));
}

#[test]
fn an_engine_assigned_key_is_read_back_with_returning_except_sqlite_s_rowid() {
    let schema = parse(MYSQL_AS_WRITTEN, Some(EngineKind::MariaDb)).unwrap();
    let plan = Plan::new(&schema, "shop").unwrap();
    let key = plan.fills.iter().position(|f| f.table.name == "shop").unwrap();
    for (engine, strategy, returning, rowid) in [
        (EngineKind::Sqlite, "int", false, true),
        (EngineKind::Postgres, "int", true, false),
        (EngineKind::MariaDb, "int", true, false),
        (EngineKind::Sqlite, "uuid4", false, false),
    ] {
        let strategy = crate::strategy::find(strategy).unwrap();
        let sql = crate::engines::schema_sql::run_sql(&plan, strategy, engine, "d").unwrap();
        let insert = &sql.inserts[key];
        assert_eq!(insert.sql.contains("RETURNING"), returning, "{engine:?} {}: {}", strategy.name, insert.sql);
        assert_eq!(insert.key_is_rowid, rowid, "{engine:?} {}", strategy.name);
        assert_eq!(insert.returns_key, strategy.name == "int", "{engine:?} {}", strategy.name);
    }
}
