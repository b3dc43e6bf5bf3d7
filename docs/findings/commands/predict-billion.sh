s=$SECONDS
pkbench predict -n 1G --calibrate -q -o sqlite > sqlite.txt
echo "sqlite $((SECONDS - s))" >> wall.txt
s=$SECONDS
pkbench predict --engine postgres -n 1G --calibrate -q -o postgres > postgres.txt
echo "postgres $((SECONDS - s))" >> wall.txt
s=$SECONDS
pkbench predict --engine mariadb -n 1G --calibrate -q -o mariadb > mariadb.txt
echo "mariadb $((SECONDS - s))" >> wall.txt
scripts/forecast-cost wall.txt
