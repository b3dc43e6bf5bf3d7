//! Turns `run` flags into an engine: SQLite, or a PostgreSQL or MariaDB server (managed or at a
//! URL).

use crate::cli::{EngineArg, JournalArg, RunArgs, SyncArg};
use pkbench_core::Error;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::postgres::PostgresEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::engines::sqlite::{Journal, SqliteEngine, SqliteSettings, Synchronous};
use pkbench_core::engines::{Engine, mariadb, postgres, sqlite};
use pkbench_core::strategy::Strategy;
use std::path::{Path, PathBuf};

/// Refuses strategies the engine cannot run before any server is started.
pub fn precheck(engine: EngineArg, strategies: &[&Strategy]) -> Result<(), Error> {
    for s in strategies {
        match engine {
            EngineArg::Sqlite => sqlite::render_schema(s).map(|_| ())?,
            EngineArg::Postgres => postgres::render_schema(s, "pkbench").map(|_| ())?,
            EngineArg::Mariadb => mariadb::render_schema(s, "pkbench").map(|_| ())?,
        }
    }
    Ok(())
}

/// A validated engine choice: nothing started, no file created yet.
pub enum EnginePlan {
    /// Embedded SQLite.
    Sqlite(SqliteSettings),
    /// PostgreSQL.
    Postgres(ServerSettings),
    /// MariaDB/MySQL.
    Mariadb(ServerSettings),
}

/// Checks every engine flag of `args`; SQLite databases will live in `out_dir`.
pub fn plan(args: &RunArgs, out_dir: &Path) -> Result<EnginePlan, Error> {
    let sqlite_only = |flag: &str| {
        Error::InvalidInput(format!("{flag} applies to --engine sqlite only; remove it or use --engine sqlite"))
    };
    if args.engine == EngineArg::Sqlite {
        if args.url.is_some() || args.server_bin.is_some() {
            return Err(Error::InvalidInput(
                "--url and --server-bin apply to server engines; use --engine postgres or --engine mariadb".into(),
            ));
        }
        let settings = SqliteSettings {
            dir: out_dir.to_path_buf(),
            cache_mb: args.cache_mb,
            page_size: args.page_size.unwrap_or(4096),
            sync: match args.sync {
                SyncArg::Off => Synchronous::Off,
                SyncArg::Normal => Synchronous::Normal,
                SyncArg::Full => Synchronous::Full,
                SyncArg::Extra => Synchronous::Extra,
            },
            journal: match args.journal.unwrap_or(JournalArg::Wal) {
                JournalArg::Wal => Journal::Wal,
                JournalArg::Delete => Journal::Delete,
            },
            keep_db: args.keep_db,
        };
        settings.validate()?;
        return Ok(EnginePlan::Sqlite(settings));
    }
    for (given, flag) in
        [(args.keep_db, "--keep-db"), (args.page_size.is_some(), "--page-size"), (args.journal.is_some(), "--journal")]
    {
        if given {
            return Err(sqlite_only(flag));
        }
    }
    let postgres = args.engine == EngineArg::Postgres;
    let env = if postgres { "PKBENCH_PG_URL" } else { "PKBENCH_MYSQL_URL" };
    let url = args.url.clone().or_else(|| std::env::var(env).ok().filter(|u| !u.is_empty()));
    let managed = url.is_none();
    let target = match url {
        Some(url) => ServerTarget::External { url },
        None => ServerTarget::Managed { server_bin: args.server_bin.clone() },
    };
    let settings =
        ServerSettings { target, cache_mb: args.cache_mb, durable_commits: !matches!(args.sync, SyncArg::Off) };
    if !(1..=1 << 20).contains(&args.cache_mb) {
        return Err(Error::InvalidInput(format!("--cache-mb {} is out of range: use 1 to 1048576 MiB", args.cache_mb)));
    }
    if postgres {
        Ok(EnginePlan::Postgres(settings))
    } else {
        if managed && args.cache_mb < mariadb::MIN_POOL_MB {
            return Err(Error::InvalidInput(format!(
                "--cache-mb {} is below InnoDB's minimum buffer pool of {} MiB (with 16 KiB pages): use --cache-mb {} or more",
                args.cache_mb,
                mariadb::MIN_POOL_MB,
                mariadb::MIN_POOL_MB
            )));
        }
        Ok(EnginePlan::Mariadb(settings))
    }
}

impl EnginePlan {
    /// Opens the engine (starting a managed server if needed). Returns it and the folder its
    /// data lives in, for the environment block.
    pub fn open(self) -> Result<(Box<dyn Engine>, Option<PathBuf>), Error> {
        match self {
            EnginePlan::Sqlite(settings) => {
                let dir = settings.dir.clone();
                Ok((Box::new(SqliteEngine::new(settings)?), Some(dir)))
            }
            EnginePlan::Postgres(settings) => {
                let engine = PostgresEngine::open(&settings)?;
                let data_dir = engine.managed().map(|m| m.dir().to_path_buf());
                Ok((Box::new(engine), data_dir))
            }
            EnginePlan::Mariadb(settings) => {
                let engine = MariaDbEngine::open(&settings)?;
                let data_dir = engine.managed().map(|m| m.dir().to_path_buf());
                Ok((Box::new(engine), data_dir))
            }
        }
    }
}
