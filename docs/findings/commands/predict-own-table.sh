T="--schema crates/pkbench-core/tests/fixtures/schema/plans_accounts_orders.pg.sql --values crates/pkbench-core/tests/fixtures/schema/plans_accounts_orders.values.toml --table accounts --parent-rows 50"
R="--children-per-row 0 --reads 0"
S=int,uuid7,uuid4,uuid4-text,int+uuid4
pkbench run $T $R -s $S -n 1M -b 250k --cache-mb 256 -q -o sqlite-real > /dev/null
pkbench predict $T -s $S -n 1M -b 250k --cache-mb 256 --exact -q -o sqlite-model > /dev/null
pkbench run --engine postgres $T $R -s $S -n 1M -b 250k --cache-mb 256 -q -o pg-real > /dev/null
pkbench predict --engine postgres $T -s $S -n 1M -b 250k --cache-mb 256 --exact -q -o pg-model > /dev/null
pkbench run --engine mariadb $T $R -s $S -n 1M -b 250k --cache-mb 256 -q -o innodb-real > /dev/null
pkbench predict --engine mariadb $T -s $S -n 1M -b 250k --cache-mb 256 --exact -q -o innodb-model > /dev/null
echo "SQLite, $(scripts/model-vs-real sqlite-model/results.json sqlite-real/results.json)"
echo; echo "PostgreSQL, $(scripts/model-vs-real pg-model/results.json pg-real/results.json)"
echo; echo "InnoDB, $(scripts/model-vs-real innodb-model/results.json innodb-real/results.json)"
