//! `scripts/hostile-inputs` against this build: every category of hostile input (bad URLs,
//! sizes, strategies, conflicting flags, endless files, existing folders, full disks, closed
//! pipes, signals, plans, tampered results) ends without a panic, a hang, a printed password or a
//! lost file. Tier two: its full-disk case mounts a tmpfs (root) and two cases start a server.

#[test]
fn every_hostile_input_is_refused_or_survived_without_loss() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/hostile-inputs");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("pkbench"))
        .output()
        .expect("python3 runs scripts/hostile-inputs (scripts/setup-test-deps installs it)");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(table.contains(", 0 failed"), "{table}");
}
