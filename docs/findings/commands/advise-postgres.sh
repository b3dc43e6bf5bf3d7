F=docs/findings/inputs/mediawiki-revision.postgres.sql
pkbench advise --schema $F --table revision --engine postgres -s int,uuid7,uuid4 -n 1M --calibrate-rows 100k --cache-mb 64 -q -o advise > /dev/null
pkbench run --engine postgres --schema $F --table revision -s int,uuid7,uuid4 -n 1M -b 100k --cache-mb 64 --children-per-row 0 --reads 0 -q -o real1 > /dev/null
pkbench run --engine postgres --schema $F --table revision -s int,uuid7,uuid4 -n 1M -b 100k --cache-mb 64 --children-per-row 0 --reads 0 -q -o real2 > /dev/null
scripts/advise-vs-real --markdown --counters advise real1 real2
