# The calibrated forecast of insert time held to the real run its --check makes (run 1), then the
# same forecast (the same calibration) held to a second real run of the same settings (run 2);
# the two real runs held to each other are the noise floor.
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate --calibrate-rows 1M --check 10M -o run1 > check1.txt 2> /dev/null
pkbench predict --engine myrocks -s int,uuid7,uuid4 -n 10M -b 25k --cache-mb 1024 --calibrate-rows 1M --calibrate-from run1/calibration/results.json --check 10M -o run2 > check2.txt 2> /dev/null
echo "The calibration's fitted costs (µs, 90% ranges): $(grep -o 'ones): [^;]*' run1/results.md | sed 's/^ones): //')."
echo
echo "The forecast against run 1:"
echo
grep -E '^[a-z0-9+-]+, last [0-9]+ batches|^  [0-9]+ of them ran' check1.txt | sed -e 's/^  /  - /' -e 's/^\([a-z0-9]\)/- \1/'
echo
echo "The same forecast against run 2:"
echo
grep -E '^[a-z0-9+-]+, last [0-9]+ batches|^  [0-9]+ of them ran' check2.txt | sed -e 's/^  /  - /' -e 's/^\([a-z0-9]\)/- \1/'
echo
echo "The noise floor, the two real runs held to each other:"
echo
scripts/real-vs-real 0.30 run1/check run2/check
