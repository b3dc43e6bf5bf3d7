//! What pkbench keeps of a schema file: tables, their columns, keys, indexes and foreign keys,
//! each with the line it came from.

use crate::Error;
use crate::engine_kind::EngineKind;
use crate::values::SqlType;

/// A parsed schema file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// The tables, in file order.
    pub tables: Vec<Table>,
    /// Statements read past, with their lines.
    pub skipped: Vec<Skipped>,
    /// The engine whose syntax the file was read in (`None`: a generic reading). Rendered for an
    /// engine of the same family, every definition is kept as written.
    pub dialect: Option<EngineKind>,
}

/// A statement pkbench does not need, read past.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its first words (`SET`, `CREATE VIEW`, `CREATE FUNCTION`, …).
    pub what: String,
    /// The line it starts on.
    pub line: u64,
}

/// One table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Its name, unqualified (a schema or database prefix is dropped).
    pub name: String,
    /// Its columns, in order.
    pub columns: Vec<Column>,
    /// The primary key's columns (empty: none).
    pub primary_key: Vec<String>,
    /// Secondary indexes, including UNIQUE constraints.
    pub indexes: Vec<Index>,
    /// Foreign keys.
    pub foreign_keys: Vec<ForeignKey>,
    /// The primary key constraint's name, where the file gives one.
    pub primary_key_name: Option<String>,
    /// Table-level `CHECK` constraints, as written (`CONSTRAINT c CHECK (…)`).
    pub checks: Vec<String>,
    /// Table options kept on the same engine, as written (MySQL's `DEFAULT CHARSET=…`,
    /// `COLLATE=…`, `COMMENT=…`, `ROW_FORMAT=…`); the storage engine and `AUTO_INCREMENT=` are
    /// pkbench's.
    pub options: Vec<String>,
    /// The storage engine the file names (`ENGINE=…`), if any.
    pub storage_engine: Option<String>,
    /// The line its `CREATE TABLE` starts on.
    pub line: u64,
}

/// One column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// The type as written (`varchar(40)`, `jsonb`).
    pub declared: String,
    /// What pkbench generates for it, if it can.
    pub sql_type: Option<SqlType>,
    /// Whether it may be NULL.
    pub nullable: bool,
    /// Its options as written, in order (`NOT NULL`, `DEFAULT …`, `ON UPDATE …`,
    /// `CHARACTER SET …`, `COLLATE …`, `CHECK (…)`, `GENERATED …`, `COMMENT '…'`), without the
    /// key, unique and reference options pkbench renders itself.
    pub options: Vec<String>,
    /// Whether the engine computes it (`GENERATED ALWAYS AS (…)`, `AS (…) VIRTUAL`): never
    /// inserted into.
    pub generated: bool,
    /// The values an `ENUM(…)` or `SET(…)` column admits, in order (empty for other types).
    pub labels: Vec<String>,
    /// Its comment, where the file gives one: MySQL `COMMENT '…'`, or a `-- pkbench: …` or
    /// `/* pkbench: … */` comment trailing its definition (kept from `pkbench:` on).
    pub comment: Option<String>,
    /// The line it is declared on.
    pub line: u64,
}

/// A secondary index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// Its name, if the file gives one.
    pub name: Option<String>,
    /// Its columns, in order.
    pub columns: Vec<String>,
    /// Its parts as written, one per column (`title(10)`, `created_at DESC`, `lower(email)`).
    pub parts: Vec<String>,
    /// Whether it is unique.
    pub unique: bool,
    /// A MySQL `FULLTEXT` or `SPATIAL` index (`None`: an ordinary one).
    pub special: Option<String>,
    /// Its access method (`USING BTREE`, `USING gin`), if the file names one.
    pub using: Option<String>,
    /// A partial index's `WHERE` condition.
    pub predicate: Option<String>,
    /// Whether the file declares it as a table constraint (`UNIQUE (…)`, `KEY k (…)`) rather than
    /// with `CREATE INDEX`.
    pub constraint: bool,
    /// The line it is declared on.
    pub line: u64,
}

