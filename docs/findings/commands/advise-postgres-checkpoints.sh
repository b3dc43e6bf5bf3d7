F=docs/findings/inputs/mediawiki-revision.postgres.sql
pkbench advise --schema $F --table revision --engine postgres -s int,uuid4 -n 1M --calibrate-rows 100k --cache-mb 64 -q -o sooner > /dev/null
pkbench advise --schema $F --table revision --engine postgres -s int,uuid4 -n 100k --calibrate-rows 100k --cache-mb 7 -q -o own > /dev/null
pkbench run --engine postgres --schema $F --table revision -s uuid4 -n 1M -b 100k --cache-mb 64 --children-per-row 0 --reads 0 -q -o target > /dev/null
scripts/runs-by-fifth uuid4 "calibration for 1M rows=sooner/forecast/calibration" "calibration at PostgreSQL's own WAL sizes=own/forecast/calibration" "real run at 1M rows=target"
