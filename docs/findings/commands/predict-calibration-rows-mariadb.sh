# As predict-calibration-rows.sh on MariaDB: a 4M-row forecast calibrated on a tenth of its rows
# and on 200k rows, both held to one real run of 4M rows.
pkbench predict --engine mariadb -s int,uuid7,uuid4 -n 4M --cache-mb 8 --calibrate --calibrate-rows 400k --check 4M -q -o my400k > my400k.txt 2> /dev/null
pkbench predict --engine mariadb -s int,uuid7,uuid4 -n 4M --cache-mb 8 --calibrate --calibrate-rows 200k --check-from my400k/check/results.json -q -o my200k > my200k.txt 2> /dev/null
for f in my400k my200k; do echo "**$f**: $(grep -o '[0-9]* rows per strategy in batches of [0-9]*' $f.txt | head -1)"; echo; grep -E '^ *(int|uuid7|uuid4), last' $f.txt | sed 's/^ */- /'; echo; done
