#!/usr/bin/env bash
cd /work/main
schemas=.bench/data/kubeconform-schemas
rm -rf $schemas && python3 scripts/gen-kubeconform-schemas.py schemas/gvk $schemas
for round in 1 2 3 4 5; do
  for input in validate-15000-ns1; do
    /usr/bin/time -f "$round $input kubeconform %e %U %S %M" .bench/bin/kubeconform -strict -summary -schema-location "$schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json" .bench/data/$input.yaml > /dev/null 2>>/tmp/kc-raw.txt
    /usr/bin/time -f "$round $input capz-after %e %U %S %M" /tmp/capz-after validate .bench/data/$input.yaml > /dev/null 2>>/tmp/kc-raw.txt
  done
done
echo done >> /tmp/kc-raw.txt
