S=int,uuid7,uuid4,uuid4-text,int+uuid4
pkbench run --engine postgres -s $S -n 1M -b 100k --cache-mb 16 -q -o pg-real > /dev/null
pkbench predict --engine postgres -s $S -n 1M -b 100k --cache-mb 16 --exact -q -o pg-model > /dev/null
pkbench run --engine mariadb -s $S -n 1M -b 100k --cache-mb 16 -q -o innodb-real > /dev/null
pkbench predict --engine mariadb -s $S -n 1M -b 100k --cache-mb 16 --exact -q -o innodb-model > /dev/null
echo "PostgreSQL:"
scripts/model-vs-real pg-model/results.json pg-real/results.json
echo
echo "InnoDB:"
scripts/model-vs-real innodb-model/results.json innodb-real/results.json
