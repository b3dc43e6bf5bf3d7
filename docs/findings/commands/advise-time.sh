trap "scripts/orders-server stop pg; scripts/orders-server stop my" EXIT
/usr/bin/time -f "typical:pkbench advise %e %M" -a -o time.txt pkbench advise -q -o typical > /dev/null
pg=$(scripts/orders-server start postgres pg)
/usr/bin/time -f "postgres:pkbench advise --url postgresql://…/postgres --table orders %e %M" -a -o time.txt pkbench advise --url "$pg" --table orders -q -o postgres > /dev/null
scripts/orders-server stop pg
my=$(scripts/orders-server start mariadb my)
/usr/bin/time -f "mariadb:pkbench advise --url mysql://…/shop --table orders %e %M" -a -o time.txt pkbench advise --url "$my" --table orders -q -o mariadb > /dev/null
scripts/orders-server stop my
my=$(scripts/orders-server start mariadb my binary)
/usr/bin/time -f "mariadb-binary:pkbench advise --url mysql://…/shop --table orders  # a BINARY(16) key %e %M" -a -o time.txt pkbench advise --url "$my" --table orders -q -o mariadb-binary > /dev/null
scripts/orders-server stop my
/usr/bin/time -f "contention:pkbench advise -s int,uuid7,uuid4 -n 10M --insert-rate 2k %e %M" -a -o time.txt pkbench advise -s int,uuid7,uuid4 -n 10M --insert-rate 2k -q -o contention > /dev/null
scripts/time-table time.txt
