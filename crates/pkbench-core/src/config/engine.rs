//! A run's engine settings, checked: SQLite, or a server engine of the registry (managed or at a
//! URL). Nothing is started and no file is created until [`EnginePlan::open`].

use super::settings::RunSettings;
use crate::Error;
use crate::engines::server::{
    ExternalOptions, ManagedOptions, ServerSetting, ServerSettings, ServerTarget, StatementLimit, redact_url,
};
use crate::engines::sqlite::{Journal, SqliteSettings, Synchronous};
use crate::engines::wire::connect::{ConnectOptions, read_password_file};
use crate::engines::{Engine, EngineKind, open_server};
use crate::sharding::ShardLayout;
use crate::workloads::MemoryCap;
use std::path::{Path, PathBuf};

/// A validated engine choice: nothing started, no file created yet.
#[derive(Clone, Debug)]
pub enum EnginePlan {
    /// Embedded SQLite.
    Sqlite(SqliteSettings),
    /// A server engine.
    Server(EngineKind, ServerSettings),
}

/// Checks every engine setting of `args` for `engine`; SQLite databases will live in `out_dir`.
pub fn plan(args: &RunSettings, engine: EngineKind, out_dir: &Path) -> Result<EnginePlan, Error> {
    let sqlite_only = |flag: &str| {
        Error::InvalidInput(format!("{flag} applies to --engine sqlite only; remove it or use --engine sqlite"))
    };
    let shards = shard_layout(args, engine)?;
    let url_env = match engine {
        EngineKind::Postgres | EngineKind::MariaDb | EngineKind::MyRocks => engine.url_env(),
        EngineKind::Spider | EngineKind::PostgresFdw => {
            if args.url.is_some() {
                return Err(Error::InvalidInput(format!(
                    "--engine {} starts its head and shards itself: leave out --url",
                    engine
                )));
            }
            None
        }
        EngineKind::Sqlite => {
            refuse_without_url(args)?;
            return sqlite_plan(args, out_dir);
        }
    };
    for (given, flag) in [
        (args.keep_db.unwrap_or(false), "--keep-db"),
        (args.page_size.is_some(), "--page-size"),
        (args.journal.is_some(), "--journal"),
    ] {
        if given {
            return Err(sqlite_only(flag));
        }
    }
    let url = args.url.clone().or_else(|| url_env.and_then(|env| std::env::var(env).ok()).filter(|u| !u.is_empty()));
    let managed = url.is_none();
    let target = match url {
        Some(url) => {
            let env = url_env.unwrap_or("its URL variable");
            if args.server_settings.as_ref().is_some_and(|s| !s.is_empty()) {
                return Err(Error::InvalidInput(format!(
                    "--server-setting applies to a server pkbench starts itself; pkbench never changes your server: set it there, or leave out --url (and {env}) for a managed one"
                )));
            }
            if args.pg_version.is_some() {
                return Err(Error::InvalidInput(format!(
                    "--pg-version picks the server pkbench starts itself; with --url it is your server's: leave out --pg-version, or --url (and {env})"
                )));
            }
            if args.data_dir.is_some() {
                return Err(Error::InvalidInput(format!(
                    "--data-dir places a server pkbench starts itself; with --url the data stays on your server: leave out --data-dir, or --url (and {env})"
                )));
            }
            check_scheme(engine, &url)?;
            let statement_timeout = match (args.statement_timeout(), args.statement_timeout.is_some()) {
                (d, _) if d.is_zero() => StatementLimit::Off,
                (d, true) => StatementLimit::Given(d),
                (d, false) => StatementLimit::Default(d),
            };
            let keep_leftovers = args.keep_leftovers.unwrap_or(false);
            ServerTarget::External {
                url,
                options: ExternalOptions { connect: connect_options(args)?, statement_timeout, keep_leftovers },
            }
        }
        None => {
            refuse_without_url(args)?;
            ServerTarget::Managed(managed_options(args, engine)?)
        }
    };
    let cache_mb = args.cache_mb();
    let settings =
        ServerSettings { target, cache_mb, durable_commits: !matches!(args.sync(), Synchronous::Off), shards };
    if !(1..=1 << 20).contains(&cache_mb) {
        return Err(Error::InvalidInput(format!("--cache-mb {cache_mb} is out of range: use 1 to 1048576 MiB")));
    }
    if let Some(min) = engine.capabilities().min_cache_mb
        && managed
        && cache_mb < min
    {
        return Err(Error::InvalidInput(format!(
            "--cache-mb {cache_mb} is below InnoDB's minimum buffer pool of {min} MiB (with 16 KiB pages): use --cache-mb {min} or more"
        )));
    }
    let memory = MemoryCap::detect();
    if managed && memory.bytes > 0 && cache_mb.saturating_mul(1 << 20) >= memory.bytes {
        return Err(Error::InvalidInput(format!(
            "--cache-mb {cache_mb} does not fit in this machine's memory ({} MiB, its RAM or cgroup limit): lower --cache-mb",
            memory.bytes >> 20
        )));
    }
    Ok(EnginePlan::Server(engine, settings))
}

