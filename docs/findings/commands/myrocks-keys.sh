# Every key on MyRocks at 10M rows with a 1 GiB block cache, each table compacted through every
# level after its run (size compacted); then the LSM model of the same strategies held against
# that run. The per-batch table is left out of the page (the trend column shows it).
S=int,uuid7,uuid4,uuid4-text
pkbench run --engine myrocks -s $S -n 10M --cache-mb 1024 -q -o real > /dev/null
sed -e '/^# pkbench results/d' -e '/^!\[/d' -e '/^Command: `/d' -e '/^## Milliseconds per batch/,/^## LSM/{/^## LSM/!d}' -e 's/^#/##/' real/results.md
echo
pkbench predict --engine myrocks -s $S -n 10M -q -o model > /dev/null
echo "#### The model against this run"
echo
echo "\`pkbench predict --engine myrocks -s $S -n 10M\` against the run above (\`scripts/lsm-vs-real model/results.json real/results.json\`):"
echo
scripts/lsm-vs-real model/results.json real/results.json
