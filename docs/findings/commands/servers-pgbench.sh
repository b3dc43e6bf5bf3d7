scripts/compare-pgbench 2000000
