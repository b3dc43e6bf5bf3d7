//! The part of SQLite's migration script that stores text keys in 16 bytes: every column that
//! holds one of the keys (the key columns, and, following foreign keys, each column that
//! references a converted column, its own table's included), each table rebuilt once, as
//! SQLite's ALTER TABLE page describes for a change ALTER TABLE cannot make
//! (<https://sqlite.org/lang_altertable.html#otheralter>): foreign keys off, one transaction,
//! each table made again from its own `CREATE TABLE` with only the columns' types changed, its
//! indexes and triggers made again, and the commit reached only if no reference broke.
//!
//! Where a step cannot be written safely — a `CREATE TABLE` it cannot rewrite, a `CHECK` or
//! generated column that reads a converted column, a `DEFAULT` on one other than NULL, a
//! composite foreign key that holds one — the script
//! converts nothing and says why: converting some of the columns that hold a key would break
//! every reference between them.

use super::sql::to_blob;
use crate::doctor::sample::KeyStorage;
use crate::doctor::schema::quote;
use rusqlite::{Connection, OptionalExtension};

/// A column whose text values become 16 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Its table.
    pub table: String,
    /// The column.
    pub column: String,
    /// The text form its values hold.
    pub storage: KeyStorage,
    /// Whether it is a key doctor advised converting (its table is then copied in its order).
    pub key: bool,
}

/// One foreign key of a table: its columns, the table it references and the columns there.
struct ForeignKey {
    table: String,
    from: Vec<String>,
    parent: String,
    to: Vec<String>,
}

/// The script converting `keys` and every column that holds them, or comments saying why it
/// cannot.
pub fn script(conn: &Connection, keys: Vec<Conversion>) -> rusqlite::Result<String> {
    let conversions = match holding(conn, keys)? {
        Ok(all) => all,
        Err(why) => return Ok(refused(&why)),
    };
    let mut tables: Vec<(String, Vec<&Conversion>)> = Vec::new();
    for c in &conversions {
        match tables.iter_mut().find(|t| t.0.eq_ignore_ascii_case(&c.table)) {
            Some(t) => t.1.push(c),
            None => tables.push((c.table.clone(), vec![c])),
        }
    }
    // Every value must convert: one that does not would turn NULL (text that is not hex) or into
    // other bytes (a ULID with a letter base32 lacks), and a NULL passes every reference check.
    let mut body = String::from(
        "-- Run with -bail, the script stops here and commits nothing if a value does not convert to 16 bytes.\nCREATE TEMP TABLE pkbench_unconverted (n INTEGER CHECK (n = 0));\n",
    );
    for c in &conversions {
        let column = quote(&c.column);
        body.push_str(&format!(
            "INSERT INTO pkbench_unconverted SELECT count(*) FROM {} WHERE {column} IS NOT NULL AND NOT ({});\n",
            quote(&c.table),
            converts(&c.column, c.storage)
        ));
    }
    body.push_str("DROP TABLE temp.pkbench_unconverted;\n");
    for (table, columns) in &tables {
        match rebuild(conn, table, columns)? {
            Ok(sql) => body.push_str(&sql),
            Err(why) => return Ok(refused(&why)),
        }
    }
    let columns: Vec<String> =
        conversions.iter().map(|c| format!("{}.{}", quote(&c.table), quote(&c.column))).collect();
    Ok(format!(
        "-- Stores {} in 16 bytes. Run it with `sqlite3 -bail FILE < script.sql`: without -bail the\n\
         -- shell goes on after an error and would commit what came before it.\n\
         -- Foreign keys off while the tables are rebuilt (dropping a table they reference would delete\n\
         -- or orphan its referencing rows); the legacy rename leaves views and triggers that name a\n\
         -- table alone while it is made again. Both take effect outside a transaction.\n\
         PRAGMA foreign_keys = OFF;\nPRAGMA legacy_alter_table = ON;\nBEGIN;\n\
         -- References that do not resolve already, so that the check at the end finds only new ones.\n\
         CREATE TEMP TABLE pkbench_orphans AS SELECT count(*) AS n FROM pragma_foreign_key_check;\n\
         {body}\
         -- Run with -bail, the script stops here and commits nothing if a reference no longer resolves.\n\
         CREATE TEMP TABLE pkbench_check (new_orphans INTEGER CHECK (new_orphans <= 0));\n\
         INSERT INTO pkbench_check SELECT (SELECT count(*) FROM pragma_foreign_key_check) - n FROM pkbench_orphans;\n\
         DROP TABLE temp.pkbench_check;\nDROP TABLE temp.pkbench_orphans;\nCOMMIT;\nPRAGMA legacy_alter_table = OFF;\n\
         -- Foreign keys on again for this connection (each connection sets its own; your application's\n\
         -- connections turn them on as before).\nPRAGMA foreign_keys = ON;\n\
         -- The application must now bind these keys as 16-byte BLOBs.\n",
        columns.join(", ")
    ))
}

