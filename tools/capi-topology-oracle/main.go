// Command capi-topology-oracle runs Cluster API's own offline topology planner (the code behind
// `clusterctl alpha topology plan`, sigs.k8s.io/cluster-api v1.10.10: CAPI's defaulting and
// validating webhooks for ClusterClass and Cluster, the ClusterClass reconciler, then the topology
// reconciler against a dry-run client) on every case file of a directory and prints what it did.
//
// Usage: capi-topology-oracle CASES_DIR > recordings.json
//
// Each case is a multi-document YAML file (*.yaml) holding one ClusterClass, its templates and one
// topology Cluster. Output: a JSON array, one row per case in file-name order:
//
//	{"name": "<file name without .yaml>", "error": "<what Plan returned>"}                      or
//	{"name": ..., "created": [objects], "modified": [{"before": obj, "after": obj}], "deleted": [...]}
//
// "before" of the Cluster is the Cluster after CAPI's defaulting webhook; "after" is what the
// topology reconciler made of it. Objects are sorted by kind, then name; status, resourceVersion
// and creationTimestamp (added by the dry-run client, status holds timestamps) are dropped. No management cluster is
// contacted: the kubeconfig given to clusterctl names a file that does not exist.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

type modified struct {
	Before map[string]interface{} `json:"before"`
	After  map[string]interface{} `json:"after"`
}

type row struct {
	Name     string                   `json:"name"`
	Error    *string                  `json:"error,omitempty"`
	Panic    *string                  `json:"panic,omitempty"`
	Created  []map[string]interface{} `json:"created,omitempty"`
	Modified []modified               `json:"modified,omitempty"`
	Deleted  []map[string]interface{} `json:"deleted,omitempty"`
}

// clean drops what the dry-run client's fake API server adds (status, resourceVersion,
// creationTimestamp) so recordings are reproducible: status holds condition timestamps.
func clean(o *unstructured.Unstructured) map[string]interface{} {
	c := o.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "status")
	unstructured.RemoveNestedField(c.Object, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(c.Object, "metadata", "creationTimestamp")
	return c.Object
}

func key(o *unstructured.Unstructured) string { return o.GetKind() + "/" + o.GetName() }

func sortObjs(objs []*unstructured.Unstructured) []map[string]interface{} {
	sort.Slice(objs, func(i, j int) bool { return key(objs[i]) < key(objs[j]) })
	out := make([]map[string]interface{}, 0, len(objs))
	for _, o := range objs {
		out = append(out, clean(o))
	}
	return out
}

func plan(ctx context.Context, c client.Client, path string) (r row) {
	r.Name = strings.TrimSuffix(filepath.Base(path), ".yaml")
	defer func() {
		if p := recover(); p != nil {
			s := fmt.Sprint(p)
			r.Panic = &s
		}
	}()
	raw, err := os.ReadFile(path)
	if err != nil {
		s := err.Error()
		r.Error = &s
		return r
	}
	objs, err := utilyaml.ToUnstructured(raw)
	if err != nil {
		s := "parse: " + err.Error()
		r.Error = &s
		return r
	}
	// CAPI's names end in 5 random characters (k8s.io/apimachinery/pkg/util/rand); a fixed seed
	// per case keeps the recordings reproducible.
	utilrand.Seed(1)
	ptrs := make([]*unstructured.Unstructured, 0, len(objs))
	for i := range objs {
		ptrs = append(ptrs, &objs[i])
	}
	out, err := c.TopologyPlan(ctx, client.TopologyPlanOptions{
		Kubeconfig: client.Kubeconfig{Path: filepath.Join(os.TempDir(), "capi-topology-oracle-no-such-kubeconfig")},
		Objs:       ptrs,
	})
	if err != nil {
		s := err.Error()
		r.Error = &s
		return r
	}
	if out.ChangeSummary == nil {
		return r
	}
	r.Created = sortObjs(out.Created)
	sort.Slice(out.Modified, func(i, j int) bool { return key(out.Modified[i].After) < key(out.Modified[j].After) })
	for _, m := range out.Modified {
		r.Modified = append(r.Modified, modified{Before: clean(m.Before), After: clean(m.After)})
	}
	r.Deleted = sortObjs(out.Deleted)
	return r
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: capi-topology-oracle CASES_DIR > recordings.json")
		os.Exit(2)
	}
	ctx := context.Background()
	c, err := client.New(ctx, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterctl client:", err)
		os.Exit(2)
	}
	paths, err := filepath.Glob(filepath.Join(os.Args[1], "*.yaml"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sort.Strings(paths)
	rows := make([]row, 0, len(paths))
	for _, p := range paths {
		rows = append(rows, plan(ctx, c, p))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
