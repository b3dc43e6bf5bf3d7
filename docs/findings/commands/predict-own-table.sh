# The page models of a user's table against real runs of it: the test schema's accounts table
# (three secondary indexes, a foreign key to plans), 1M rows per strategy, on each engine; every
# tree's leaf pages and fill, model against real (`predict --schema` prints its trees). The
# layout does not depend on the cache; a large one makes the real runs quicker.
S=crates/pkbench-core/tests/fixtures/schema/plans_accounts_orders
K=int,uuid7,uuid4,uuid4-text,int+uuid4
pkbench run --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k --children-per-row 0 --reads 0 --cache-mb 256 -q -o sqlite-real > /dev/null
pkbench predict --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k > sqlite-model.txt
pkbench run --engine postgres --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k --children-per-row 0 --reads 0 --cache-mb 256 -q -o pg-real > /dev/null
pkbench predict --engine postgres --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k > pg-model.txt
pkbench run --engine mariadb --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k --children-per-row 0 --reads 0 --cache-mb 256 -q -o innodb-real > /dev/null
pkbench predict --engine mariadb --schema $S.pg.sql --values $S.values.toml --table accounts --parent-rows 50 -s $K -n 1M -b 250k > innodb-model.txt
echo "SQLite:"
echo
scripts/schema-vs-real sqlite-model.txt sqlite-real/results.json
echo
echo "PostgreSQL:"
echo
scripts/schema-vs-real pg-model.txt pg-real/results.json
echo
echo "InnoDB:"
echo
scripts/schema-vs-real innodb-model.txt innodb-real/results.json
