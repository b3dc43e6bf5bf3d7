trap "scripts/orders-server stop my" EXIT
my=$(scripts/orders-server start mariadb my)
/usr/bin/time -f "each:pkbench advise --url mysql://…/shop --table orders --calibrate-each %e %M" -a -o time.txt pkbench advise --url "$my" --table orders --calibrate-each -q -o each > /dev/null
/usr/bin/time -f "again:pkbench advise --url mysql://…/shop --table orders --calibrate-each %e %M" -a -o time.txt pkbench advise --url "$my" --table orders --calibrate-each -q -o again > /dev/null
/usr/bin/time -f "shared:pkbench advise --url mysql://…/shop --table orders %e %M" -a -o time.txt pkbench advise --url "$my" --table orders -q -o shared > /dev/null
/usr/bin/time -f "fewer:pkbench advise --url mysql://…/shop --table orders --calibrate-each --calibrate-rows 120k %e %M" -a -o time.txt pkbench advise --url "$my" --table orders --calibrate-each --calibrate-rows 120k -q -o fewer > /dev/null
scripts/time-table time.txt
echo
scripts/advise-vs-advise --markdown --labels "each,each again,shared runs,each 120k" each again shared fewer