/// SQL true where `column`'s value converts to 16 bytes: hex text whose bytes are 16, a ULID of
/// 26 base32 characters whose first is at most 7.
fn converts(column: &str, storage: KeyStorage) -> String {
    match storage {
        KeyStorage::Text26 => {
            let pattern = format!("[0-7]{}", "[0-9A-HJKMNP-TV-Z]".repeat(25));
            format!("length({c}) = 26 AND upper({c}) GLOB '{pattern}'", c = quote(column))
        }
        _ => format!("length({}) IS 16", to_blob(column, storage).unwrap_or_else(|| "NULL".into())),
    }
}

/// The comment a script carries instead of a conversion it cannot write safely.
fn refused(why: &str) -> String {
    format!(
        "-- Not converted here: {why}. Converting some of the columns that hold a key and not the others would break\n-- the references between them: convert them together by hand, with SQLite's ALTER TABLE procedure\n-- (https://sqlite.org/lang_altertable.html#otheralter).\n"
    )
}

/// `keys` and every column that holds one of them: following each single-column foreign key
/// that references a converted column (the referenced table's own included), and each one a
/// converted column has, until none is new; `Err` with the reason where a composite foreign key
/// holds one.
fn holding(conn: &Connection, keys: Vec<Conversion>) -> rusqlite::Result<Result<Vec<Conversion>, String>> {
    let fks = foreign_keys(conn)?;
    let mut all = keys;
    let mut next = 0;
    while next < all.len() {
        let c = all[next].clone();
        next += 1;
        let refers = |fk: &&ForeignKey| {
            fk.parent.eq_ignore_ascii_case(&c.table) && fk.to.iter().any(|t| t.eq_ignore_ascii_case(&c.column))
        };
        // The column's own foreign key: the column it references holds the same values.
        let holds = |fk: &&ForeignKey| {
            fk.table.eq_ignore_ascii_case(&c.table) && fk.from.iter().any(|f| f.eq_ignore_ascii_case(&c.column))
        };
        for fk in fks.iter().filter(refers) {
            let [from] = fk.from.as_slice() else { return Ok(Err(composite(fk))) };
            add(&mut all, &fk.table, from, c.storage);
        }
        for fk in fks.iter().filter(holds) {
            let [to] = fk.to.as_slice() else { return Ok(Err(composite(fk))) };
            add(&mut all, &fk.parent, to, c.storage);
        }
    }
    Ok(Ok(all))
}

/// `table.column` among the columns to convert, unless it is already.
fn add(all: &mut Vec<Conversion>, table: &str, column: &str, storage: KeyStorage) {
    if !all.iter().any(|a| a.table.eq_ignore_ascii_case(table) && a.column.eq_ignore_ascii_case(column)) {
        all.push(Conversion { table: table.into(), column: column.into(), storage, key: false });
    }
}

/// Why a composite foreign key that holds a converted column stops the conversion.
fn composite(fk: &ForeignKey) -> String {
    format!(
        "the foreign key ({}) of {} references ({}) of {}: a composite key holds a converted column",
        fk.from.join(", "),
        quote(&fk.table),
        fk.to.join(", "),
        quote(&fk.parent)
    )
}

/// A foreign key as listed: (table, id), its columns, and the referenced ones where written.
type Grouped = ((String, i64), ForeignKey, Vec<Option<String>>);

