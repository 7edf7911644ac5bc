// Command capz-translation-oracle records the ASO objects a CAPZ release's controllers create on the first
// reconcile of a classic AKS cluster (AzureManagedControlPlane, AzureManagedCluster, AzureManagedMachinePools
// with their Cluster and MachinePools). It runs CAPZ's own code on a controller-runtime fake client:
// the defaulting webhooks (internal/webhooks Default), the scopes (azure/scope ManagedControlPlaneScope /
// ManagedMachinePoolScope: GroupSpecs, ManagedClusterSpec, AgentPoolSpec) and the ASO reconciler
// (azure/services/aso CreateOrUpdateResource, which calls PatchedParameters, sets owner, labels, annotations and
// tags), then reads each created object back from the fake client. No Azure calls are made.
//
// It is built inside a copy of CAPZ's module source (see tools/capz-translation-oracle/regen.sh).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	asocontainerservicev1 "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asocontainerservicev1preview "github.com/Azure/azure-service-operator/v2/api/containerservice/v20251002preview"
	asoresourcesv1 "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	sigsyaml "sigs.k8s.io/yaml"

	infrav1 "sigs.k8s.io/cluster-api-provider-azure/api/v1beta1"
	"sigs.k8s.io/cluster-api-provider-azure/azure"
	"sigs.k8s.io/cluster-api-provider-azure/azure/scope"
	"sigs.k8s.io/cluster-api-provider-azure/azure/services/aso"
	"sigs.k8s.io/cluster-api-provider-azure/internal/webhooks"
)

