S=int,uuid7,uuid4,uuid4-text,int+uuid4
pkbench run -s $S -n 1M -b 100k -q -o real > /dev/null
pkbench predict -s $S -n 1M -b 100k --exact -q -o model > /dev/null
scripts/model-vs-real model/results.json real/results.json
