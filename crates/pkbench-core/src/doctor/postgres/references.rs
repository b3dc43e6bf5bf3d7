//! The foreign keys that hold a PostgreSQL table's key (down a chain of one-to-one tables) and
//! the key its own key copies: what the migration script needs beyond the table itself.

use super::{pg, shown};
use crate::Error;
use crate::doctor::schema::{ReferencedColumn, ReferencingColumn, follow_chain};
use postgres::Client;

/// The single-column foreign keys that hold table `oid`'s `key` (its own included; a
/// partition's copy of a partitioned table's left out), then those that hold each of their
/// columns in turn (a chain), with their definitions; each table named as doctor names tables.
pub(super) fn referencing(c: &mut Client, oid: u32, key: &str) -> Result<Vec<ReferencingColumn>, Error> {
    // Every table named with its schema in the definitions, whatever this login's search_path;
    // the setting is put back after.
    let path: String =
        c.query_one("SELECT current_setting('search_path')", &[]).map_err(pg("could not read the search_path"))?.get(0);
    c.execute("SELECT set_config('search_path', '', true)", &[]).map_err(pg("could not set the search_path"))?;
    let statement = c
        .prepare(
            "SELECT t.oid, n.nspname::text, t.relname::text, a.attname::text, NOT a.attnotnull, k.conname::text, \
             pg_get_constraintdef(k.oid) \
             FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1] \
             JOIN pg_attribute r ON r.attrelid = k.confrelid AND r.attnum = k.confkey[1] \
             WHERE k.confrelid = $1 AND k.contype = 'f' AND cardinality(k.conkey) = 1 AND k.conparentid = 0 \
               AND r.attname = $2 ORDER BY 2, 3, 4",
        )
        .map_err(pg("could not read the foreign keys referencing a table"))?;
    let out = follow_chain((oid, key.to_string()), |(parent, column)| {
        let rows = c
            .query(&statement, &[parent, column])
            .map_err(pg("could not read the foreign keys referencing a table"))?;
        Ok::<_, Error>(
            rows.iter()
                .map(|r| {
                    let fk = ReferencingColumn {
                        table: shown(r.get(1), r.get(2)),
                        column: r.get(3),
                        nullable: r.get(4),
                        constraint: r.get(5),
                        definition: Some(r.get(6)),
                        references: None,
                        attributes: None,
                    };
                    let child = (r.get::<_, u32>(0), fk.column.clone());
                    (fk, child)
                })
                .collect(),
        )
    })?;
    c.execute("SELECT set_config('search_path', $1, true)", &[&path]).map_err(pg("could not set the search_path"))?;
    Ok(out)
}

/// The key of another table that table `oid`'s `key` references through a single-column
/// foreign key (a one-to-one table).
pub(super) fn key_reference(c: &mut Client, oid: u32, key: &str) -> Result<Option<ReferencedColumn>, Error> {
    let row = c
        .query_opt(
            "SELECT n.nspname::text, t.relname::text, r.attname::text \
             FROM pg_constraint k JOIN pg_class t ON t.oid = k.confrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1] \
             JOIN pg_attribute r ON r.attrelid = k.confrelid AND r.attnum = k.confkey[1] \
             JOIN pg_index i ON i.indrelid = k.confrelid AND i.indisprimary AND i.indnatts = 1 AND i.indkey[0] = k.confkey[1] \
             WHERE k.conrelid = $1 AND k.confrelid <> $1 AND k.contype = 'f' AND cardinality(k.conkey) = 1 \
               AND k.conparentid = 0 AND a.attname = $2 ORDER BY 1, 2, 3 LIMIT 1",
            &[&oid, &key],
        )
        .map_err(pg("could not read the foreign keys of a table"))?;
    Ok(row.map(|r| ReferencedColumn { table: shown(r.get(0), r.get(1)), column: r.get(2) }))
}
