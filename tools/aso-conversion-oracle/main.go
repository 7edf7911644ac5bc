// Command aso-conversion-oracle converts ASO objects between API versions with Azure Service Operator's own
// generated conversion code, as its conversion webhook does: the source object (typed, of version A) ConvertTo the
// kind's hub (its storage version), then a fresh object of version B ConvertFrom the hub. It reads the cases
// gen_cases.py writes (one JSON object per line: name, origin, group, kind, from, to, input) on stdin and writes
// the recordings on stdout: a header line, then each case with `input` as ASO's Go type marshals it and `outputs`
// (version -> object, or {"error": ...}). `status` and `metadata.creationTimestamp` are left out.
// The ASO packages of the release are registered by kinds_<release>.go (a build tag per release).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

type inputCase struct {
	Name   string          `json:"name"`
	Origin string          `json:"origin"`
	Group  string          `json:"group"`
	Kind   string          `json:"kind"`
	From   string          `json:"from"`
	To     []string        `json:"to"`
	Input  json.RawMessage `json:"input"`
}

type recorded struct {
	Name    string                     `json:"name"`
	Origin  string                     `json:"origin"`
	Group   string                     `json:"group"`
	Kind    string                     `json:"kind"`
	From    string                     `json:"from"`
	Input   map[string]any             `json:"input"`
	Outputs map[string]map[string]any  `json:"outputs"`
}

// hub finds the kind's hub type among the scheme's versions of the group.
func hub(scheme *runtime.Scheme, group, kind string) (conversion.Hub, error) {
	for gvk := range scheme.AllKnownTypes() {
		if gvk.Group != group || gvk.Kind != kind {
			continue
		}
		obj, err := scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if h, ok := obj.(conversion.Hub); ok {
			return h, nil
		}
	}
	return nil, fmt.Errorf("no hub for %s/%s", group, kind)
}

// plain marshals an object and drops what the recordings leave out.
func plain(obj runtime.Object) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	delete(out, "status")
	if meta, ok := out["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return out, nil
}

func typed(scheme *runtime.Scheme, group, version, kind string) (conversion.Convertible, error) {
	gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(conversion.Convertible)
	if !ok {
		return nil, fmt.Errorf("%v is not convertible", gvk)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return c, nil
}

func convert(scheme *runtime.Scheme, c inputCase, to string) (map[string]any, error) {
	src, err := typed(scheme, c.Group, c.From, c.Kind)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(c.Input, src); err != nil {
		return nil, fmt.Errorf("decoding the input: %w", err)
	}
	h, err := hub(scheme, c.Group, c.Kind)
	if err != nil {
		return nil, err
	}
	if err := src.ConvertTo(h); err != nil {
		return nil, err
	}
	dst, err := typed(scheme, c.Group, to, c.Kind)
	if err != nil {
		return nil, err
	}
	if err := dst.ConvertFrom(h); err != nil {
		return nil, err
	}
	dst.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Group: c.Group, Version: to, Kind: c.Kind})
	return plain(dst)
}

func main() {
	release := flag.String("aso", "", "the ASO release the packages come from")
	revision := flag.String("revision", "", "its revision, as the proxy reports it")
	flag.Parse()
	scheme := runtime.NewScheme()
	if err := register(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	header, _ := json.Marshal(map[string]string{
		"aso":          *release,
		"module":       "github.com/Azure/azure-service-operator/v2@" + *release,
		"revision":     *revision,
		"generated_by": "tools/aso-conversion-oracle/regen.sh",
	})
	fmt.Fprintln(out, string(header))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var c inputCase
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, "bad case:", err)
			os.Exit(2)
		}
		src, err := typed(scheme, c.Group, c.From, c.Kind)
		if err != nil {
			fmt.Fprintln(os.Stderr, c.Name, err)
			os.Exit(2)
		}
		if err := json.Unmarshal(c.Input, src); err != nil {
			fmt.Fprintln(os.Stderr, c.Name, "decoding:", err)
			os.Exit(2)
		}
		input, err := plain(src.(runtime.Object))
		if err != nil {
			fmt.Fprintln(os.Stderr, c.Name, err)
			os.Exit(2)
		}
		normalized, _ := json.Marshal(input)
		c.Input = normalized
		rec := recorded{Name: c.Name, Origin: c.Origin, Group: c.Group, Kind: c.Kind, From: c.From, Input: input,
			Outputs: map[string]map[string]any{}}
		for _, to := range c.To {
			converted, err := convert(scheme, c, to)
			if err != nil {
				converted = map[string]any{"error": err.Error()}
			}
			rec.Outputs[to] = converted
		}
		line, err := json.Marshal(rec)
		if err != nil {
			fmt.Fprintln(os.Stderr, c.Name, err)
			os.Exit(2)
		}
		fmt.Fprintln(out, string(line))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
