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
    AlterTable, AlterTableOperation, ColumnOption, CreateIndex, CreateTable, CreateTableOptions, DataType, EnumMember,
    Expr, ForeignKeyConstraint, IndexColumn, ObjectName, Statement, TableConstraint,
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
        Some(EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks) => Some(EngineKind::Postgres),
        Some(EngineKind::Sqlite) | None => None,
    };
    Err(Error::InvalidInput(match other {
        Some(o) if parse_as(sql, Some(o)).is_ok() => {
            format!("{error}; the file is written in {} syntax: give --engine {}", o.label(), o.name())
        }
        _ => error,
    }))
}

/// The engine whose dump `sql` looks like, when it says so: SQLite's `AUTOINCREMENT`, `WITHOUT
/// ROWID` and `PRAGMA` first (its type names are free words, `INTEGER UNSIGNED` among them);
/// then `mysqldump`'s and `pg_dump`'s headers, backquoted names, `ENGINE=`, `AUTO_INCREMENT`,
/// `UNSIGNED`, `ENUM(…)`; `SERIAL`, `::` casts and the types only PostgreSQL has
/// (`timestamptz`, `jsonb`, `bytea`).
pub fn detect_engine(sql: &str) -> Option<EngineKind> {
    // The first MiB says it; cut at a character boundary.
    let end = (0..=sql.len().min(1 << 20)).rev().find(|&i| sql.is_char_boundary(i)).unwrap_or(0);
    let head = &sql[..end];
    let upper = head.to_ascii_uppercase();
    if [" AUTOINCREMENT", "WITHOUT ROWID", "PRAGMA "].iter().any(|m| upper.contains(m)) {
        return Some(EngineKind::Sqlite);
    }
    let mysql =
        ["-- MYSQL DUMP", "-- MARIADB DUMP", "ENGINE=", "AUTO_INCREMENT", "/*!40101", " UNSIGNED", " ENUM(", " ENUM ("]
            .iter()
            .any(|m| upper.contains(m))
            || head.contains('`');
    let postgres = [
        "-- POSTGRESQL DATABASE DUMP",
        "SERIAL",
        "SET SEARCH_PATH",
        "OWNER TO",
        " TIMESTAMPTZ",
        " JSONB",
        " BYTEA",
        " TIMESTAMP WITH TIME ZONE",
    ]
    .iter()
    .any(|m| upper.contains(m))
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
        Some(EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks) => Box::new(MySqlDialect {}),
        None => Box::new(GenericDialect {}),
    };
    let tokens = Tokenizer::new(dialect.as_ref(), sql)
        .tokenize_with_location()
        .map_err(|e| Error::InvalidInput(format!("the schema file does not read as SQL: {e}")))?;
    // Written for the engine whose markers the file carries, else the one it is read as.
    let mut schema = Schema { dialect: detect_engine(sql).or(engine), ..Schema::default() };
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
        add(&mut schema, parsed, line, &comments, engine)?;
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
    match name.0.last().and_then(|p| p.as_ident()) {
        Some(ident) => ident.value.clone(),
        None => name.0.last().map(|p| p.to_string().trim_matches(['"', '`', '[', ']']).to_string()).unwrap_or_default(),
    }
}

/// The column an index part names: the identifier itself (unquoted); MySQL's prefix part
/// `title(10)` names `title`; an expression part is its text.
fn part_column(expr: &Expr, dialect: Option<EngineKind>) -> String {
    match expr {
        Expr::Identifier(ident) => ident.value.clone(),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.clone()).unwrap_or_default(),
        Expr::Function(f) if mysql_syntax(dialect) => last(&f.name),
        other => other.to_string(),
    }
}

/// Whether a file read as `dialect` is in MySQL's syntax.
fn mysql_syntax(dialect: Option<EngineKind>) -> bool {
    match dialect {
        Some(EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks) => true,
        Some(EngineKind::Sqlite | EngineKind::Postgres | EngineKind::PostgresFdw) | None => false,
    }
}

