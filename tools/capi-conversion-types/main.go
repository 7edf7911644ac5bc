// Command capi-conversion-types reduces Cluster API v1.14.2's CRDs to the field and type tree
// `kubectl capz convert` needs (src/convert/capi/types.json): which fields each served version
// declares and their JSON types, so the conversion drops unknown fields and refuses wrong types
// as the typed Go decoding in CAPI's conversion webhook does.
//
// Usage: go run . <dir of sigs.k8s.io/cluster-api@v1.14.2> > types.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/yaml"
)

// node is one schema node: type, properties, items, additionalProperties, and whether any value
// is accepted (x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string).
type node struct {
	Type  string           `json:"t,omitempty"`
	Props map[string]*node `json:"p,omitempty"`
	Items *node            `json:"i,omitempty"`
	Addl  *node            `json:"a,omitempty"`
	Any   bool             `json:"u,omitempty"`
}

func reduce(schema map[string]interface{}) *node {
	n := &node{}
	if t, ok := schema["type"].(string); ok {
		n.Type = t
	}
	if v, ok := schema["x-kubernetes-preserve-unknown-fields"].(bool); ok && v {
		n.Any = true
	}
	if v, ok := schema["x-kubernetes-int-or-string"].(bool); ok && v {
		n.Any = true
	}
	if props, ok := schema["properties"].(map[string]interface{}); ok {
		n.Props = map[string]*node{}
		for name, child := range props {
			if c, ok := child.(map[string]interface{}); ok {
				n.Props[name] = reduce(c)
			}
		}
	}
	if items, ok := schema["items"].(map[string]interface{}); ok {
		n.Items = reduce(items)
	}
	if addl, ok := schema["additionalProperties"].(map[string]interface{}); ok {
		n.Addl = reduce(addl)
	} else if addl, ok := schema["additionalProperties"].(bool); ok && addl {
		n.Addl = &node{Any: true}
	}
	return n
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: capi-conversion-types <cluster-api module dir>")
		os.Exit(2)
	}
	root := os.Args[1]
	var files []string
	for _, dir := range []string{"core", "bootstrap/kubeadm", "controlplane/kubeadm"} {
		matches, err := filepath.Glob(filepath.Join(root, dir, "config/crd/bases/*.yaml"))
		if err != nil {
			panic(err)
		}
		files = append(files, matches...)
	}
	sort.Strings(files)
	out := map[string]*node{}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]interface{} `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(text, &crd); err != nil {
			panic(fmt.Errorf("%s: %w", file, err))
		}
		for _, version := range crd.Spec.Versions {
			if version.Name != "v1beta1" && version.Name != "v1beta2" {
				continue
			}
			key := crd.Spec.Group + "/" + version.Name + "/" + crd.Spec.Names.Kind
			out[key] = reduce(version.Schema.OpenAPIV3Schema)
		}
	}
	encoded, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(encoded)
	os.Stdout.Write([]byte("\n"))
}
