# What a random key's bloom filter checks cost: one real uuid4 run of 5M rows (a calibration as
# large as its target, so its block cache is the target's), and the calibrated model's costs
# fitted on its batches, on all of them and on its first 1M rows only (what a calibration for a
# 10M-row target sees); each forecast held to the run.
pkbench predict --engine myrocks -s uuid4 -n 5M -b 25k --cache-mb 1024 --calibrate --calibrate-rows 5M -q -o run > /dev/null
pkbench predict --engine myrocks -s uuid4 -n 5M -b 25k --cache-mb 1024 --calibrate-rows 1M --calibrate-from run/calibration/results.json --check-from run/calibration/results.json -o first > first.txt 2> first.err || true
pkbench predict --engine myrocks -s uuid4 -n 5M -b 25k --cache-mb 1024 --calibrate-rows 5M --calibrate-from run/calibration/results.json --check-from run/calibration/results.json -o all > all.txt 2> /dev/null
if [ -f first/results.md ]; then
  echo "- Fitted on the first 1M rows: $(grep -o 'ones): [^;]*' first/results.md | sed 's/^ones): //')."
  echo "  Against the run: $(grep -E '^uuid4, last [0-9]+ batches' first.txt)"
else
  refused=$(grep -o 'the calibration cannot.*' first.err) || { cat first.err >&2; exit 1; }
  echo "- Fitted on the first 1M rows: refused. pkbench printed: \"$refused\""
fi
echo "- Fitted on all 5M rows: $(grep -o 'ones): [^;]*' all/results.md | sed 's/^ones): //')."
echo "  Against the run: $(grep -E '^uuid4, last [0-9]+ batches' all.txt)"
