# The calibrated forecast of insert time held to the real run its --check makes (run 1), then the
# same forecast (the same calibration) held to a second real run of the same settings (run 2);
# the two real runs held to each other are the noise floor. Beside it, a calibration at MyRocks'
# own memtable, file and level sizes (a 1M-row target calibrates at them: nothing to scale),
# with the same rows, batch and block cache, held to the same two runs; and the model's costs
# fitted on all of run 1, held to run 1: how much of the run its counts can explain at all.
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate --calibrate-rows 1M --check 10M -o run1 > check1.txt 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate-rows 1M --calibrate-from run1/calibration/results.json --check 10M -o run2 > check2.txt 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 1M -b 25k --cache-mb 103 --calibrate --calibrate-rows 1M -q -o own-sizes > /dev/null 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate-rows 1M --calibrate-from own-sizes/calibration/results.json --check-from run1/check/results.json -o own1 > own1.txt 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate-rows 1M --calibrate-from own-sizes/calibration/results.json --check-from run2/check/results.json -o own2 > own2.txt 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate-rows 10M --calibrate-from run1/check/results.json --check-from run1/check/results.json -o whole > whole.txt 2> /dev/null
costs() { grep -o 'ones): [^;]*' "$1" | sed 's/^ones): //'; }
held() { grep -E '^[a-z0-9+-]+, last [0-9]+ batches|^  [0-9]+ of them ran' "$1" | sed -e 's/^  /  - /' -e 's/^\([a-z0-9]\)/- \1/'; }
lines() { grep -E '^[a-z0-9+-]+, last [0-9]+ batches' "$1" | sed 's/^/- /'; }
echo "The calibration: $(grep -o 'calibrated on a real run ([^;]*' run1/results.md | sed 's/^calibrated on a real run (//')."
echo
echo "Its fitted costs (µs, 90% ranges): $(costs run1/results.md)."
echo
echo "Its memtable probe: $(grep -o '"working_set": "[^"]*' run1/results.json | head -1 | sed -e 's/^"working_set": "//' -e 's/; taken off.*//')."
echo
echo "The forecast against run 1:"
echo
held check1.txt
echo
echo "The same forecast against run 2:"
echo
held check2.txt
echo
echo "The noise floor, the two real runs held to each other:"
echo
scripts/real-vs-real 0.30 run1/check run2/check
echo
echo "A calibration at MyRocks' own sizes ($(grep -o 'calibrated on a real run ([^;]*' own1/results.md | sed 's/^calibrated on a real run (//')), fitted costs: $(costs own1/results.md)."
echo
echo "Against run 1:"
echo
lines own1.txt
echo
echo "Against run 2:"
echo
lines own2.txt
echo
echo "The costs fitted on all of run 1 ($(costs whole/results.md)), held to run 1:"
echo
lines whole.txt
echo
echo "uuid4's two real runs by fifth of their rows (\`scripts/runs-by-fifth --lsm\`; a compaction's bytes are counted when it ends):"
echo
scripts/runs-by-fifth --lsm uuid4 "run 1=run1/check" "run 2=run2/check"
