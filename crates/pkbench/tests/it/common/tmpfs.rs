//! A small tmpfs for the disk-full tests, unmounted on drop. Mounting needs root
//! (CAP_SYS_ADMIN), which CI and the development machines have; without it a test fails and says
//! so rather than skipping.

use std::path::{Path, PathBuf};

/// A mounted tmpfs.
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (e.g. `64m`) on `dir`.
    pub fn mount(dir: &Path, size: &str) -> Self {
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(status.success(), "the disk-full tests mount a {size} tmpfs and need root (CAP_SYS_ADMIN)");
        Tmpfs(dir.to_path_buf())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}
