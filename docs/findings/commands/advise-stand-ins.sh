F=docs/findings/inputs/mediawiki-revision.sqlite.sql
pkbench advise --schema $F --table revision --engine sqlite -s int-client,snowflake,uuid7,ulid -n 1M --calibrate-rows 100k --cache-mb 8 -q -o advise > /dev/null
pkbench run --engine sqlite --schema $F --table revision -s int-client,snowflake,uuid7,ulid -n 1M -b 100k --cache-mb 8 --children-per-row 0 --reads 0 -q -o real1 > /dev/null
pkbench run --engine sqlite --schema $F --table revision -s int-client,snowflake,uuid7,ulid -n 1M -b 100k --cache-mb 8 --children-per-row 0 --reads 0 -q -o real2 > /dev/null
scripts/advise-vs-real --markdown advise real1 real2
