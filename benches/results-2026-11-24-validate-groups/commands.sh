#!/usr/bin/env bash
cd /work/main
[ -s .bench/data/validate-15000.yaml ] || CAPZ=/tmp/capz-before scripts/gen-bundle.sh 15000 .bench/data/validate-15000.yaml
for round in 1 2 3 4 5; do
  for input in validate-15000-ns1 validate-15000; do
    for b in /tmp/capz-after /tmp/capz-before; do
      /usr/bin/time -f "$round $input $(basename $b) %e %U %S %M" $b validate .bench/data/$input.yaml > /dev/null 2>>/tmp/rss-raw.txt
    done
  done
done
echo done >> /tmp/rss-raw.txt
