// Command argocd-normalizer-oracle runs Argo CD's own ignoreDifferences normalizer
// (github.com/argoproj/argo-cd/v3/util/argo/normalizers, the code Argo CD's controller runs before it
// compares Git with the cluster) over the cases of an input file and prints what it leaves of each object.
//
//	argocd-normalizer-oracle INPUT.json > OUTPUT.json
//
// INPUT: {"cases": [{"name": ..., "ignoreDifferences": [...], "objects": {"git": {...}, "live": {...}}}]}
// OUTPUT: the same cases with "normalized": {"git": {...}, "live": {...}}.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type testCase struct {
	Name              string                               `json:"name"`
	IgnoreDifferences []v1alpha1.ResourceIgnoreDifferences `json:"ignoreDifferences"`
	Objects           map[string]map[string]any            `json:"objects"`
	Normalized        map[string]map[string]any            `json:"normalized,omitempty"`
}

type file struct {
	Note  string     `json:"note,omitempty"`
	Cases []testCase `json:"cases"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "argocd-normalizer-oracle:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: argocd-normalizer-oracle INPUT.json")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var input file
	if err := json.Unmarshal(data, &input); err != nil {
		return err
	}
	for i := range input.Cases {
		c := &input.Cases[i]
		normalizer, err := normalizers.NewIgnoreNormalizer(c.IgnoreDifferences, nil, normalizers.IgnoreNormalizerOpts{})
		if err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
		c.Normalized = map[string]map[string]any{}
		for side, object := range c.Objects {
			un := &unstructured.Unstructured{Object: object}
			if err := normalizer.Normalize(un); err != nil {
				return fmt.Errorf("case %s (%s): %w", c.Name, side, err)
			}
			c.Normalized[side] = un.Object
		}
	}
	input.Note = "Recorded by tools/argocd-normalizer-oracle (Argo CD v3.2.12's ignoreDifferences normalizer); regenerate with tools/argocd-normalizer-oracle/regen.sh"
	out, err := json.MarshalIndent(input, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}
