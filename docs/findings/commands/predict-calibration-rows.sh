# The same forecast calibrated on a tenth of its rows and on 200k rows (what advise calibrates on),
# held to one real run of the target: on SQLite 10M rows, on PostgreSQL 5M. The first command of
# each engine makes the real run (--check); the second reads it (--check-from), so both forecasts
# face the same batches. Each line: a strategy's last half of batches, within the bound (25%
# SQLite, 30% the servers) and inside the forecast's 90% interval.
pkbench predict -s int,uuid7,uuid4 -n 10M -b 100k --cache-mb 8 --calibrate --calibrate-rows 1M --check 10M -q -o sq1m > sq1m.txt 2> /dev/null
pkbench predict -s int,uuid7,uuid4 -n 10M -b 100k --cache-mb 8 --calibrate --calibrate-rows 200k --check-from sq1m/check/results.json -q -o sq200k > sq200k.txt 2> /dev/null
pkbench predict --engine postgres -s int,uuid7,uuid4 -n 5M --cache-mb 8 --calibrate --calibrate-rows 500k --check 5M -q -o pg500k > pg500k.txt 2> /dev/null
pkbench predict --engine postgres -s int,uuid7,uuid4 -n 5M --cache-mb 8 --calibrate --calibrate-rows 200k --check-from pg500k/check/results.json -q -o pg200k > pg200k.txt 2> /dev/null
for f in sq1m sq200k pg500k pg200k; do echo "**$f**: $(grep -o '[0-9]* rows per strategy in batches of [0-9]*' $f.txt | head -1)"; echo; grep -E '^ *(int|uuid7|uuid4), last' $f.txt | sed 's/^ */- /'; echo; done
