s=$SECONDS
pkbench run --engine postgres -s int,uuid4 -n 3M -b 300k --cache-mb 16 --counter-budget unlimited -q -o unlimited > /dev/null
echo "unlimited $((SECONDS - s))" >> wall.txt
s=$SECONDS
pkbench run --engine postgres -s int,uuid4 -n 3M -b 300k --cache-mb 16 -q -o default > /dev/null
echo "default $((SECONDS - s))" >> wall.txt
scripts/run-cost wall.txt
