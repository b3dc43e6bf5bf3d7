trap "scripts/orders-server stop my" EXIT
my=$(scripts/orders-server start mariadb my)
/usr/bin/time -f "first:pkbench advise --url mysql://…/shop --table orders %e %M" -a -o time.txt pkbench advise --url "$my" --table orders -q -o first > /dev/null
/usr/bin/time -f "again:pkbench advise --url mysql://…/shop --table orders %e %M" -a -o time.txt pkbench advise --url "$my" --table orders -q -o again > /dev/null
/usr/bin/time -f "fewer:pkbench advise --url mysql://…/shop --table orders --calibrate-rows 120k %e %M" -a -o time.txt pkbench advise --url "$my" --table orders --calibrate-rows 120k -q -o fewer > /dev/null
scripts/time-table time.txt
echo
scripts/advise-vs-advise --markdown --labels "200k,200k again,120k" first again fewer
