# findings-check: skip (cargo bench builds the release profile; CI compiles this bench with clippy --all-targets)
CRITERION_HOME="$PWD/criterion" cargo bench -q -p pkbench-core --bench ids > /dev/null
scripts/criterion-table criterion