/// The sharded layout `--shards` and `--sharding` ask for: a sharded engine's, or the sharding
/// of the tables pkbench creates on a distributed SQL server at `--url` (`--sharding` only);
/// refused for one managed server or SQLite.
fn shard_layout(args: &RunSettings, engine: EngineKind) -> Result<Option<ShardLayout>, Error> {
    let refuse = |flag: &str| {
        Error::InvalidInput(format!(
            "{flag} applies to the sharded engines: use --engine spider or --engine postgres-fdw, or leave out {flag}"
        ))
    };
    let sharding = args.sharding;
    if engine.is_sharded() {
        let layout =
            ShardLayout::new(args.shards.unwrap_or(ShardLayout::DEFAULT_SHARDS), sharding.unwrap_or_default())?;
        return Ok(Some(layout));
    }
    if args.shards.is_some() {
        return Err(refuse("--shards"));
    }
    match sharding {
        None => Ok(None),
        // CockroachDB, YugabyteDB and TiDB are recognised once connected; elsewhere it is refused then.
        Some(sharding) if args.url.is_some() && engine.is_server() => {
            Ok(Some(ShardLayout { shards: ShardLayout::DEFAULT_SHARDS, sharding }))
        }
        Some(_) => Err(refuse("--sharding")),
    }
}

/// How pkbench reaches a server at a URL (`--url`, `--like`): `--connect-timeout` and the
/// password of `--password-file`, read now, before anything starts.
pub(crate) fn connect_options(args: &RunSettings) -> Result<ConnectOptions, Error> {
    let password = args.password_file.as_deref().map(read_password_file).transpose()?;
    Ok(ConnectOptions { timeout: args.connect_timeout(), password })
}

/// Refuses the settings that only a user's server (`--url`) reads.
fn refuse_without_url(args: &RunSettings) -> Result<(), Error> {
    for (given, flag) in [
        (args.statement_timeout.is_some(), "--statement-timeout"),
        (args.keep_leftovers.unwrap_or(false), "--keep-leftovers"),
    ] {
        if given && args.url.is_none() {
            return Err(Error::InvalidInput(format!(
                "{flag} applies to your server at --url (a server pkbench starts itself has no other users): add --url, or leave out {flag}"
            )));
        }
    }
    Ok(())
}

/// Refuses a URL whose scheme names another engine, or no engine (never showing its password).
fn check_scheme(engine: EngineKind, url: &str) -> Result<(), Error> {
    // libpq's key=value strings (`host=h user=u`) have no scheme.
    let key_value = engine == EngineKind::Postgres && !url.contains("://") && url.contains('=');
    let url_engine = engine.url_engine();
    match EngineKind::from_url(url) {
        Some(kind) if Some(kind) == url_engine => Ok(()),
        None if key_value => Ok(()),
        found => {
            let schemes = url_engine
                .map_or(&[][..], EngineKind::url_schemes)
                .iter()
                .map(|s| format!("{s}://"))
                .collect::<Vec<_>>()
                .join(" or ");
            let what = found.map_or("no known engine".to_string(), |k| k.label().to_string());
            Err(Error::InvalidInput(format!(
                "--url '{}' is for {what}, not {}: start it with {schemes} (or leave out --engine to let the URL choose)",
                redact_url(url),
                engine.label()
            )))
        }
    }
}

/// Where and how a managed server starts.
fn managed_options(args: &RunSettings, engine: EngineKind) -> Result<ManagedOptions, Error> {
    let settings =
        args.server_settings.iter().flatten().map(|s| ServerSetting::parse(s)).collect::<Result<Vec<_>, _>>()?;
    if let Some(dir) = &args.data_dir
        && !dir.is_dir()
    {
        return Err(Error::InvalidInput(format!(
            "--data-dir {} is not a folder: create it first, or leave --data-dir out to use the temp folder",
            dir.display()
        )));
    }
    let server_bin = match args.pg_version {
        Some(major) => Some(pg_version_bin_dir(major, engine)?),
        None => args.server_bin.clone(),
    };
    let options =
        ManagedOptions { server_bin, data_dir: args.data_dir.clone(), settings, tcp: None, checkpoint_scale: None };
    check_reserved(&options, engine)?;
    Ok(options)
}

