S=uuid4,uuid4-text,int+uuid4,int,uuid7
pkbench predict -s $S -n 10M -b 100k --exact -q -o exact > /dev/null
pkbench predict -s $S -n 10M -b 100k --scale 16 -q -o scaled > /dev/null
scripts/model-vs-real scaled/results.json exact/results.json --labels "exact,scale 1/16"