/// An index's columns and its parts as written.
fn parts(columns: &[IndexColumn], dialect: Option<EngineKind>) -> (Vec<String>, Vec<String>) {
    columns.iter().map(|c| (part_column(&c.column.expr, dialect), c.to_string())).unzip()
}

fn add(
    schema: &mut Schema,
    statement: Statement,
    line: u64,
    comments: &[(Location, String)],
    dialect: Option<EngineKind>,
) -> Result<(), Error> {
    match statement {
        Statement::CreateTable(create) => schema.tables.push(table(create, line, comments, dialect)),
        Statement::CreateIndex(index) => {
            let CreateIndex { name, table_name, columns, unique, using, predicate, .. } = index;
            let table = last(&table_name);
            let t = schema.tables.iter_mut().find(|t| t.name.eq_ignore_ascii_case(&table)).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "line {line}: CREATE INDEX on table {table}, which the file does not create before it"
                ))
            })?;
            let (columns, parts) = parts(&columns, dialect);
            t.indexes.push(Index {
                name: name.as_ref().map(last),
                columns,
                parts,
                unique,
                using: using.map(|u| u.to_string()),
                predicate: predicate.map(|p| p.to_string()),
                line,
                ..Index::default()
            });
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
                    constrain(t, constraint, line, dialect);
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
fn table(create: CreateTable, line: u64, comments: &[(Location, String)], dialect: Option<EngineKind>) -> Table {
    let mut t = Table { name: last(&create.name), line, ..Table::default() };
    table_options(&mut t, &create.table_options);
    for c in &create.columns {
        let name = c.name.value.clone();
        let col_line = c.name.span.start.line.max(line);
        let mut column = Column {
            name: name.clone(),
            declared: c.data_type.to_string(),
            sql_type: sql_type(&c.data_type),
            nullable: true,
            labels: labels(&c.data_type),
            line: col_line,
            ..Column::default()
        };
        for option in &c.options {
            match &option.option {
                ColumnOption::PrimaryKey(_) => {
                    column.nullable = false;
                    t.primary_key = vec![name.clone()];
                    t.primary_key_name = option.name.as_ref().map(|n| n.value.clone());
                }
                ColumnOption::Unique(_) => t.indexes.push(Index {
                    name: option.name.as_ref().map(|n| n.value.clone()),
                    columns: vec![name.clone()],
                    parts: vec![c.name.to_string()],
                    unique: true,
                    constraint: true,
                    line: col_line,
                    ..Index::default()
                }),
                ColumnOption::ForeignKey(fk) => t.foreign_keys.push(ForeignKey {
                    name: option.name.as_ref().map(|n| n.value.clone()),
                    columns: vec![name.clone()],
                    table: last(&fk.foreign_table),
                    referred: fk.referred_columns.iter().map(|c| c.value.clone()).collect(),
                    actions: actions(fk),
                    line: col_line,
                }),
                // A key the engine assigns belongs to the key column, which each strategy replaces.
                ColumnOption::DialectSpecific(tokens)
                    if tokens.iter().any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
                {
                    column.options.push(option.to_string());
                }
                other => {
                    match other {
                        ColumnOption::NotNull => column.nullable = false,
                        ColumnOption::Comment(text) => column.comment = Some(text.clone()),
                        ColumnOption::Generated { generation_expr: Some(_), .. } => column.generated = true,
                        _ => {}
                    }
                    column.options.push(option.to_string());
                }
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
        constrain(&mut t, constraint, line, dialect);
    }
    t
}

/// The values an `ENUM` or `SET` type admits.
fn labels(ty: &DataType) -> Vec<String> {
    match ty {
        DataType::Enum(members, _) => members
            .iter()
            .map(|m| match m {
                EnumMember::Name(name) | EnumMember::NamedValue(name, _) => name.clone(),
            })
            .collect(),
        DataType::Set(values) => values.clone(),
        _ => Vec::new(),
    }
}

/// A foreign key's `ON DELETE …`/`ON UPDATE …` actions as written.
fn actions(fk: &ForeignKeyConstraint) -> String {
    let mut out = Vec::new();
    if let Some(a) = &fk.on_delete {
        out.push(format!("ON DELETE {a}"));
    }
    if let Some(a) = &fk.on_update {
        out.push(format!("ON UPDATE {a}"));
    }
    out.join(" ")
}

/// MySQL's table options: the storage engine apart, `AUTO_INCREMENT=` dropped (a counter, not a
/// definition), the rest kept as written.
fn table_options(t: &mut Table, options: &CreateTableOptions) {
    let (CreateTableOptions::Plain(list) | CreateTableOptions::With(list) | CreateTableOptions::Options(list)) =
        options
    else {
        return;
    };
    for option in list {
        let text = option.to_string();
        let key = text.split(['=', ' ']).next().unwrap_or_default().to_ascii_uppercase();
        match key.as_str() {
            "ENGINE" => {
                t.storage_engine = Some(text.split_once('=').map_or(text.as_str(), |(_, v)| v).trim().to_string())
            }
            "AUTO_INCREMENT" => {}
            _ => t.options.push(text),
        }
    }
}

fn constrain(t: &mut Table, constraint: TableConstraint, line: u64, dialect: Option<EngineKind>) {
    match constraint {
        TableConstraint::PrimaryKey(pk) => {
            t.primary_key = parts(&pk.columns, dialect).0;
            t.primary_key_name = pk.name.map(|n| n.value);
            for c in &t.primary_key {
                if let Some(col) = t.columns.iter_mut().find(|x| x.name.eq_ignore_ascii_case(c)) {
                    col.nullable = false;
                }
            }
        }
        TableConstraint::Unique(u) => {
            // MySQL names the index after KEY (`UNIQUE KEY rental_date (…)`), others after CONSTRAINT.
            let name = u.name.or(u.index_name).map(|n| n.value);
            let (columns, parts) = parts(&u.columns, dialect);
            let using = u.index_type.map(|u| u.to_string());
            t.indexes.push(Index {
                name,
                columns,
                parts,
                unique: true,
                using,
                constraint: true,
                line,
                ..Index::default()
            })
        }
        TableConstraint::Index(i) => {
            let (columns, parts) = parts(&i.columns, dialect);
            let using = i.index_type.map(|u| u.to_string());
            t.indexes.push(Index {
                name: i.name.map(|n| n.value),
                columns,
                parts,
                using,
                constraint: true,
                line,
                ..Index::default()
            })
        }
        TableConstraint::FulltextOrSpatial(i) => {
            let (columns, parts) = parts(&i.columns, dialect);
            t.indexes.push(Index {
                name: i.opt_index_name.map(|n| n.value),
                columns,
                parts,
                special: Some(if i.fulltext { "FULLTEXT" } else { "SPATIAL" }.to_string()),
                constraint: true,
                line,
                ..Index::default()
            })
        }
        TableConstraint::ForeignKey(fk) => t.foreign_keys.push(ForeignKey {
            name: fk.name.as_ref().or(fk.index_name.as_ref()).map(|n| n.value.clone()),
            columns: fk.columns.iter().map(|c| c.value.clone()).collect(),
            table: last(&fk.foreign_table),
            referred: fk.referred_columns.iter().map(|c| c.value.clone()).collect(),
            actions: actions(&fk),
            line,
        }),
        TableConstraint::Check(check) => t.checks.push(check.to_string()),
        // `… USING INDEX name` and exclusion constraints name objects pkbench does not make.
        TableConstraint::PrimaryKeyUsingIndex(_)
        | TableConstraint::UniqueUsingIndex(_)
        | TableConstraint::Exclude(_) => {}
    }
}
