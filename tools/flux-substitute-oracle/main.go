// Command flux-substitute-oracle runs Flux's own post-build substitution
// (github.com/fluxcd/pkg/kustomize.SubstituteVariables, the code the
// kustomize-controller and `flux build kustomization` run) over the cases of
// cases.input.json and prints the outcome of each as JSON: the substituted
// object, nothing (substitution disabled by annotation or label), or the error.
//
// The variables of a case are given as the Kustomization's
// spec.postBuild.substitute in dry-run mode (no cluster: substituteFrom is
// merged by the caller, as LoadVariables does).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/provider"
)

type testCase struct {
	Name   string            `json:"name"`
	Object string            `json:"object"`
	Vars   map[string]string `json:"vars"`
	Strict bool              `json:"strict"`
}

type outcome struct {
	Name     string            `json:"name"`
	Object   string            `json:"object"`
	Vars     map[string]string `json:"vars"`
	Strict   bool              `json:"strict"`
	Output   json.RawMessage   `json:"output,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	Error    string            `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: flux-substitute-oracle cases.input.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	factory := provider.NewDefaultDepProvider().GetResourceFactory()
	var outcomes []outcome
	for _, c := range cases {
		o := outcome{Name: c.Name, Object: c.Object, Vars: c.Vars, Strict: c.Strict}
		res, err := factory.FromBytes([]byte(c.Object))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.Name, err)
			os.Exit(2)
		}
		substitute := map[string]interface{}{}
		for k, v := range c.Vars {
			substitute[k] = v
		}
		spec := map[string]interface{}{}
		if len(c.Vars) > 0 {
			spec["postBuild"] = map[string]interface{}{"substitute": substitute}
		}
		ks := unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
			"kind":       "Kustomization",
			"metadata":   map[string]interface{}{"name": "oracle", "namespace": "flux-system"},
			"spec":       spec,
		}}
		out, err := kustomize.SubstituteVariables(context.Background(), nil, ks, res,
			kustomize.SubstituteWithDryRun(true), kustomize.SubstituteWithStrict(c.Strict))
		switch {
		case err != nil:
			o.Error = err.Error()
		case out == nil:
			o.Disabled = true
		default:
			j, err := out.MarshalJSON()
			if err != nil {
				o.Error = "marshal: " + err.Error()
			} else {
				o.Output = j
			}
		}
		outcomes = append(outcomes, o)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(outcomes); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
