//! Reading a schema file: the tokenizer splits it into statements at top-level semicolons (dollar
//! quotes and strings stay whole), the statements pkbench needs — `CREATE TABLE`,
//! `CREATE [UNIQUE] INDEX`, `ALTER TABLE … ADD CONSTRAINT` — are parsed, the rest listed as
//! skipped, so a whole dump (functions, triggers, `SET` lines) works as given.

use super::comments;
use super::model::{Column, ForeignKey, Index, Schema, Skipped, Table};
use super::types::sql_type;
use crate::Error;
use crate::engine_kind::EngineKind;
use sqlparser::ast::{
    AlterTable, AlterTableOperation, ColumnOption, CreateIndex, CreateTable, ObjectName, Statement, TableConstraint,
};
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Word};

/// Parses `sql` in `engine`'s syntax (`None`: a generic dialect that reads most of each). A
/// file that does not parse there but does in the other server's syntax says which `--engine`
/// it is written for.
pub fn parse(sql: &str, engine: Option<EngineKind>) -> Result<Schema, Error> {
    let error = match parse_as(sql, engine) {
        Err(Error::InvalidInput(message)) => message,
        other => return other,
    };
    let other = match engine {
        Some(EngineKind::Postgres | EngineKind::PostgresFdw) => Some(EngineKind::MariaDb),
        Some(EngineKind::MariaDb | EngineKind::Spider) => Some(EngineKind::Postgres),
        Some(EngineKind::Sqlite) | None => None,
    };
    Err(Error::InvalidInput(match other {
        Some(o) if parse_as(sql, Some(o)).is_ok() => {
            format!("{error}; the file is written in {} syntax: give --engine {}", o.label(), o.name())
        }
        _ => error,
    }))
}

/// The server whose dump `sql` looks like, when it says so: `mysqldump`'s and `pg_dump`'s
/// headers, backquoted names, `ENGINE=`, `AUTO_INCREMENT`; `SERIAL` and `::` casts.
pub fn detect_engine(sql: &str) -> Option<EngineKind> {
    // The first MiB says it; cut at a character boundary.
    let end = (0..=sql.len().min(1 << 20)).rev().find(|&i| sql.is_char_boundary(i)).unwrap_or(0);
    let head = &sql[..end];
    let upper = head.to_ascii_uppercase();
    let mysql =
        ["-- MYSQL DUMP", "-- MARIADB DUMP", "ENGINE=", "AUTO_INCREMENT", "/*!40101"].iter().any(|m| upper.contains(m))
            || head.contains('`');
    let postgres =
        ["-- POSTGRESQL DATABASE DUMP", "SERIAL", "SET SEARCH_PATH", "OWNER TO"].iter().any(|m| upper.contains(m))
            || head.contains("::");
    match (mysql, postgres) {
        (true, false) => Some(EngineKind::MariaDb),
        (false, true) => Some(EngineKind::Postgres),
        _ => None,
    }
}

/// [`parse`] in one syntax.
fn parse_as(sql: &str, engine: Option<EngineKind>) -> Result<Schema, Error> {
    let dialect: Box<dyn Dialect> = match engine {
        Some(EngineKind::Sqlite) => Box::new(SQLiteDialect {}),
        Some(EngineKind::Postgres | EngineKind::PostgresFdw) => Box::new(PostgreSqlDialect {}),
        Some(EngineKind::MariaDb | EngineKind::Spider) => Box::new(MySqlDialect {}),
        None => Box::new(GenericDialect {}),
    };
    let tokens = Tokenizer::new(dialect.as_ref(), sql)
        .tokenize_with_location()
        .map_err(|e| Error::InvalidInput(format!("the schema file does not read as SQL: {e}")))?;
    let mut schema = Schema::default();
    for statement in statements(tokens) {
        let line = statement.first().map_or(0, |t| t.span.start.line);
        let words = leading_words(&statement);
        let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
        let wanted = matches!(upper.as_slice(), [a, b, ..] if a == "CREATE" && (b == "TABLE" || b == "INDEX" || b == "UNIQUE"))
            || matches!(upper.as_slice(), [a, b, ..] if a == "ALTER" && b == "TABLE");
        if !wanted {
            schema.skipped.push(Skipped { what: words.iter().take(2).cloned().collect::<Vec<_>>().join(" "), line });
            continue;
        }
        let comments = comments::trailing(&statement);
        let parsed =
            Parser::new(dialect.as_ref()).with_tokens_with_locations(statement).parse_statement().map_err(|e| {
                // The parser quotes the token it found, which may be a line break: keep one line.
                let e = e.to_string().replace('\r', "\\r").replace('\n', "\\n");
                Error::InvalidInput(format!("line {line}: the statement does not parse: {e}"))
            })?;
        add(&mut schema, parsed, line, &comments)?;
    }
    Ok(schema)
}

/// The file's statements: tokens between top-level semicolons, without comments or blanks.
fn statements(tokens: Vec<TokenWithSpan>) -> Vec<Vec<TokenWithSpan>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    for t in tokens {
        match &t.token {
            Token::SemiColon => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            Token::Whitespace(_) if current.is_empty() => {}
            _ => current.push(t),
        }
    }
    if current.iter().any(|t| !matches!(t.token, Token::Whitespace(_))) {
        out.push(current);
    }
    out
}

