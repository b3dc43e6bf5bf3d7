# A billion rows of the default strategies on each server model, counts only: the automatic scale
# model (within 25M simulated rows) against 1/16 (within 100M, what the automatic scale allowed
# before), timed, then the counts of one against the other.
/usr/bin/time -f "pg:pkbench predict --engine postgres -n 1G %e %M" -a -o time.txt pkbench predict --engine postgres -n 1G -q -o pg > /dev/null
/usr/bin/time -f "pg16:pkbench predict --engine postgres -n 1G --scale 16 %e %M" -a -o time.txt pkbench predict --engine postgres -n 1G --scale 16 -q -o pg16 > /dev/null
/usr/bin/time -f "my:pkbench predict --engine mariadb -n 1G %e %M" -a -o time.txt pkbench predict --engine mariadb -n 1G -q -o my > /dev/null
/usr/bin/time -f "my16:pkbench predict --engine mariadb -n 1G --scale 16 %e %M" -a -o time.txt pkbench predict --engine mariadb -n 1G --scale 16 -q -o my16 > /dev/null
scripts/time-table time.txt
echo
echo "PostgreSQL model:"
echo
scripts/model-vs-real pg/results.json pg16/results.json --labels "scale 1/16,automatic"
echo
echo "InnoDB model:"
echo
scripts/model-vs-real my/results.json my16/results.json --labels "scale 1/16,automatic"
