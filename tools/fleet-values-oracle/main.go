// Command fleet-values-oracle merges the Helm values of the Fleet bundle cases of cases.input.json as Fleet does
// and prints each outcome as JSON: the values the default target's and the customized target's Helm releases are
// installed with.
//
// The merge is wrangler's data.MergeMaps (github.com/rancher/wrangler/v3 v3.7.1, the version rancher/fleet's
// go.mod pins), called in the order of Fleet's own code, copied here with the places it comes from because the
// Go module proxy does not serve github.com/rancher/fleet itself (every version answers 403):
//   - internal/bundlereader/resources.go parseValuesFiles and generateValues: a helm block's values are its
//     `values`, then each of its `valuesFiles` merged over them in order, kept only when not empty;
//   - internal/cmd/controller/options/calculate.go Merge: the target's values merged over the bundle's;
//   - pkg/apis/fleet.cattle.io/v1alpha1 GenericMap: fleet.yaml and values files are read with sigs.k8s.io/yaml
//     (YAML 1.1 to JSON) into a map by encoding/json.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/rancher/wrangler/v3/pkg/data"
	"sigs.k8s.io/yaml"
)

// block is one helm block of fleet.yaml: its `values` as YAML text ("" when absent) and the texts of its
// `valuesFiles`, in order.
type block struct {
	Values      string   `json:"values"`
	ValuesFiles []string `json:"valuesFiles"`
}

type testCase struct {
	Name   string `json:"name"`
	Bundle block  `json:"bundle"`
	Target *block `json:"target,omitempty"`
}

type outcome struct {
	testCase
	Default    map[string]any `json:"default"`
	Customized map[string]any `json:"customized,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// genericMap reads YAML text as GenericMap.UnmarshalJSON does after sigs.k8s.io/yaml's conversion.
func genericMap(text string) (map[string]any, error) {
	if text == "" {
		return nil, nil
	}
	converted, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	values := map[string]any{}
	if err := json.Unmarshal(converted, &values); err != nil {
		return nil, err
	}
	return values, nil
}

// helmValues is parseValuesFiles over generateValues (resources.go).
func helmValues(b block) (map[string]any, error) {
	values, err := genericMap(b.Values)
	if err != nil {
		return nil, err
	}
	if len(b.ValuesFiles) == 0 {
		return values, nil
	}
	valuesMap := values
	if valuesMap == nil {
		valuesMap = map[string]any{}
	}
	for _, file := range b.ValuesFiles {
		tmp, err := genericMap(file)
		if err != nil {
			return nil, err
		}
		valuesMap = data.MergeMaps(valuesMap, tmp)
	}
	if len(valuesMap) != 0 {
		return valuesMap, nil
	}
	return values, nil
}

// merge is the values part of options.Merge (calculate.go).
func merge(base, custom map[string]any) map[string]any {
	if base == nil {
		return custom
	}
	if custom != nil {
		return data.MergeMaps(base, custom)
	}
	return base
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fleet-values-oracle cases.input.json")
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cases []testCase
	if err := json.Unmarshal(text, &cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	outcomes := []outcome{}
	for _, c := range cases {
		o := outcome{testCase: c}
		base, err := helmValues(c.Bundle)
		if err != nil {
			o.Error = err.Error()
			outcomes = append(outcomes, o)
			continue
		}
		o.Default = base
		if c.Target != nil {
			custom, err := helmValues(*c.Target)
			if err != nil {
				o.Error = err.Error()
			} else {
				o.Customized = merge(base, custom)
			}
		}
		outcomes = append(outcomes, o)
	}
	out, err := json.MarshalIndent(outcomes, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(string(out))
}
