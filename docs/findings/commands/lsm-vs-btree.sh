# The same keys on the same MariaDB, once into InnoDB's B-tree and once into RocksDB's LSM tree:
# 1M rows each with a 16 MiB cache (InnoDB's buffer pool, RocksDB's block cache).
S=int,uuid7,uuid4
pkbench run --engine mariadb -s $S -n 1M --cache-mb 16 -q -o btree > /dev/null
pkbench run --engine myrocks -s $S -n 1M --cache-mb 16 -q -o lsm > /dev/null
echo "#### InnoDB (a B-tree)"
echo
sed -n '/^| strategy | first batch/,/^$/p' btree/results.md
echo "#### MyRocks (an LSM tree)"
echo
sed -n '/^| strategy | first batch/,/^$/p' lsm/results.md
