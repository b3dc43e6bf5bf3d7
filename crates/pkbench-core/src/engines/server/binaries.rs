//! Locating server binaries: `--server-bin`, then PATH, then Debian's versioned folders.

use crate::Error;
use std::path::{Path, PathBuf};

/// Finds `name`: in `explicit` if given, else on PATH, else in the newest of `debian_dirs`
/// (glob-free: each entry is a parent whose subfolders are versions, e.g.
/// `/usr/lib/postgresql` → `/usr/lib/postgresql/15/bin`). `package` names what to install.
pub fn find_binary(
    name: &str,
    explicit: Option<&Path>,
    debian_parent: Option<&Path>,
    package: &str,
) -> Result<PathBuf, Error> {
    if let Some(dir) = explicit {
        let p = dir.join(name);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::NotFound(format!(
                "'{name}' is not in --server-bin '{}': point it at the folder holding the server binaries",
                dir.display()
            )))
        };
    }
    if let Some(p) = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file()))
    {
        return Ok(p);
    }
    if let Some(parent) = debian_parent {
        let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(parent)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let v: u32 = e.file_name().to_str()?.parse().ok()?;
                let p = e.path().join("bin").join(name);
                p.is_file().then_some((v, p))
            })
            .collect();
        versions.sort();
        if let Some((_, p)) = versions.pop() {
            return Ok(p);
        }
    }
    Err(Error::NotFound(format!(
        "'{name}' not found: install the '{package}' package (apt-get install {package}) or pass --server-bin DIR"
    )))
}
