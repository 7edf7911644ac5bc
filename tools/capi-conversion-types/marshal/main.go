// Command marshal records how encoding/json writes CAPI v1.14.2's v1beta2 Go types (the hub types
// the conversion webhooks produce): per struct, each JSON field with omitempty / omitzero and its
// type (struct, pointer, slice, map, scalar, or a type with its own JSON form). `kubectl capz
// convert` replays it to drop exactly what the typed round trip drops.
//
// Usage: go run ./marshal > marshal.json
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Type is one Go type as encoding/json sees it.
type Type struct {
	// k: struct (fields in "types" under r), ptr, slice, map, string, int, bool, float,
	// custom (own MarshalJSON), interface.
	Kind string `json:"k"`
	Ref  string `json:"r,omitempty"`
	Elem *Type  `json:"e,omitempty"`
	// z: the type has an IsZero method (used by omitzero).
	HasIsZero bool `json:"z,omitempty"`
}

// Field is one JSON field of a struct.
type Field struct {
	Name      string `json:"n"`
	OmitEmpty bool   `json:"oe,omitempty"`
	OmitZero  bool   `json:"oz,omitempty"`
	Type      *Type  `json:"t"`
}

var (
	marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	isZeroer  = reflect.TypeOf((*interface{ IsZero() bool })(nil)).Elem()
	structs   = map[string][]Field{}
)

func name(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func describe(t reflect.Type) *Type {
	hasIsZero := t.Implements(isZeroer)
	if t.Kind() != reflect.Ptr && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)) {
		return &Type{Kind: "custom", HasIsZero: hasIsZero}
	}
	switch t.Kind() {
	case reflect.Ptr:
		return &Type{Kind: "ptr", Elem: describe(t.Elem())}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Type{Kind: "string"}
		}
		return &Type{Kind: "slice", Elem: describe(t.Elem())}
	case reflect.Map:
		return &Type{Kind: "map", Elem: describe(t.Elem())}
	case reflect.String:
		return &Type{Kind: "string"}
	case reflect.Bool:
		return &Type{Kind: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Type{Kind: "int"}
	case reflect.Float32, reflect.Float64:
		return &Type{Kind: "float"}
	case reflect.Interface:
		return &Type{Kind: "interface"}
	case reflect.Struct:
		key := name(t)
		if _, seen := structs[key]; !seen {
			structs[key] = nil // break recursion
			structs[key] = fields(t)
		}
		return &Type{Kind: "struct", Ref: key, HasIsZero: hasIsZero}
	}
	panic("unhandled kind " + t.Kind().String())
}

func fields(t reflect.Type) []Field {
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		if f.Anonymous && parts[0] == "" {
			inner := f.Type
			if inner.Kind() == reflect.Ptr {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				out = append(out, fields(inner)...)
				continue
			}
		}
		field := Field{Name: parts[0], Type: describe(f.Type)}
		if field.Name == "" {
			field.Name = f.Name
		}
		for _, option := range parts[1:] {
			switch option {
			case "omitempty":
				field.OmitEmpty = true
			case "omitzero":
				field.OmitZero = true
			}
		}
		out = append(out, field)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func main() {
	roots := map[string]string{}
	objects := []runtime.Object{
		&clusterv1.Cluster{}, &clusterv1.ClusterClass{}, &clusterv1.Machine{}, &clusterv1.MachineSet{},
		&clusterv1.MachineDeployment{}, &clusterv1.MachinePool{}, &clusterv1.MachineHealthCheck{},
		&clusterv1.MachineDrainRule{}, &bootstrapv1.KubeadmConfig{}, &bootstrapv1.KubeadmConfigTemplate{},
		&controlplanev1.KubeadmControlPlane{}, &controlplanev1.KubeadmControlPlaneTemplate{},
		&addonsv1.ClusterResourceSet{}, &addonsv1.ClusterResourceSetBinding{},
	}
	groups := map[string]string{
		"sigs.k8s.io/cluster-api/api/core/v1beta2":                 "cluster.x-k8s.io",
		"sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2":    "bootstrap.cluster.x-k8s.io",
		"sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2": "controlplane.cluster.x-k8s.io",
		"sigs.k8s.io/cluster-api/api/addons/v1beta2":               "addons.cluster.x-k8s.io",
	}
	for _, object := range objects {
		t := reflect.TypeOf(object).Elem()
		describe(t)
		roots[groups[t.PkgPath()]+"/v1beta2/"+t.Name()] = name(t)
	}
	encoded, err := json.Marshal(map[string]interface{}{"roots": roots, "structs": structs})
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(encoded)
	os.Stdout.Write([]byte("\n"))
}
