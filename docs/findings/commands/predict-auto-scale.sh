# The default strategies at 100M rows on each page model, counts only: the automatic scale
# (within 6.25M simulated rows) against a scale that simulates four times as many rows; and at a
# billion rows on SQLite's, where the cache's 100-page floor holds the scale at 1/16, against
# 1/128 (the server models' rule would go on to it: 15 pages); timed, then the counts.
/usr/bin/time -f "sq:pkbench predict -n 100M %e %M" -a -o time.txt pkbench predict -n 100M -q -o sq > /dev/null
/usr/bin/time -f "sq4:pkbench predict -n 100M --scale 4 %e %M" -a -o time.txt pkbench predict -n 100M --scale 4 -q -o sq4 > /dev/null
/usr/bin/time -f "sqg:pkbench predict -n 1G -b 1.6M %e %M" -a -o time.txt pkbench predict -n 1G -b 1.6M -q -o sqg > /dev/null
/usr/bin/time -f "sqg128:pkbench predict -n 1G -b 1.6M --scale 128 %e %M" -a -o time.txt pkbench predict -n 1G -b 1.6M --scale 128 -q -o sqg128 > /dev/null
/usr/bin/time -f "pg:pkbench predict --engine postgres -n 100M %e %M" -a -o time.txt pkbench predict --engine postgres -n 100M -q -o pg > /dev/null
/usr/bin/time -f "pg4:pkbench predict --engine postgres -n 100M --scale 4 %e %M" -a -o time.txt pkbench predict --engine postgres -n 100M --scale 4 -q -o pg4 > /dev/null
/usr/bin/time -f "my:pkbench predict --engine mariadb -n 100M %e %M" -a -o time.txt pkbench predict --engine mariadb -n 100M -q -o my > /dev/null
/usr/bin/time -f "my4:pkbench predict --engine mariadb -n 100M --scale 4 %e %M" -a -o time.txt pkbench predict --engine mariadb -n 100M --scale 4 -q -o my4 > /dev/null
scripts/time-table time.txt
echo
echo "SQLite model, 100M rows:"
echo
scripts/model-vs-real sq/results.json sq4/results.json --labels "scale 1/4,automatic"
echo
echo "SQLite model, a billion rows:"
echo
scripts/model-vs-real sqg128/results.json sqg/results.json --labels "automatic,scale 1/128"
echo
echo "PostgreSQL model, 100M rows:"
echo
scripts/model-vs-real pg/results.json pg4/results.json --labels "scale 1/4,automatic"
echo
echo "InnoDB model, 100M rows:"
echo
scripts/model-vs-real my/results.json my4/results.json --labels "scale 1/4,automatic"
