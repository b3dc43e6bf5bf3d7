//! A results folder's manifest: pkbench removes only what it wrote.
//!
//! Every results folder pkbench creates (a run's, a prediction's and its `calibration/` and
//! `check/`, a plan's and each of its case folders, a merge's, and the folder `pkbench report`
//! creates for its output) holds `.pkbench-manifest`: a text file that names, one per line, each
//! file pkbench writes there and each subfolder it creates there (with a trailing `/`; that
//! subfolder has a manifest of its own). Lines starting with `#` are comments. A name is listed
//! before its file is created, so a run killed in between leaves nothing unlisted; a name is
//! never listed for a file that was there before pkbench wrote it.
//!
//! Everything pkbench writes into a results folder goes through here: [`create`] (the folder and
//! its manifest), [`claim`] (a name about to be written, where the folder has a manifest) and
//! [`write_atomically`] (a whole file, claimed first). [`clear`] (`--force`) removes exactly the
//! listed files and subfolders, and refuses, removing nothing, when the folder (or a listed
//! subfolder) holds anything else or has no manifest.

use crate::Error;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// File name of the manifest in a results folder.
pub const MANIFEST_FILE: &str = ".pkbench-manifest";

/// The manifest's first line.
const HEADER: &str = "# pkbench wrote the files named below (folders end with /); `--force` removes exactly these, and nothing while anything else is here\n";

/// Makes `dir` a results folder: creates it (and its parents) and its manifest, unless it has
/// one. A new subfolder of a results folder is first listed in that folder's manifest. Writing
/// the manifest also proves the folder writable.
pub fn create(dir: &Path) -> Result<(), Error> {
    if std::fs::symlink_metadata(dir).is_err()
        && let Some(name) = dir.file_name().and_then(|n| n.to_str())
    {
        claim(parent_of(dir), &[&format!("{name}/")])?;
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the results folder", dir, e))?;
    let manifest = dir.join(MANIFEST_FILE);
    if !manifest.is_file() {
        let written = std::fs::File::create(&manifest).and_then(|mut f| f.write_all(HEADER.as_bytes()));
        written.map_err(|e| Error::io("write into the results folder", dir, e))?;
    }
    Ok(())
}

/// Whether `dir` has a manifest (pkbench created it as a results folder).
pub fn is_results_folder(dir: &Path) -> bool {
    dir.join(MANIFEST_FILE).is_file()
}

/// Lists `names` (file names; a folder's with a trailing `/`) in `dir`'s manifest before pkbench
/// writes them. Nothing happens where `dir` has no manifest (not a folder pkbench owns), for a
/// name already listed, or for a name whose file is already there unlisted (someone else's).
pub fn claim(dir: &Path, names: &[&str]) -> Result<(), Error> {
    let path = dir.join(MANIFEST_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    let listed = entries(&text);
    let mut add = String::new();
    for name in names {
        let bare = name.strip_suffix('/').unwrap_or(name);
        let plain = !bare.is_empty() && !bare.contains(['/', '\n', '\r']) && bare != "." && bare != "..";
        if !plain || listed.contains(name) || add.lines().any(|l| l == *name) {
            continue;
        }
        if std::fs::symlink_metadata(dir.join(bare)).is_ok() {
            continue;
        }
        add.push_str(name);
        add.push('\n');
    }
    if add.is_empty() {
        return Ok(());
    }
    let appended = std::fs::OpenOptions::new().append(true).open(&path).and_then(|mut f| f.write_all(add.as_bytes()));
    appended.map_err(|e| Error::io("write", &path, e))
}

/// Claims the file at `path` in its folder's manifest (see [`claim`]).
pub fn claim_path(path: &Path) -> Result<(), Error> {
    match path.file_name().and_then(|n| n.to_str()) {
        Some(name) => claim(parent_of(path), &[name]),
        None => Ok(()),
    }
}

/// Claims a SQLite database at `path` with the files SQLite keeps beside it (`-wal`, `-shm`,
/// `-journal`).
pub fn claim_database(path: &Path) -> Result<(), Error> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return Ok(()) };
    let names = [name.to_string(), format!("{name}-wal"), format!("{name}-shm"), format!("{name}-journal")];
    claim(parent_of(path), &names.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Writes `path` whole or not at all: into its own temporary file (`NAME.tmp`), synced, then
/// renamed over it; both names claimed first. A failed write (a full disk) leaves any earlier
/// file as it was, and no empty or partial one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let Some(file_name) = path.file_name() else {
        return Err(Error::InvalidInput(format!("'{}' is not a file name to write to", path.display())));
    };
    let mut name = file_name.to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(&name);
    if let (Some(file), Some(temp)) = (path.file_name().and_then(|n| n.to_str()), name.to_str()) {
        claim(parent_of(path), &[file, temp])?;
    }
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_data()));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io("write", path, e)
    })?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io("write", path, e)
    })
}

