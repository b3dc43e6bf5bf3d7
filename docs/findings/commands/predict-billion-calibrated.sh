# A billion rows of the default strategies on each engine's model, calibrated at the defaults (a
# real run per strategy on the engine, at its smallest cache: 200k rows on SQLite and MariaDB, 1M
# on PostgreSQL), then each with the other calibration size, timed, then where each forecast's
# time went; then SQLite's model at 1/32, a scale its cache floor keeps the automatic scale
# above, counts against the calibrated forecast's at 1/16.
/usr/bin/time -f "sq:pkbench predict -n 1G --calibrate %e %M" -a -o time.txt pkbench predict -n 1G --calibrate -q -o sq > /dev/null
/usr/bin/time -f "pg:pkbench predict --engine postgres -n 1G --calibrate %e %M" -a -o time.txt pkbench predict --engine postgres -n 1G --calibrate -q -o pg > /dev/null
/usr/bin/time -f "my:pkbench predict --engine mariadb -n 1G --calibrate %e %M" -a -o time.txt pkbench predict --engine mariadb -n 1G --calibrate -q -o my > /dev/null
/usr/bin/time -f "sq1m:pkbench predict -n 1G --calibrate --calibrate-rows 1M %e %M" -a -o time.txt pkbench predict -n 1G --calibrate --calibrate-rows 1M -q -o sq1m > /dev/null
/usr/bin/time -f "pg200k:pkbench predict --engine postgres -n 1G --calibrate --calibrate-rows 200k %e %M" -a -o time.txt pkbench predict --engine postgres -n 1G --calibrate --calibrate-rows 200k -q -o pg200k > /dev/null
/usr/bin/time -f "my1m:pkbench predict --engine mariadb -n 1G --calibrate --calibrate-rows 1M %e %M" -a -o time.txt pkbench predict --engine mariadb -n 1G --calibrate --calibrate-rows 1M -q -o my1m > /dev/null
/usr/bin/time -f "sq32:pkbench predict -n 1G --scale 32 %e %M" -a -o time.txt pkbench predict -n 1G --scale 32 -q -o sq32 > /dev/null
scripts/time-table time.txt
echo
grep -v '^sq32:' time.txt > calibrated.txt
scripts/forecast-cost calibrated.txt
echo
scripts/model-vs-real sq/results.json sq32/results.json --labels "scale 1/32,automatic"
