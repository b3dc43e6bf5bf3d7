# Where the LSM model says the two keys go at 100M rows (bytes and levels; no time).
pkbench predict --engine myrocks -s int,uuid4 -n 100M -q -o model > /dev/null
sed -e '/^# pkbench results/d' -e '/^!\[/d' -e '/^Command: `/d' -e '/^## Environment/,$d' -e 's/^#/##/' model/results.md