/// Removes what pkbench wrote in `dir`: every file and subfolder its manifest lists (each
/// subfolder by its own manifest), then the manifest; `dir` itself stays, empty. Refuses,
/// removing nothing, when `dir` or a listed subfolder has no manifest or holds anything its
/// manifest does not list.
pub fn clear(dir: &Path) -> Result<(), Error> {
    let mut removal = Removal::default();
    removal.collect(dir)?;
    if !removal.strangers.is_empty() {
        let mut names: Vec<String> =
            removal.strangers.iter().take(4).map(|p| p.strip_prefix(dir).unwrap_or(p).display().to_string()).collect();
        if removal.strangers.len() > names.len() {
            names.push(format!("{} more", removal.strangers.len() - names.len()));
        }
        return Err(Error::InvalidInput(format!(
            "'{}' holds files pkbench did not write ({}): pkbench removes only its own files, so it removed nothing; move them, or choose another --out",
            dir.display(),
            names.join(", ")
        )));
    }
    for file in &removal.files {
        match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io("remove", file, e)),
            _ => {}
        }
    }
    for folder in &removal.folders {
        std::fs::remove_dir(folder).map_err(|e| Error::io("remove", folder, e))?;
    }
    Ok(())
}

/// What [`clear`] removes, in order: files (manifests last of their folder), then folders
/// (deepest first); and what it must not.
#[derive(Default)]
struct Removal {
    files: Vec<PathBuf>,
    folders: Vec<PathBuf>,
    strangers: Vec<PathBuf>,
}

impl Removal {
    fn collect(&mut self, dir: &Path) -> Result<(), Error> {
        let manifest = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&manifest) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::InvalidInput(format!(
                    "'{}' has no {MANIFEST_FILE} (the list of the files pkbench wrote there): it is not a pkbench results folder, or one written before pkbench kept that list, so pkbench cannot tell its files from others' and removed nothing; choose another --out",
                    dir.display()
                )));
            }
            Err(e) => return Err(Error::io("read", &manifest, e)),
        };
        let listed = entries(&text);
        let read = std::fs::read_dir(dir).map_err(|e| Error::io("read", dir, e))?;
        for entry in read {
            let entry = entry.map_err(|e| Error::io("read", dir, e))?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                self.strangers.push(path);
                continue;
            };
            if name == MANIFEST_FILE {
                continue;
            }
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            match (is_dir, listed.contains(format!("{name}/").as_str()), listed.contains(name.as_str())) {
                (true, true, _) => {
                    self.collect(&path)?;
                    self.folders.push(path);
                }
                (false, _, true) => self.files.push(path),
                _ => self.strangers.push(path),
            }
        }
        self.files.push(manifest);
        Ok(())
    }
}

/// The names a manifest lists.
fn entries(text: &str) -> HashSet<&str> {
    text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// The folder holding `path` (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_files_are_removed_and_a_stranger_stops_everything() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        create(&out).unwrap();
        write_atomically(&out.join("results.json"), b"{}").unwrap();
        create(&out.join("case-001")).unwrap();
        write_atomically(&out.join("case-001/results.json"), b"{}").unwrap();
        std::fs::write(out.join("case-001/notes.txt"), "mine").unwrap();

        let err = clear(&out).unwrap_err().to_string();
        assert!(err.contains("notes.txt") && err.contains("removed nothing"), "{err}");
        assert!(out.join("results.json").is_file() && out.join("case-001/results.json").is_file());

        std::fs::remove_file(out.join("case-001/notes.txt")).unwrap();
        clear(&out).unwrap();
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0, "the folder stays, empty");
    }

    #[test]
    fn a_file_that_was_there_before_is_never_claimed() {
        let dir = tempfile::tempdir().unwrap();
        create(dir.path()).unwrap();
        std::fs::write(dir.path().join("thesis.txt"), "mine").unwrap();
        claim(dir.path(), &["thesis.txt", "../escape", "a/b", ""]).unwrap();
        let manifest = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        assert_eq!(manifest, HEADER);
        assert!(clear(dir.path()).is_err());
        assert!(dir.path().join("thesis.txt").is_file());
    }

    #[test]
    fn a_folder_without_a_manifest_is_refused_and_nothing_is_claimed_there() {
        let dir = tempfile::tempdir().unwrap();
        claim(dir.path(), &["results.json"]).unwrap();
        assert!(!dir.path().join(MANIFEST_FILE).exists());
        std::fs::write(dir.path().join("results.json"), "{}").unwrap();
        let err = clear(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no .pkbench-manifest"), "{err}");
        assert!(dir.path().join("results.json").is_file());
    }

    #[test]
    fn a_listed_folder_replaced_by_a_link_is_a_stranger() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        create(&out).unwrap();
        create(&out.join("check")).unwrap();
        std::fs::remove_dir_all(out.join("check")).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("precious"), "x").unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("check")).unwrap();
        assert!(clear(&out).is_err());
        assert!(elsewhere.join("precious").is_file());
    }

    #[test]
    fn a_failed_write_leaves_no_empty_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-folder").join("report.html");
        assert!(write_atomically(&path, b"x").is_err());
        assert!(!path.exists());
    }
}
