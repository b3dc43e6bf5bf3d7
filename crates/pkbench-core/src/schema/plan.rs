//! What a `run --schema` does with each table of the file: which tables it fills, in which
//! order, and where every column's values come from.
//!
//! * The key table's key is each strategy's key; it gets the run's rows.
//! * Its ancestors (the tables it references, and theirs) are filled first with
//!   `--parent-rows` rows each; their own keys are row numbers.
//! * Its children (the tables referencing it) get rows beside each batch, their foreign key
//!   holding a parent's key.
//! * Any other table of the file is not needed, and listed as such.

use super::model::{Schema, Table};
use crate::Error;
use crate::values::SqlType;

/// The tables a schema run fills, in the order their rows go in.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The tables filled: ancestors (parents first), then the key table, then its children.
    pub fills: Vec<Fill>,
    /// Position of the key table in `fills`.
    pub key: usize,
    /// Tables of the file the run does not need.
    pub unused: Vec<String>,
    /// The engine whose syntax the file was read in ([`Schema::dialect`]).
    pub dialect: Option<crate::engine_kind::EngineKind>,
}

/// One table the run fills.
#[derive(Clone, Debug, PartialEq)]
pub struct Fill {
    /// The table as parsed.
    pub table: Table,
    /// Why it is filled.
    pub role: Role,
    /// Where each column's values come from, in column order.
    pub sources: Vec<Source>,
    /// Whether it maps key rows to other parents: a child whose primary key is made of its
    /// foreign keys only (`playlist_track (playlist_id, track_id)`). Each key row's children
    /// then take distinct other parents, so the pairs stay unique.
    pub mapping: bool,
}

/// Why a table is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The key table references it (directly or through another parent).
    Ancestor,
    /// The table whose key each strategy replaces.
    Key,
    /// It references the key table.
    Child,
}

/// Where a column's values come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    /// The strategy's key (the key table's key column).
    Key,
    /// The row's number in its table, as the column's type (a non-key table's own key).
    Sequence(SqlType),
    /// A key of filled table `fills[n]` (a foreign key).
    Parent(usize),
    /// Always NULL (a nullable foreign key to its own table).
    Null,
    /// The engine computes it (a generated column): never inserted.
    Computed,
    /// A generated value.
    Value(SqlType),
}

impl Plan {
    /// Plans a run of `schema` whose key table is `key_table`.
    pub fn new(schema: &Schema, key_table: &str) -> Result<Plan, Error> {
        let key = schema.key_table(Some(key_table))?;
        schema.check_types()?;
        let mut order: Vec<(&Table, Role)> = Vec::new();
        ancestors(schema, key, &mut order, &mut Vec::new())?;
        order.push((key, Role::Key));
        for t in &schema.tables {
            let child = !same(&t.name, &key.name) && t.foreign_keys.iter().any(|fk| same(&fk.table, &key.name));
            if child && !order.iter().any(|(o, _)| same(&o.name, &t.name)) {
                // A child's other parents come before it.
                ancestors(schema, t, &mut order, &mut Vec::new())?;
                order.push((t, Role::Child));
            }
        }
        let mut fills: Vec<Fill> = Vec::new();
        let tables: Vec<&Table> = order.iter().map(|(t, _)| *t).collect();
        for (table, role) in order {
            let sources = sources(table, role, &tables)?;
            let mapping = role == Role::Child && !table.primary_key.is_empty() && {
                let in_key = |c: &str| table.primary_key.iter().any(|k| same(k, c));
                let key_fill = fills.iter().position(|f| f.role == Role::Key);
                table
                    .columns
                    .iter()
                    .zip(&sources)
                    .filter(|(c, _)| in_key(&c.name))
                    .all(|(_, s)| matches!(s, Source::Parent(_)))
                    && sources.iter().any(|s| matches!(s, Source::Parent(p) if Some(*p) == key_fill))
            };
            fills.push(Fill { table: table.clone(), role, sources, mapping });
        }
        let key = fills.iter().position(|f| f.role == Role::Key).unwrap_or_default();
        let unused = schema
            .tables
            .iter()
            .filter(|t| !fills.iter().any(|f| same(&f.table.name, &t.name)))
            .map(|t| t.name.clone())
            .collect();
        Ok(Plan { fills, key, unused, dialect: schema.dialect })
    }

    /// The tables filled, alone, in fill order: what the run creates.
    pub fn schema(&self) -> Schema {
        Schema {
            tables: self.fills.iter().map(|f| f.table.clone()).collect(),
            skipped: Vec::new(),
            dialect: self.dialect,
        }
    }

    /// The key table.
    pub fn key_table(&self) -> &Table {
        &self.fills[self.key].table
    }

    /// Positions of the child tables in `fills`.
    pub fn children(&self) -> impl Iterator<Item = usize> + '_ {
        self.fills.iter().enumerate().filter(|(_, f)| f.role == Role::Child).map(|(i, _)| i)
    }

    /// Positions of the ancestor tables in `fills`, parents first.
    pub fn ancestors(&self) -> impl Iterator<Item = usize> + '_ {
        self.fills.iter().enumerate().filter(|(_, f)| f.role == Role::Ancestor).map(|(i, _)| i)
    }
}

fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Adds the tables `table` references (and theirs), parents first, to `order`.
fn ancestors<'a>(
    schema: &'a Schema,
    table: &'a Table,
    order: &mut Vec<(&'a Table, Role)>,
    path: &mut Vec<&'a str>,
) -> Result<(), Error> {
    path.push(&table.name);
    for fk in &table.foreign_keys {
        if same(&fk.table, &table.name) || order.iter().any(|(t, _)| same(&t.name, &fk.table)) {
            continue;
        }
        let Some(parent) = schema.table(&fk.table) else { continue };
        // A cycle among the referenced tables: the table on the path is filled after this
        // one, which references rows it will hold (the constraint is made once both are full).
        if path[1..].iter().any(|p| same(p, &parent.name)) {
            continue;
        }
        if path.iter().any(|p| same(p, &parent.name)) {
            return Err(Error::InvalidInput(format!(
                "line {}: the foreign keys of {} reference each other in a cycle: pkbench fills referenced tables first; drop one of the foreign keys from the file",
                fk.line,
                path.join(", ")
            )));
        }
        ancestors(schema, parent, order, path)?;
        order.push((parent, Role::Ancestor));
    }
    path.pop();
    Ok(())
}

/// Where each of `table`'s columns gets its values, given the tables filled before it.
/// `order` lists every table the run fills, in fill order. A foreign key may reference a table
/// filled later (a cycle among the referenced tables).
fn sources(table: &Table, role: Role, order: &[&Table]) -> Result<Vec<Source>, Error> {
    let mut out = Vec::with_capacity(table.columns.len());
    let mut sequence_placed = false;
    for c in &table.columns {
        if c.generated {
            out.push(Source::Computed);
            continue;
        }
        let ty = c.sql_type.expect("check_types passed");
        let fk = table.foreign_keys.iter().find(|fk| fk.columns.iter().any(|x| same(x, &c.name)));
        let in_key = table.primary_key.iter().any(|k| same(k, &c.name));
        let source = if let Some(fk) = fk {
            if fk.columns.len() > 1 {
                return Err(Error::InvalidInput(format!(
                    "line {}: {}'s foreign key ({}) has several columns: pkbench fills one-column foreign keys; leave it out of the file",
                    fk.line,
                    table.name,
                    fk.columns.join(", ")
                )));
            }
            if same(&fk.table, &table.name) {
                if !c.nullable {
                    return Err(Error::InvalidInput(format!(
                        "line {}: {}.{} references its own table and is NOT NULL: pkbench leaves such a column NULL; make it nullable",
                        c.line, table.name, c.name
                    )));
                }
                Source::Null
            } else {
                let parent = order.iter().position(|t| same(&t.name, &fk.table));
                let Some(parent) = parent else {
                    // A parent the run does not fill (a child's grandparent through the key
                    // table is filled; anything else was skipped).
                    return Err(Error::InvalidInput(format!(
                        "line {}: {}.{} references {}, which this run does not fill: choose the key table with --table",
                        fk.line, table.name, c.name, fk.table
                    )));
                };
                let p = order[parent];
                if !fk.referred.is_empty() && !fk.referred.iter().all(|r| p.primary_key.iter().any(|k| same(k, r))) {
                    return Err(Error::InvalidInput(format!(
                        "line {}: {}.{} references {}.{}, which is not its primary key: pkbench fills foreign keys with their parents' keys",
                        fk.line,
                        table.name,
                        c.name,
                        p.name,
                        fk.referred.join(", ")
                    )));
                }
                Source::Parent(parent)
            }
        } else if role == Role::Key && in_key {
            Source::Key
        } else if in_key && !sequence_placed {
            sequence_placed = true;
            sequence(table, c.name.as_str(), c.line, ty)?
        } else {
            Source::Value(ty)
        };
        out.push(source);
    }
    // A child keyed by its parents alone maps key rows to other parents ([`Fill::mapping`]).
    let maps_key_rows = role == Role::Child
        && table
            .primary_key
            .iter()
            .all(|k| table.columns.iter().zip(&out).any(|(c, s)| same(&c.name, k) && matches!(s, Source::Parent(_))));
    let unique_key = role == Role::Key || sequence_placed || table.primary_key.is_empty() || maps_key_rows;
    if !unique_key {
        return Err(Error::InvalidInput(format!(
            "line {}: {}'s primary key ({}) is made of foreign keys only: pkbench cannot make its rows unique; leave the table out of the file",
            table.line,
            table.name,
            table.primary_key.join(", ")
        )));
    }
    Ok(out)
}

/// A row-number key for a column of type `ty`, or why there is none.
fn sequence(table: &Table, column: &str, line: u64, ty: SqlType) -> Result<Source, Error> {
    match ty {
        SqlType::Integer(_)
        | SqlType::Uuid
        | SqlType::Text { .. }
        | SqlType::Binary { .. }
        | SqlType::Date
        | SqlType::Timestamp => Ok(Source::Sequence(ty)),
        _ => Err(Error::InvalidInput(format!(
            "line {line}: {}.{column} is a key of type {ty:?}: pkbench numbers the rows of a parent or child table with an integer, text, binary, uuid, date or timestamp key; change its type in the file",
            table.name
        ))),
    }
}
