S=int,uuid7,uuid4
echo '```text'
pkbench predict -s $S -n 10M -b 100k --calibrate --calibrate-rows 1M --check 10M -q -o sqlite-8
pkbench run -s $S -n 10M -b 100k -q -o sqlite-8-again > /dev/null
scripts/real-vs-real 0.25 sqlite-8/check sqlite-8-again
pkbench predict -s $S -n 10M -b 1M --cache-mb 64 --calibrate --calibrate-rows 1M --check 10M -q -o sqlite-64
pkbench run -s $S -n 10M -b 1M --cache-mb 64 -q -o sqlite-64-again > /dev/null
scripts/real-vs-real 0.25 sqlite-64/check sqlite-64-again
pkbench predict --engine postgres -s $S -n 5M -b 100k --calibrate --calibrate-rows 500k --check 5M -q -o postgres
pkbench run --engine postgres -s $S -n 5M -b 100k -q -o postgres-again > /dev/null
scripts/real-vs-real 0.30 postgres/check postgres-again
pkbench predict --engine mariadb -s $S -n 2M -b 100k --calibrate --calibrate-rows 200k --check 2M -q -o mariadb
pkbench run --engine mariadb -s $S -n 2M -b 100k -q -o mariadb-again > /dev/null
scripts/real-vs-real 0.30 mariadb/check mariadb-again
echo '```'
