# A billion rows of the default strategies on each engine's model, calibrated at the defaults (a
# real run of 1M rows per strategy on the engine, at its smallest cache), timed, then where each
# forecast's time went; then SQLite's model at 1/32, a scale its cache floor keeps the automatic
# scale above, counts against the calibrated forecast's at 1/16.
/usr/bin/time -f "sq:pkbench predict -n 1G --calibrate %e %M" -a -o time.txt pkbench predict -n 1G --calibrate -q -o sq > /dev/null
/usr/bin/time -f "pg:pkbench predict --engine postgres -n 1G --calibrate %e %M" -a -o time.txt pkbench predict --engine postgres -n 1G --calibrate -q -o pg > /dev/null
/usr/bin/time -f "my:pkbench predict --engine mariadb -n 1G --calibrate %e %M" -a -o time.txt pkbench predict --engine mariadb -n 1G --calibrate -q -o my > /dev/null
/usr/bin/time -f "sq32:pkbench predict -n 1G --scale 32 %e %M" -a -o time.txt pkbench predict -n 1G --scale 32 -q -o sq32 > /dev/null
scripts/time-table time.txt
echo
grep -v '^sq32:' time.txt > calibrated.txt
scripts/forecast-cost calibrated.txt
echo
scripts/model-vs-real sq/results.json sq32/results.json --labels "scale 1/32,automatic"