/// Refuses a `--server-setting` the managed server of `engine` keeps for itself, before it starts.
fn check_reserved(options: &ManagedOptions, engine: EngineKind) -> Result<(), Error> {
    #[cfg(feature = "postgres")]
    if matches!(engine, EngineKind::Postgres | EngineKind::PostgresFdw) {
        options.check_settings("PostgreSQL", crate::engines::postgres::RESERVED_SETTINGS)?;
    }
    #[cfg(feature = "mysql")]
    if matches!(engine, EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks) {
        options.check_settings("MariaDB", crate::engines::mariadb::RESERVED_SETTINGS)?;
    }
    #[cfg(feature = "mysql")]
    if engine == EngineKind::MyRocks {
        options.check_settings("MyRocks", crate::engines::myrocks::RESERVED_SETTINGS)?;
    }
    let _ = (options, engine);
    Ok(())
}

/// The SQLite plan: no server flags, valid page size and cache.
fn sqlite_plan(args: &RunSettings, out_dir: &Path) -> Result<EnginePlan, Error> {
    if let Some(url) = &args.url
        && args.engine.is_none()
    {
        return Err(Error::InvalidInput(format!(
            "--url '{}' names no server engine: start it with postgres://, postgresql://, mysql:// or mariadb://",
            redact_url(url)
        )));
    }
    for (given, flag) in [
        (args.url.is_some(), "--url"),
        (args.server_bin.is_some(), "--server-bin"),
        (args.pg_version.is_some(), "--pg-version"),
        (args.server_settings.as_ref().is_some_and(|s| !s.is_empty()), "--server-setting"),
        (args.data_dir.is_some(), "--data-dir"),
    ] {
        if given {
            return Err(Error::InvalidInput(format!(
                "{flag} applies to server engines; use --engine postgres or --engine mariadb (SQLite's settings are --cache-mb, --sync, --page-size and --journal)"
            )));
        }
    }
    let settings = SqliteSettings {
        dir: out_dir.to_path_buf(),
        cache_mb: args.cache_mb(),
        cache_kib: None,
        page_size: args.page_size.unwrap_or(4096),
        sync: args.sync(),
        journal: args.journal.unwrap_or(Journal::Wal),
        keep_db: args.keep_db.unwrap_or(false),
    };
    settings.validate()?;
    Ok(EnginePlan::Sqlite(settings))
}

impl EnginePlan {
    /// The folder a managed server's folder will be made in; `None` for SQLite or a URL.
    pub fn managed_parent_dir(&self) -> Option<PathBuf> {
        match self {
            EnginePlan::Server(_, ServerSettings { target: ServerTarget::Managed(options), .. }) => {
                Some(options.parent_dir())
            }
            _ => None,
        }
    }

    /// Opens the engine (starting a managed server if needed). Returns it and the folder its
    /// data lives in, for the environment block.
    pub fn open(self) -> Result<(Box<dyn Engine>, Option<PathBuf>), Error> {
        match self {
            #[cfg(feature = "sqlite")]
            EnginePlan::Sqlite(settings) => {
                let dir = settings.dir.clone();
                Ok((Box::new(crate::engines::sqlite::SqliteEngine::new(settings)?), Some(dir)))
            }
            #[cfg(not(feature = "sqlite"))]
            EnginePlan::Sqlite(_) => Err(Error::InvalidInput(
                "this build of pkbench has no SQLite driver: rebuild it with the `sqlite` feature".into(),
            )),
            EnginePlan::Server(kind, settings) => open_server(kind, &settings),
        }
    }
}

/// The folder of `--pg-version major`'s server binaries for a managed server of `engine`:
/// PostgreSQL's, where installed; refused on any other engine.
pub(crate) fn pg_version_bin_dir(major: u32, engine: EngineKind) -> Result<PathBuf, Error> {
    if engine != EngineKind::Postgres {
        return Err(Error::InvalidInput(format!(
            "--pg-version applies to --engine postgres; for {} pass --server-bin DIR",
            engine.label()
        )));
    }
    postgres_bin_dir(major)
}

/// The folder of PostgreSQL `major`'s server binaries.
#[cfg(feature = "postgres")]
fn postgres_bin_dir(major: u32) -> Result<PathBuf, Error> {
    crate::engines::postgres::bin_dir_for_version(major)
}

/// The folder of PostgreSQL `major`'s server binaries: this build has no PostgreSQL driver.
#[cfg(not(feature = "postgres"))]
fn postgres_bin_dir(_major: u32) -> Result<PathBuf, Error> {
    Err(Error::InvalidInput(
        "this build of pkbench has no PostgreSQL driver: rebuild it with the `postgres` feature".into(),
    ))
}