type recording struct {
	Case    string            `json:"case"`
	Objects []json.RawMessage `json:"objects,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// recordings is the whole output: a header saying what was built, then the cases.
type recordings struct {
	Referee string `json:"referee"`
	// CAPZ is the CAPZ release whose module source the harness was built in (regen.sh's argument).
	CAPZ string `json:"capz"`
	// CAPI and ASO are the versions of those modules in the build's module graph (`go list -m` in the copy; ASO's
	// as CAPZ's go.mod requires it).
	CAPI string `json:"capi"`
	ASO  string `json:"aso"`
	// ASOReplace is the replace directive the build used for ASO, when CAPZ's pinned ASO release could not be had.
	ASOReplace string      `json:"aso_replace,omitempty"`
	Cases      []recording `json:"cases"`
}

func main() {
	cases := flag.String("cases", "", "directory of classic bundles (*.yaml)")
	module := flag.String("module", ".", "the CAPZ module source (for config/crd/bases)")
	capzVersion := flag.String("capz-version", "", "the CAPZ release the module copy is (for the header)")
	capiVersion := flag.String("capi-version", "", "the CAPI version in the build's module graph (for the header)")
	asoVersion := flag.String("aso-version", "", "the ASO version CAPZ's go.mod requires (for the header)")
	asoReplace := flag.String("aso-replace", "", "the replace directive the build used for ASO, if any (for the header)")
	flag.Parse()
	for kind, file := range map[string]string{
		"AzureManagedControlPlane": "infrastructure.cluster.x-k8s.io_azuremanagedcontrolplanes.yaml",
		"AzureManagedMachinePool":  "infrastructure.cluster.x-k8s.io_azuremanagedmachinepools.yaml",
	} {
		schema, err := loadSchema(filepath.Join(*module, "config", "crd", "bases", file))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		crdSchemas[kind] = schema
	}
	files, err := filepath.Glob(filepath.Join(*cases, "*.yaml"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "no cases in %s\n", *cases)
		os.Exit(2)
	}
	sort.Strings(files)
	out := recordings{
		Referee:    "sigs.k8s.io/cluster-api-provider-azure@" + *capzVersion + " translation, driven by tools/capz-translation-oracle",
		CAPZ:       *capzVersion,
		CAPI:       *capiVersion,
		ASO:        *asoVersion,
		ASOReplace: *asoReplace,
		Cases:      []recording{},
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		objs, err := record(f)
		rec := recording{Case: name}
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.Objects = objs
		}
		out.Cases = append(out.Cases, rec)
	}
	data, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(data))
}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, infrav1.AddToScheme, clusterv1.AddToScheme,
		asoresourcesv1.AddToScheme, asocontainerservicev1.AddToScheme, asocontainerservicev1preview.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

type bundle struct {
	cluster      map[string]any
	controlPlane *infrav1.AzureManagedControlPlane
	pools        map[string]*infrav1.AzureManagedMachinePool
	machinePools []map[string]any
}

func load(path string) (*bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	b := &bundle{pools: map[string]*infrav1.AzureManagedMachinePool{}}
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, err
		}
		if doc == nil {
			continue
		}
		raw, _ := json.Marshal(doc)
		switch doc["kind"] {
		case "Cluster":
			b.cluster = doc
		case "MachinePool":
			b.machinePools = append(b.machinePools, doc)
		case "AzureManagedControlPlane":
			applyDefaults(doc, crdSchemas["AzureManagedControlPlane"])
			raw, _ = json.Marshal(doc)
			cp := &infrav1.AzureManagedControlPlane{}
			if err := json.Unmarshal(raw, cp); err != nil {
				return nil, err
			}
			b.controlPlane = cp
		case "AzureManagedMachinePool":
			applyDefaults(doc, crdSchemas["AzureManagedMachinePool"])
			raw, _ = json.Marshal(doc)
			p := &infrav1.AzureManagedMachinePool{}
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, err
			}
			b.pools[p.Name] = p
		}
	}
	if b.cluster == nil || b.controlPlane == nil {
		return nil, fmt.Errorf("bundle needs a Cluster and an AzureManagedControlPlane")
	}
	return b, nil
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}

func strs(m map[string]any, path ...string) []string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	list, _ := cur.([]any)
	var out []string
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

func record(path string) ([]json.RawMessage, error) {
	ctx := context.Background()
	b, err := load(path)
	if err != nil {
		return nil, err
	}
	s := newScheme()
	c := fake.NewClientBuilder().WithScheme(s).Build()

	// The defaulting webhooks, as the API server runs them when the objects are created.
	if err := (&webhooks.AzureManagedControlPlaneWebhook{}).Default(ctx, b.controlPlane); err != nil {
		return nil, err
	}
	if err := redefault(b.controlPlane, "AzureManagedControlPlane"); err != nil {
		return nil, err
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{
		Name: str(b.cluster, "metadata", "name"), Namespace: b.controlPlane.Namespace,
	}}
	if pods := strs(b.cluster, "spec", "clusterNetwork", "pods", "cidrBlocks"); pods != nil {
		cluster.Spec.ClusterNetwork.Pods.CIDRBlocks = pods
	}
	if svcs := strs(b.cluster, "spec", "clusterNetwork", "services", "cidrBlocks"); svcs != nil {
		cluster.Spec.ClusterNetwork.Services.CIDRBlocks = svcs
	}

	var managed []scope.ManagedMachinePool
	for _, mp := range b.machinePools {
		infraName := str(mp, "spec", "template", "spec", "infrastructureRef", "name")
		ammp, ok := b.pools[infraName]
		if !ok {
			continue
		}
		if err := (&webhooks.AzureManagedMachinePoolWebhook{}).Default(ctx, ammp); err != nil {
			return nil, err
		}
		if err := redefault(ammp, "AzureManagedMachinePool"); err != nil {
			return nil, err
		}
		machinePool := &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{
			Name: str(mp, "metadata", "name"), Namespace: b.controlPlane.Namespace,
		}}
		if spec, ok := mp["spec"].(map[string]any); ok {
			if r, ok := spec["replicas"].(float64); ok {
				machinePool.Spec.Replicas = ptr.To(int32(r))
			}
		}
		machinePool.Spec.Template.Spec.Version = str(mp, "spec", "template", "spec", "version")
		managed = append(managed, scope.ManagedMachinePool{InfraMachinePool: ammp, MachinePool: machinePool})
	}

	cpScope := &scope.ManagedControlPlaneScope{
		Client: c, Cluster: cluster, ControlPlane: b.controlPlane, ManagedMachinePools: managed,
	}

	var created []client.Object
	for _, spec := range cpScope.GroupSpecs() {
		obj, err := create[*asoresourcesv1.ResourceGroup](ctx, c, cpScope.ClusterName(), cpScope.ASOOwner(), spec)
		if err != nil {
			return nil, err
		}
		created = append(created, obj)
	}
	mc, err := create[genruntime.MetaObject](ctx, c, cpScope.ClusterName(), cpScope.ASOOwner(), cpScope.ManagedClusterSpec())
	if err != nil {
		return nil, err
	}
	created = append(created, mc)
	for _, pool := range managed {
		poolScope := &scope.ManagedMachinePoolScope{
			Client: c, ManagedClusterScoper: cpScope, Cluster: cluster, ControlPlane: b.controlPlane,
			MachinePool: pool.MachinePool, InfraMachinePool: pool.InfraMachinePool,
		}
		ap, err := create[genruntime.MetaObject](ctx, c, cpScope.ClusterName(), poolScope.ASOOwner(), poolScope.AgentPoolSpec())
		if err != nil {
			return nil, err
		}
		created = append(created, ap)
	}

	var out []json.RawMessage
	for _, obj := range created {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		obj.SetResourceVersion("") // a fake-client artifact
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if meta, ok := m["metadata"].(map[string]any); ok {
			delete(meta, "creationTimestamp")
		}
		delete(m, "status")
		// Key order as sigs.k8s.io/yaml would give it: sorted maps.
		y, _ := sigsyaml.Marshal(m)
		j, _ := sigsyaml.YAMLToJSON(y)
		out = append(out, j)
	}
	return out, nil
}

// create runs CAPZ's ASO reconciler for one spec on the empty fake client (the first reconcile) and reads
// back what it created.
func create[T genruntime.MetaObject](ctx context.Context, c client.Client, clusterName string, owner client.Object, spec azure.ASOResourceSpecGetter[T]) (client.Object, error) {
	_, err := aso.New[T](c, clusterName, owner).CreateOrUpdateResource(ctx, spec, "oracle")
	if err != nil && !azure.IsOperationNotDoneError(err) {
		return nil, err
	}
	ref := spec.ResourceRef()
	ref.SetNamespace(owner.GetNamespace())
	if err := c.Get(ctx, client.ObjectKeyFromObject(ref), ref); err != nil {
		return nil, fmt.Errorf("reading back %s: %w", ref.GetName(), err)
	}
	return ref, nil
}

// crdSchemas holds the v1beta1 openAPIV3Schema of the classic kinds, whose defaults the API server applies
// before and after the mutating webhooks.
var crdSchemas = map[string]map[string]any{}

func loadSchema(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var crd map[string]any
	if err := sigsyaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	versions, _ := crd["spec"].(map[string]any)["versions"].([]any)
	for _, v := range versions {
		vm := v.(map[string]any)
		if vm["name"] == "v1beta1" {
			return vm["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any), nil
		}
	}
	return nil, fmt.Errorf("%s: no v1beta1", path)
}

// applyDefaults is the API server's structural defaulting: a missing (or null) property whose schema has a
// default gets it; present objects and arrays are walked.
func applyDefaults(value any, schema map[string]any) {
	switch v := value.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for key, child := range props {
			cs, _ := child.(map[string]any)
			if def, ok := cs["default"]; ok {
				if cur, present := v[key]; !present || cur == nil {
					v[key] = runtime.DeepCopyJSONValue(def)
				}
			}
		}
		for key, child := range v {
			if cs, ok := props[key].(map[string]any); ok {
				applyDefaults(child, cs)
			} else if ap, ok := schema["additionalProperties"].(map[string]any); ok {
				applyDefaults(child, ap)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for _, item := range v {
				applyDefaults(item, items)
			}
		}
	}
}

// redefault applies the CRD defaults again after the webhook, as the API server does.
func redefault(obj any, kind string) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	applyDefaults(m, crdSchemas[kind])
	raw, _ = json.Marshal(m)
	return json.Unmarshal(raw, obj)
}
