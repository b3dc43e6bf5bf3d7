# The unique-key check on MyRocks at 10M rows with a 1 GiB block cache: an integer key, a random
# UUIDv4 key, and an integer key with a unique UUIDv4 column beside it, first as MyRocks inserts
# them (every insert looks its unique keys up), then with unique_checks=0 (a safety trade: a
# duplicate key replaces the row it collides with, and pkbench warns).
S=int,uuid4,int+uuid4
pkbench run --engine myrocks -s $S -n 10M --cache-mb 1024 -q -o checked > /dev/null
pkbench run --engine myrocks -s $S -n 10M --cache-mb 1024 --server-setting unique_checks=0 -q -o unchecked > /dev/null 2> unchecked.err
echo "What pkbench printed when the second run started:"
echo
grep -o "unique_checks is off[^;]*;[^.]*" unchecked.err | head -1 | sed 's/^/> /'
echo
echo "#### With the check (unique_checks=1, MyRocks' default)"
echo
sed -n '/^| strategy | first batch/,/^$/p' checked/results.md
echo "#### Without it (unique_checks=0)"
echo
sed -n '/^| strategy | first batch/,/^$/p' unchecked/results.md
echo "#### Time per row, without the check against with it"
echo
pkbench compare checked unchecked --format md