/// The statement's first words, as written (`CREATE`, `TABLE`).
fn leading_words(tokens: &[TokenWithSpan]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .take(4)
        .map(|t| match &t.token {
            Token::Word(Word { value, .. }) => value.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The last part of a possibly qualified name, unquoted.
fn last(name: &ObjectName) -> String {
    name.0.last().map(|p| p.to_string().trim_matches(['"', '`', '[', ']']).to_string()).unwrap_or_default()
}

fn add(schema: &mut Schema, statement: Statement, line: u64, comments: &[(Location, String)]) -> Result<(), Error> {
    match statement {
        Statement::CreateTable(create) => schema.tables.push(table(create, line, comments)),
        Statement::CreateIndex(index) => {
            let CreateIndex { name, table_name, columns, unique, .. } = index;
            let table = last(&table_name);
            let t = schema.tables.iter_mut().find(|t| t.name.eq_ignore_ascii_case(&table)).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "line {line}: CREATE INDEX on table {table}, which the file does not create before it"
                ))
            })?;
            let columns =
                columns.iter().map(|c| c.column.expr.to_string().trim_matches(['"', '`']).to_string()).collect();
            t.indexes.push(Index { name: name.as_ref().map(last), columns, unique, line });
        }
        Statement::AlterTable(AlterTable { name, operations, .. }) => {
            let table = last(&name);
            let t = schema.tables.iter_mut().find(|t| t.name.eq_ignore_ascii_case(&table)).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "line {line}: ALTER TABLE {table}, which the file does not create before it"
                ))
            })?;
            for op in operations {
                if let AlterTableOperation::AddConstraint { constraint, .. } = op {
                    constrain(t, constraint, line);
                }
            }
        }
        other => schema
            .skipped
            .push(Skipped { what: other.to_string().split_whitespace().take(2).collect::<Vec<_>>().join(" "), line }),
    }
    Ok(())
}

/// The table `create` makes; `comments` are the `pkbench:` comments trailing its definitions.
fn table(create: CreateTable, line: u64, comments: &[(Location, String)]) -> Table {
    let mut t = Table {
        name: last(&create.name),
        columns: Vec::new(),
        primary_key: Vec::new(),
        indexes: Vec::new(),
        foreign_keys: Vec::new(),
        line,
    };
    for c in &create.columns {
        let name = c.name.value.clone();
        let col_line = c.name.span.start.line.max(line);
        let mut column = Column {
            name: name.clone(),
            declared: c.data_type.to_string(),
            sql_type: sql_type(&c.data_type),
            nullable: true,
            comment: None,
            line: col_line,
        };
        for option in &c.options {
            match &option.option {
                ColumnOption::NotNull => column.nullable = false,
                ColumnOption::PrimaryKey(_) => {
                    column.nullable = false;
                    t.primary_key = vec![name.clone()];
                }
                ColumnOption::Unique(_) => {
                    t.indexes.push(Index { name: None, columns: vec![name.clone()], unique: true, line: col_line })
                }
                ColumnOption::ForeignKey(fk) => t.foreign_keys.push(ForeignKey {
                    columns: vec![name.clone()],
                    table: last(&fk.foreign_table),
                    referred: fk.referred_columns.iter().map(|c| c.value.clone()).collect(),
                    line: col_line,
                }),
                ColumnOption::Comment(text) => column.comment = Some(text.clone()),
                _ => {}
            }
        }
        // A trailing `-- pkbench:` comment, unless a `COMMENT 'pkbench: …'` already gives one.
        let trailing = comments.iter().find(|(at, _)| *at == c.name.span.start).map(|(_, text)| text);
        if let Some(text) = trailing
            && !column.comment.as_deref().is_some_and(|c| c.trim_start().starts_with("pkbench:"))
        {
            column.comment = Some(text.clone());
        }
        t.columns.push(column);
    }
    for constraint in create.constraints {
        constrain(&mut t, constraint, line);
    }
    t
}

fn constrain(t: &mut Table, constraint: TableConstraint, line: u64) {
    let names = |cols: &[sqlparser::ast::IndexColumn]| -> Vec<String> {
        cols.iter().map(|c| c.column.expr.to_string().trim_matches(['"', '`']).to_string()).collect()
    };
    match constraint {
        TableConstraint::PrimaryKey(pk) => {
            t.primary_key = names(&pk.columns);
            for c in &t.primary_key {
                if let Some(col) = t.columns.iter_mut().find(|x| x.name.eq_ignore_ascii_case(c)) {
                    col.nullable = false;
                }
            }
        }
        TableConstraint::Unique(u) => {
            // MySQL names the index after KEY (`UNIQUE KEY rental_date (…)`), others after CONSTRAINT.
            let name = u.name.or(u.index_name).map(|n| n.value);
            t.indexes.push(Index { name, columns: names(&u.columns), unique: true, line })
        }
        TableConstraint::Index(i) => {
            t.indexes.push(Index { name: i.name.map(|n| n.value), columns: names(&i.columns), unique: false, line })
        }
        TableConstraint::ForeignKey(fk) => t.foreign_keys.push(ForeignKey {
            columns: fk.columns.iter().map(|c| c.value.clone()).collect(),
            table: last(&fk.foreign_table),
            referred: fk.referred_columns.iter().map(|c| c.value.clone()).collect(),
            line,
        }),
        _ => {}
    }
}
