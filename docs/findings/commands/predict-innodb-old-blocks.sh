S=uuid4,int+uuid4
pkbench run --engine mariadb -s $S -n 1M -b 100k --cache-mb 16 --server-setting innodb_old_blocks_time=0 -q -o real > /dev/null
pkbench predict --engine mariadb -s $S -n 1M -b 100k --cache-mb 16 --exact -q -o model > /dev/null
scripts/model-vs-real model/results.json real/results.json --after-first --labels "real (innodb_old_blocks_time=0),model"
