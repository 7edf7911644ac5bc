// Command trim keeps the CustomResourceDefinitions of the kinds a --crd-pattern names, drops the
// `description` of every schema node and the `status` of the CRD, and writes one file per CRD
// (<group>_<plural>.yaml) so the committed importer inputs stay small. Same rule as the importer's
// strip_descriptions (src/schema/import.rs): only string descriptions of schema nodes go, never a
// property that is named `description`.
//
//	trim -pattern 'group/Kind;group/Kind' -out DIR FILE...   (no -pattern: every CRD)
//	trim -list FILE...   prints `group/Kind version,version` (served versions) of every CRD, sorted
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	pattern := flag.String("pattern", "", "';'-separated group/Kind list (as CAPZ passes ASO's --crd-pattern); empty: keep all")
	out := flag.String("out", "", "output directory")
	list := flag.Bool("list", false, "print the kinds and served versions of the CRDs instead of writing them")
	flag.Parse()
	if (*out == "" && !*list) || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: trim [-pattern P] -out DIR FILE... | trim -list FILE...")
		os.Exit(2)
	}
	if *list {
		listKinds(flag.Args())
		return
	}
	keep := map[string]bool{}
	for _, p := range strings.Split(*pattern, ";") {
		if p = strings.TrimSpace(p); p != "" {
			keep[p] = true
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for _, file := range flag.Args() {
		data, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			var crd map[string]any
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				fail(fmt.Errorf("%s: %w", file, err))
			}
			if crd == nil || crd["kind"] != "CustomResourceDefinition" {
				continue
			}
			spec, _ := crd["spec"].(map[string]any)
			names, _ := spec["names"].(map[string]any)
			group, _ := spec["group"].(string)
			kind, _ := names["kind"].(string)
			plural, _ := names["plural"].(string)
			if len(keep) > 0 && !keep[group+"/"+kind] {
				continue
			}
			delete(crd, "status")
			versions, _ := spec["versions"].([]any)
			for _, v := range versions {
				version, _ := v.(map[string]any)
				schema, _ := version["schema"].(map[string]any)
				if root, ok := schema["openAPIV3Schema"].(map[string]any); ok {
					stripDescriptions(root)
				}
			}
			text, err := yaml.Marshal(crd)
			if err != nil {
				fail(err)
			}
			name := filepath.Join(*out, group+"_"+plural+".yaml")
			if err := os.WriteFile(name, text, 0o644); err != nil {
				fail(err)
			}
		}
	}
}

// listKinds prints `group/Kind version,...` (the served versions, in the CRD's order) of every CRD in files, sorted.
func listKinds(files []string) {
	var lines []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			var crd map[string]any
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				fail(fmt.Errorf("%s: %w", file, err))
			}
			if crd == nil || crd["kind"] != "CustomResourceDefinition" {
				continue
			}
			spec, _ := crd["spec"].(map[string]any)
			names, _ := spec["names"].(map[string]any)
			var served []string
			versions, _ := spec["versions"].([]any)
			for _, v := range versions {
				version, _ := v.(map[string]any)
				if version["served"] == true {
					served = append(served, fmt.Sprint(version["name"]))
				}
			}
			lines = append(lines, fmt.Sprintf("%v/%v %s", spec["group"], names["kind"], strings.Join(served, ",")))
		}
	}
	sort.Strings(lines)
	for _, line := range lines {
		fmt.Println(line)
	}
}

// stripDescriptions removes the string `description` of a schema node and of every node below it.
func stripDescriptions(node map[string]any) {
	if _, ok := node["description"].(string); ok {
		delete(node, "description")
	}
	for _, key := range []string{"properties", "patternProperties", "definitions"} {
		if children, ok := node[key].(map[string]any); ok {
			for _, child := range children {
				if m, ok := child.(map[string]any); ok {
					stripDescriptions(m)
				}
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "additionalItems"} {
		if m, ok := node[key].(map[string]any); ok {
			stripDescriptions(m)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf", "items"} {
		if list, ok := node[key].([]any); ok {
			for _, child := range list {
				if m, ok := child.(map[string]any); ok {
					stripDescriptions(m)
				}
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "trim:", err)
	os.Exit(1)
}
