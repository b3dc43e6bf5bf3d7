//! What the server engines share: the engine itself, written once over a [`Backend`]
//! ([`ServerEngine`]: insert cases, concurrent clients, the application workload, verification
//! and cleanup), finding server binaries, running a throwaway server in a temporary directory,
//! and keeping passwords out of every message.

mod app;
mod backend;
mod binaries;
mod case;
mod engine;
mod process;
mod url;

pub use backend::{Backend, SettingsFor};
pub use engine::ServerEngine;

pub use binaries::find_binary;
pub use process::{
    ManagedProcess, ServerUser, abort_all, failure_summary, free_port, private_dir, remove_stale_dirs,
    remove_stale_server_dirs, server_dirs_in_memory, unique_suffix, wait_until,
};
pub use url::redact_url;

use std::path::PathBuf;

/// How to reach a server engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerTarget {
    /// Start a throwaway server in a temporary directory (binaries from `server_bin` if given).
    Managed {
        /// Folder holding the server binaries, if not found automatically.
        server_bin: Option<PathBuf>,
    },
    /// Use the user's server at this URL; pkbench works only inside its own `pkbench_…`
    /// schema/database there.
    External {
        /// Connection URL (may contain a password; never printed unredacted).
        url: String,
    },
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
}
