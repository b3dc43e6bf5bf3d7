//! The foreign keys that hold a MariaDB table's key (down a chain of one-to-one tables), the key
//! its own key copies, and the column attributes a `MODIFY` must repeat: what the migration
//! script needs beyond the table itself.

use super::quote;
use super::session::my;
use crate::Error;
use crate::doctor::schema::{ReferencedColumn, ReferencingColumn, follow_chain};
use mysql::Conn;
use mysql::prelude::Queryable;

/// A column's DEFAULT and COMMENT clauses as `MODIFY` must repeat them, from MariaDB's
/// `COLUMN_DEFAULT` (literals quoted, expressions as written, `NULL` for a NULL default) and
/// `COLUMN_COMMENT` (written with backslashes escaped, as the default `sql_mode` reads them).
/// Other attributes a `MODIFY` drops (a column's own CHECK, INVISIBLE) are not repeated.
pub(super) fn attributes(default: Option<&str>, comment: &str) -> Option<String> {
    let mut out = Vec::new();
    if let Some(d) = default.filter(|d| !d.eq_ignore_ascii_case("NULL")) {
        out.push(format!("DEFAULT ({d})"));
    }
    if !comment.is_empty() {
        out.push(format!("COMMENT '{}'", comment.replace('\\', "\\\\").replace('\'', "''")));
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// A table as doctor names it: with its database where `qualify` (as doctor names tables when
/// it lists more than one database) or where it is not `db`.
fn shown(schema: String, table: String, db: &str, qualify: bool) -> String {
    if qualify || schema != db { format!("{schema}.{table}") } else { table }
}

/// A referencing column: schema, table, column, IS_NULLABLE, constraint, its ON DELETE and ON
/// UPDATE rules, the column's default and comment.
type ReferencingRow = (String, String, String, String, String, String, String, Option<String>, String);

/// The single-column foreign keys that hold `db.name`'s `key` (its own included), then those
/// that hold each of their columns in turn (a chain), with their definitions (their actions from
/// `REFERENTIAL_CONSTRAINTS`).
pub(super) fn referencing(
    c: &mut Conn,
    db: &str,
    name: &str,
    key: &str,
    qualify: bool,
) -> Result<Vec<ReferencingColumn>, Error> {
    let statement = c
        .prep(
            "SELECT k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME, c.IS_NULLABLE, k.CONSTRAINT_NAME, r.DELETE_RULE, r.UPDATE_RULE, \
             c.COLUMN_DEFAULT, c.COLUMN_COMMENT \
             FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.COLUMNS c \
               ON c.TABLE_SCHEMA = k.TABLE_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND c.COLUMN_NAME = k.COLUMN_NAME \
             JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA \
               AND r.TABLE_NAME = k.TABLE_NAME AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME \
             WHERE k.REFERENCED_TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME = ? AND k.REFERENCED_COLUMN_NAME = ? \
               AND (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE o WHERE o.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA \
                    AND o.TABLE_NAME = k.TABLE_NAME AND o.CONSTRAINT_NAME = k.CONSTRAINT_NAME \
                    AND o.REFERENCED_TABLE_NAME IS NOT NULL) = 1 \
             ORDER BY 1, 2, 3",
        )
        .map_err(my("could not read the foreign keys referencing a table"))?;
    let start = (db.to_string(), name.to_string(), key.to_string());
    follow_chain(start, |(parent_db, parent, column)| {
        let rows: Vec<ReferencingRow> = c
            .exec(&statement, (parent_db, parent, column))
            .map_err(my("could not read the foreign keys referencing a table"))?;
        Ok(rows
            .into_iter()
            .map(|(schema, table, child_column, nullable, constraint, on_delete, on_update, default, comment)| {
                let definition = format!(
                    "FOREIGN KEY ({}) REFERENCES {}.{} ({}) ON DELETE {on_delete} ON UPDATE {on_update}",
                    quote(&child_column),
                    quote(parent_db),
                    quote(parent),
                    quote(column)
                );
                let fk = ReferencingColumn {
                    table: shown(schema.clone(), table.clone(), db, qualify),
                    column: child_column.clone(),
                    nullable: nullable == "YES",
                    constraint,
                    definition: Some(definition),
                    references: None,
                    attributes: attributes(default.as_deref(), &comment),
                };
                (fk, (schema, table, child_column))
            })
            .collect())
    })
}

/// The key of another table that `db.name`'s `key` references through a single-column foreign
/// key (a one-to-one table).
pub(super) fn key_reference(
    c: &mut Conn,
    db: &str,
    name: &str,
    key: &str,
    qualify: bool,
) -> Result<Option<ReferencedColumn>, Error> {
    let row: Option<(String, String, String)> = c
        .exec_first(
            "SELECT k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME \
             FROM information_schema.KEY_COLUMN_USAGE k \
             WHERE k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? AND k.COLUMN_NAME = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL \
               AND NOT (k.REFERENCED_TABLE_SCHEMA = k.TABLE_SCHEMA AND k.REFERENCED_TABLE_NAME = k.TABLE_NAME) \
               AND (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE p WHERE p.TABLE_SCHEMA = k.REFERENCED_TABLE_SCHEMA \
                    AND p.TABLE_NAME = k.REFERENCED_TABLE_NAME AND p.CONSTRAINT_NAME = 'PRIMARY') = 1 \
               AND EXISTS (SELECT 1 FROM information_schema.KEY_COLUMN_USAGE p WHERE p.TABLE_SCHEMA = k.REFERENCED_TABLE_SCHEMA \
                    AND p.TABLE_NAME = k.REFERENCED_TABLE_NAME AND p.CONSTRAINT_NAME = 'PRIMARY' \
                    AND p.COLUMN_NAME = k.REFERENCED_COLUMN_NAME) \
               AND (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE o WHERE o.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA \
                    AND o.TABLE_NAME = k.TABLE_NAME AND o.CONSTRAINT_NAME = k.CONSTRAINT_NAME \
                    AND o.REFERENCED_TABLE_NAME IS NOT NULL) = 1 \
             ORDER BY 1, 2, 3 LIMIT 1",
            (db, name, key),
        )
        .map_err(my("could not read the foreign keys of a table"))?;
    Ok(row.map(|(schema, table, column)| ReferencedColumn { table: shown(schema, table, db, qualify), column }))
}
