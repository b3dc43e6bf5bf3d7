//! The engine core, and what the server engines share. The engine itself is written once over
//! a [`Backend`] ([`ServerEngine`]: insert cases, concurrent clients, the application workload,
//! a user's own schema, verification and cleanup) for every engine, SQLite's included; besides
//! it: finding server binaries, running a throwaway server in a temporary directory, and
//! keeping passwords out of every message.

mod app;
mod backend;
mod binaries;
mod case;
mod engine;
pub mod leftovers;
mod managed;
mod own_schema;
mod process;
mod url;

pub use backend::{Backend, SettingsFor, drop_tables};
pub use engine::ServerEngine;
pub use managed::{MAX_CHECKPOINT_SCALE, ManagedOptions, ServerSetting, TcpListen};

pub use binaries::find_binary;
pub use process::{
    ManagedProcess, ServerUser, abort_all, failure_summary, free_port, private_dir, remove_stale_dirs,
    remove_stale_server_dirs, server_dirs_in_memory, unique_suffix, wait_until,
};
pub use url::{hide_secrets, redact_url};

use crate::engines::wire::connect::ConnectOptions;

/// How to reach a server engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerTarget {
    /// Start a throwaway server in a temporary directory.
    Managed(ManagedOptions),
    /// Use the user's server at this URL; pkbench works only inside its own `pkbench_…`
    /// schema/database there.
    External {
        /// Connection URL (may contain a password; never printed unredacted).
        url: String,
        /// How pkbench connects and works there.
        options: ExternalOptions,
    },
}

/// How pkbench connects to and works on a user's server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalOptions {
    /// The connect timeout and a password given apart from the URL.
    pub connect: ConnectOptions,
    /// Longest a statement of pkbench's may run there (PostgreSQL `statement_timeout`, MariaDB
    /// `max_statement_time`, per session).
    pub statement_timeout: StatementLimit,
    /// Only list the scratch namespaces killed pkbench runs left there, instead of removing
    /// them.
    pub keep_leftovers: bool,
}

/// The longest a statement of pkbench's may run on a user's server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatementLimit {
    /// No limit of pkbench's: the server's own (or its role's) stays.
    #[default]
    Off,
    /// pkbench's default, where the server (and the role) set none: a limit the server's
    /// administrator chose stays.
    Default(std::time::Duration),
    /// `--statement-timeout`: this limit, whatever the server's.
    Given(std::time::Duration),
}

impl ServerTarget {
    /// A managed server with pkbench's defaults.
    pub fn managed() -> Self {
        ServerTarget::Managed(ManagedOptions::default())
    }

    /// The names of the settings the user gave a managed server.
    pub fn user_setting_names(&self) -> Vec<String> {
        match self {
            ServerTarget::Managed(options) => options.settings.iter().map(|s| s.name.clone()).collect(),
            ServerTarget::External { .. } => Vec::new(),
        }
    }
}

/// Settings common to server engines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSettings {
    /// Managed or external.
    pub target: ServerTarget,
    /// Engine cache for managed servers, MiB (`shared_buffers` / `innodb_buffer_pool_size`).
    pub cache_mb: u64,
    /// Whether commits wait for durable storage (`synchronous_commit` /
    /// `innodb_flush_log_at_trx_commit`).
    pub durable_commits: bool,
    /// How a sharded engine splits its table, or which sharding a distributed SQL server at a
    /// URL uses for the tables pkbench creates; `None`: the engine's default (one server, or a
    /// sharded engine's [`ShardLayout::default`](crate::sharding::ShardLayout)).
    pub shards: Option<crate::sharding::ShardLayout>,
}
