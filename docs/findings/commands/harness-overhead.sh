# findings-check: skip (cargo bench builds the release profile; CI compiles this bench with clippy --all-targets)
cargo bench -q -p pkbench-core --bench harness_overhead -- 1000000 250000 16