/// Every foreign key of every table, its referenced columns resolved (none written: the
/// referenced table's primary key).
fn foreign_keys(conn: &Connection) -> rusqlite::Result<Vec<ForeignKey>> {
    let rows: Vec<(String, i64, String, String, Option<String>)> = conn
        .prepare(
            "SELECT m.name, f.id, f.\"from\", f.\"table\", f.\"to\" FROM sqlite_master m, pragma_foreign_key_list(m.name) f \
             WHERE m.type = 'table' ORDER BY m.name, f.id, f.seq",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    let mut grouped: Vec<Grouped> = Vec::new();
    for (table, id, from, parent, to) in rows {
        let key = (table.clone(), id);
        match grouped.last_mut().filter(|g| g.0 == key) {
            Some(g) => {
                g.1.from.push(from);
                g.2.push(to);
            }
            None => grouped.push((key, ForeignKey { table, from: vec![from], parent, to: Vec::new() }, vec![to])),
        }
    }
    let mut out = Vec::new();
    for (_, mut fk, to) in grouped {
        fk.to = match to.iter().all(Option::is_some) {
            true => to.into_iter().flatten().collect(),
            false => primary_key(conn, &fk.parent)?,
        };
        out.push(fk);
    }
    Ok(out)
}

/// `table`'s primary key columns, in key order.
fn primary_key(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    conn.prepare("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk")?
        .query_map([table], |r| r.get(0))?
        .collect()
}

/// `table` made again with `columns` as BLOB holding their values as 16 bytes (in key order
/// where one is a key, whose rows then fill its pages), then its indexes and triggers, and its
/// `AUTOINCREMENT` sequence carried over; `Err` with the reason where it cannot be written.
fn rebuild(conn: &Connection, table: &str, columns: &[&Conversion]) -> rusqlite::Result<Result<String, String>> {
    let new_name = format!("{table}_binary_key");
    let (t, new) = (quote(table), quote(&new_name));
    let sql: String =
        conn.query_row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| r.get(0))?;
    let names: Vec<&str> = columns.iter().map(|c| c.column.as_str()).collect();
    let create = match with_blob_columns(&sql, &new_name, &names) {
        Ok(create) => create,
        Err(why) => return Ok(Err(format!("{t}: {why}"))),
    };
    // Generated columns are not copied: the new table computes them.
    let all: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let converted = |c: &str| columns.iter().find(|x| x.column.eq_ignore_ascii_case(c));
    let select: Vec<String> =
        all.iter().map(|c| converted(c).and_then(|x| to_blob(c, x.storage)).unwrap_or_else(|| quote(c))).collect();
    let order = match all.iter().position(|c| converted(c).is_some_and(|x| x.key)) {
        Some(i) => format!(" ORDER BY {}", i + 1),
        None => String::new(),
    };
    let quoted: Vec<String> = all.iter().map(|c| quote(c)).collect();
    let mut out = format!(
        "{create};\nINSERT INTO {new} ({}) SELECT {} FROM {t}{order};\nDROP TABLE {t};\nALTER TABLE {new} RENAME TO {t};\n",
        quoted.join(", "),
        select.join(", ")
    );
    let again: Vec<String> = conn
        .prepare(
            "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ?1 AND sql IS NOT NULL \
             ORDER BY type, name",
        )?
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for sql in again {
        out.push_str(&format!("{sql};\n"));
    }
    if let Some(seq) = sequence(conn, table)? {
        let name = table.replace('\'', "''");
        out.push_str(&format!(
            "-- Its AUTOINCREMENT sequence goes on from where it was, so no deleted row's id is given again.\nINSERT INTO sqlite_sequence (name, seq) SELECT '{name}', {seq} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = '{name}');\nUPDATE sqlite_sequence SET seq = {seq} WHERE name = '{name}' AND seq < {seq};\n"
        ));
    }
    Ok(Ok(out))
}

/// `table`'s `AUTOINCREMENT` sequence, if it has one.
fn sequence(conn: &Connection, table: &str) -> rusqlite::Result<Option<i64>> {
    let kept: Option<String> =
        conn.query_row("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'", [], |r| r.get(0)).optional()?;
    if kept.is_none() {
        return Ok(None);
    }
    conn.query_row("SELECT seq FROM sqlite_sequence WHERE name = ?1", [table], |r| r.get(0)).optional()
}

/// `create` (a `CREATE TABLE` as SQLite keeps it) named `name`, with `columns` declared BLOB and
/// everything else as written: constraints, foreign keys, `WITHOUT ROWID`. `Err` where the
/// statement does not parse, lacks a column, or has a `CHECK`, `DEFAULT` or generated column that
/// reads one (it was written for the text form).
fn with_blob_columns(create: &str, name: &str, columns: &[&str]) -> Result<String, String> {
    use sqlparser::ast::{ColumnOption, DataType, Ident, ObjectName, Statement};
    let dialect = sqlparser::dialect::SQLiteDialect {};
    let mut statements = sqlparser::parser::Parser::parse_sql(&dialect, create)
        .map_err(|e| format!("its CREATE TABLE is not one pkbench can rewrite ({e})"))?;
    let [Statement::CreateTable(table)] = statements.as_mut_slice() else {
        return Err("its CREATE TABLE is not one pkbench can rewrite".into());
    };
    // A converted column named as a word of `text` (an identifier, quoted or not).
    let mentions = |text: String| {
        let words: Vec<&str> = text.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).collect();
        columns.iter().find(|c| words.iter().any(|w| w.eq_ignore_ascii_case(c))).map(|c| c.to_string())
    };
    for constraint in &table.constraints {
        if let sqlparser::ast::TableConstraint::Check(check) = constraint
            && let Some(c) = mentions(check.to_string())
        {
            return Err(format!("a CHECK reads {} as text", quote(&c)));
        }
    }
    for def in &table.columns {
        for option in &def.options {
            let reads = match &option.option {
                ColumnOption::Check(e) => Some(e.to_string()),
                ColumnOption::Generated { generation_expr: Some(e), .. } => Some(e.to_string()),
                ColumnOption::Default(e)
                    if columns.iter().any(|c| def.name.value.eq_ignore_ascii_case(c))
                        && !e.to_string().eq_ignore_ascii_case("NULL") =>
                {
                    return Err(format!("{} has a DEFAULT ({e}) that writes the text form", quote(&def.name.value)));
                }
                _ => None,
            };
            if let Some(c) = reads.and_then(&mentions) {
                return Err(format!("a CHECK or generated column reads {} as text", quote(&c)));
            }
        }
    }
    for column in columns {
        let def = table
            .columns
            .iter_mut()
            .find(|d| d.name.value.eq_ignore_ascii_case(column))
            .ok_or_else(|| format!("it has no column {}", quote(column)))?;
        def.data_type = DataType::Blob(None);
    }
    table.name = ObjectName::from(vec![Ident::with_quote('"', name)]);
    Ok(table.to_string())
}
