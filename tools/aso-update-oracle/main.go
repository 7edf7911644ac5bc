// Command aso-update-oracle runs Azure Service Operator's generated admission webhooks on UPDATE over pairs of
// ASO objects (NAME.old.yaml: the stored object; NAME.new.yaml: the one applied) and prints what they decide as
// JSON. The stored object has been created by ASO: both sides carry the serviceoperator.azure.com/resource-id
// annotation ASO sets then (the live object keeps it through an apply), which is what makes ASO check its
// write-once properties. Each side goes through ASO's defaulting webhook first, as the API server runs it.
//
// Built by tools/aso-update-oracle/regen.sh against github.com/Azure/azure-service-operator/v2 from the Go module
// proxy. It is not part of kubectl-capz; CI only replays its recordings (tests/referee/aso_update_referee.rs).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	containerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	containerservicewebhook "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801/webhook"
	resources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	resourceswebhook "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601/webhook"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	sigsyaml "sigs.k8s.io/yaml"
)

// The webhooks of one kind: ASO's generated defaulter and validator.
type webhooks interface {
	Default(ctx context.Context, obj runtime.Object) error
	ValidateUpdate(ctx context.Context, oldObj, newObj runtime.Object) (admission.Warnings, error)
}

// A fresh typed object and the webhooks of a kind.
func kindOf(apiVersion, kind string) (func() genruntime.ARMMetaObject, webhooks, error) {
	switch apiVersion + " " + kind {
	case "containerservice.azure.com/v1api20250801 ManagedCluster":
		return func() genruntime.ARMMetaObject { return &containerservice.ManagedCluster{} }, &containerservicewebhook.ManagedCluster{}, nil
	case "containerservice.azure.com/v1api20250801 ManagedClustersAgentPool":
		return func() genruntime.ARMMetaObject { return &containerservice.ManagedClustersAgentPool{} }, &containerservicewebhook.ManagedClustersAgentPool{}, nil
	case "resources.azure.com/v1api20200601 ResourceGroup":
		return func() genruntime.ARMMetaObject { return &resources.ResourceGroup{} }, &resourceswebhook.ResourceGroup{}, nil
	}
	return nil, nil, fmt.Errorf("no webhook for %s %s in this referee", apiVersion, kind)
}

// Case is what the webhooks decided for one pair.
type Case struct {
	Case string `json:"case"`
	// InputFNV1a64: FNV-1a 64 of the old file's bytes then the new file's, so a replay sees a changed pair.
	InputFNV1a64 string `json:"input_fnv1a64"`
	// Allowed: ValidateUpdate returned no error.
	Allowed bool `json:"allowed"`
	// Errors: each error of ValidateUpdate's aggregate, in ASO's order.
	Errors []string `json:"errors"`
}

// Recordings is the whole output.
type Recordings struct {
	Referee string `json:"referee"`
	ASO     string `json:"aso"`
	Go      string `json:"go"`
	Cases   []Case `json:"cases"`
}

func decode(path string, hash io.Writer) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, _ = hash.Write(raw)
	var object map[string]any
	if err := sigsyaml.Unmarshal(raw, &object); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return object, nil
}

func typed(object map[string]any, fresh func() genruntime.ARMMetaObject) (genruntime.ARMMetaObject, error) {
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, err
	}
	out := fresh()
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	// Created by ASO: the annotation its reconciler sets once the resource exists in Azure.
	genruntime.SetResourceID(out, "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/referee/providers/x/y")
	return out, nil
}

func runPair(dir, name string) (Case, error) {
	record := Case{Case: name, Errors: []string{}}
	hash := fnv.New64a()
	oldObject, err := decode(filepath.Join(dir, name+".old.yaml"), hash)
	if err != nil {
		return record, err
	}
	newObject, err := decode(filepath.Join(dir, name+".new.yaml"), hash)
	if err != nil {
		return record, err
	}
	record.InputFNV1a64 = fmt.Sprintf("%016x", hash.Sum64())
	apiVersion, _ := newObject["apiVersion"].(string)
	kind, _ := newObject["kind"].(string)
	fresh, hooks, err := kindOf(apiVersion, kind)
	if err != nil {
		return record, err
	}
	ctx := context.Background()
	oldTyped, err := typed(oldObject, fresh)
	if err != nil {
		return record, err
	}
	newTyped, err := typed(newObject, fresh)
	if err != nil {
		return record, err
	}
	for _, object := range []genruntime.ARMMetaObject{oldTyped, newTyped} {
		if err := hooks.Default(ctx, object); err != nil {
			return record, err
		}
	}
	_, err = hooks.ValidateUpdate(ctx, oldTyped, newTyped)
	record.Allowed = err == nil
	if aggregate, ok := err.(kerrors.Aggregate); ok {
		for _, each := range aggregate.Errors() {
			for _, inner := range flatten(each) {
				record.Errors = append(record.Errors, inner.Error())
			}
		}
	} else if err != nil {
		record.Errors = append(record.Errors, err.Error())
	}
	return record, nil
}

// The errors of nested aggregates, in order.
func flatten(err error) []error {
	if aggregate, ok := err.(kerrors.Aggregate); ok {
		var out []error
		for _, each := range aggregate.Errors() {
			out = append(out, flatten(each)...)
		}
		return out
	}
	return []error{err}
}

func main() {
	pairs := flag.String("pairs", "", "directory of update pairs (NAME.old.yaml + NAME.new.yaml)")
	asoVersion := flag.String("aso-version", "", "the ASO release built against (for the header)")
	goVersion := flag.String("go-version", "", "the Go toolchain (for the header)")
	flag.Parse()
	files, err := filepath.Glob(filepath.Join(*pairs, "*.old.yaml"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "aso-update-oracle: no pairs in %q\n", *pairs)
		os.Exit(2)
	}
	sort.Strings(files)
	out := Recordings{
		Referee: "github.com/Azure/azure-service-operator/v2@" + *asoVersion + " generated webhooks (Default, then ValidateUpdate), driven by tools/aso-update-oracle",
		ASO:     *asoVersion,
		Go:      *goVersion,
		Cases:   []Case{},
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".old.yaml")
		record, err := runPair(*pairs, name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "aso-update-oracle: %s: %v\n", name, err)
			os.Exit(1)
		}
		out.Cases = append(out.Cases, record)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