/// A foreign key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForeignKey {
    /// Its constraint name, if the file gives one.
    pub name: Option<String>,
    /// The referencing columns.
    pub columns: Vec<String>,
    /// The referenced table.
    pub table: String,
    /// The referenced columns (empty: its primary key).
    pub referred: Vec<String>,
    /// Its actions as written (`ON DELETE CASCADE ON UPDATE RESTRICT`), or empty.
    pub actions: String,
    /// The line it is declared on.
    pub line: u64,
}

impl Schema {
    /// The table called `name` (case-insensitive).
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// Checks what every run needs: at least one table, and each foreign key naming a table and
    /// columns of the file.
    pub fn check(&self) -> Result<(), Error> {
        if self.tables.is_empty() {
            return Err(Error::InvalidInput(
                "the schema file has no CREATE TABLE: give the table's DDL (pg_dump --schema-only, mysqldump --no-data or sqlite3 .schema)".into(),
            ));
        }
        for t in &self.tables {
            for fk in &t.foreign_keys {
                let Some(parent) = self.table(&fk.table) else {
                    return Err(Error::InvalidInput(format!(
                        "line {}: table {}'s foreign key ({}) references table {}, which the file does not create: add its CREATE TABLE",
                        fk.line,
                        t.name,
                        fk.columns.join(", "),
                        fk.table
                    )));
                };
                let referred = if fk.referred.is_empty() { &parent.primary_key } else { &fk.referred };
                if let Some(missing) = referred.iter().find(|c| parent.column(c).is_none()) {
                    return Err(Error::InvalidInput(format!(
                        "line {}: table {}'s foreign key references {}.{missing}, which has no such column",
                        fk.line, t.name, parent.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// The table whose key pkbench replaces: `wanted`, else the table the others' foreign keys
    /// reference most, else the only table. Its key must be one column of a type pkbench can
    /// generate.
    pub fn key_table(&self, wanted: Option<&str>) -> Result<&Table, Error> {
        self.check()?;
        let table = match wanted {
            Some(name) => self.table(name).ok_or_else(|| {
                let names: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
                Error::InvalidInput(format!(
                    "--table {name} is not in the schema file: use one of {}",
                    names.join(", ")
                ))
            })?,
            None => self.most_referenced()?,
        };
        match table.primary_key.as_slice() {
            [] => Err(Error::InvalidInput(format!(
                "line {}: table {} has no primary key: declare one (pkbench replaces it with each strategy's key)",
                table.line, table.name
            ))),
            [_] => Ok(table),
            more => Err(Error::InvalidInput(format!(
                "line {}: table {}'s primary key is composite ({}): pkbench replaces a one-column key; choose another table with --table",
                table.line,
                table.name,
                more.join(", ")
            ))),
        }
    }

    fn most_referenced(&self) -> Result<&Table, Error> {
        if let [only] = self.tables.as_slice() {
            return Ok(only);
        }
        let count = |t: &Table| {
            self.tables.iter().flat_map(|o| &o.foreign_keys).filter(|fk| fk.table.eq_ignore_ascii_case(&t.name)).count()
        };
        let best = self.tables.iter().map(count).max().unwrap_or(0);
        let top: Vec<&Table> = self.tables.iter().filter(|t| count(t) == best).collect();
        match top.as_slice() {
            [one] if best > 0 => Ok(one),
            _ => {
                let names: Vec<&str> = top.iter().map(|t| t.name.as_str()).collect();
                Err(Error::InvalidInput(format!(
                    "no one table is referenced most by the others' foreign keys ({}): choose the table whose key to replace with --table",
                    names.join(", ")
                )))
            }
        }
    }

    /// Every column of every table that pkbench cannot generate values for, refused in one line
    /// (the first one found).
    pub fn check_types(&self) -> Result<(), Error> {
        for t in &self.tables {
            if let Some(c) = t.columns.iter().find(|c| c.sql_type.is_none() && !c.generated) {
                return Err(Error::InvalidInput(format!(
                    "line {}: pkbench cannot generate values for {}.{} of type {}: change its type in the file (e.g. to text) or leave the column out",
                    c.line, t.name, c.name, c.declared
                )));
            }
        }
        Ok(())
    }
}

impl Table {
    /// The column called `name` (case-insensitive).
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name))
    }
}
