package main

// The -dropped mode: which v1beta1 fields of each corpus object do not survive CAPI's conversion. Every CAPI case is
// sent through the webhook v1beta1 -> v1beta2 -> v1beta1 (the second leg resolves apiGroup references back to the
// apiVersion the input used, as CAPI's APIVersionGetter does from the CRDs of a live cluster); the round-tripped
// object, without the conversion-data annotation the second leg adds, is compared with the input decoded and
// re-encoded as typed v1beta1 (so that "5m" and "5m0s" compare equal). Every leaf that is missing or different is
// listed. It is a report for NOTES.md and for `convert`'s warnings, not a recording of a single conversion.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"

	controlplaneconversion "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/conversion"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
)

type droppedField struct {
	Path   string      `json:"path"`
	Before interface{} `json:"before"`
	After  interface{} `json:"after"`
}

type droppedCase struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"`
	Dropped []droppedField `json:"dropped"`
}

// referencedVersions collects apiVersion by group/kind of every {apiVersion, kind} map in an object.
func referencedVersions(value interface{}, into map[schema.GroupKind]string) {
	switch v := value.(type) {
	case map[string]interface{}:
		if apiVersion, ok := v["apiVersion"].(string); ok {
			if kind, ok := v["kind"].(string); ok {
				if gv, err := schema.ParseGroupVersion(apiVersion); err == nil {
					into[schema.GroupKind{Group: gv.Group, Kind: kind}] = apiVersion
				}
			}
		}
		for _, child := range v {
			referencedVersions(child, into)
		}
	case []interface{}:
		for _, child := range v {
			referencedVersions(child, into)
		}
	}
}

func leafDiff(path string, before, after interface{}, out *[]droppedField) {
	beforeMap, beforeIsMap := before.(map[string]interface{})
	afterMap, afterIsMap := after.(map[string]interface{})
	if beforeIsMap && afterIsMap {
		keys := make([]string, 0, len(beforeMap))
		for key := range beforeMap {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			leafDiff(path+"."+key, beforeMap[key], afterMap[key], out)
		}
		return
	}
	beforeList, beforeIsList := before.([]interface{})
	afterList, afterIsList := after.([]interface{})
	if beforeIsList && afterIsList && len(beforeList) == len(afterList) {
		for i := range beforeList {
			leafDiff(fmt.Sprintf("%s[%d]", path, i), beforeList[i], afterList[i], out)
		}
		return
	}
	if !reflect.DeepEqual(before, after) {
		*out = append(*out, droppedField{Path: path, Before: before, After: after})
	}
}

func typedV1beta1(scheme *runtime.Scheme, objectJSON []byte) (map[string]interface{}, error) {
	object, _, err := serializer.NewCodecFactory(scheme).UniversalDeserializer().Decode(objectJSON, nil, nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, err
	}
	return decodeObject(raw)
}

func runDropped(corpusDir string) error {
	webhook, err := capiWebhook()
	if err != nil {
		return err
	}
	scheme, err := capiScheme()
	if err != nil {
		return err
	}
	versions := map[schema.GroupKind]string{}
	getter := func(_ context.Context, gk schema.GroupKind) (string, error) {
		if apiVersion, ok := versions[gk]; ok {
			return apiVersion, nil
		}
		return "", nil // the input's reference had no apiVersion
	}
	coreconversion.SetAPIVersionGetter(getter)
	controlplaneconversion.SetAPIVersionGetter(getter)

	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	report := []droppedCase{}
	for _, file := range files {
		input, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		objectJSON, err := yaml.YAMLToJSON(input)
		if err != nil {
			return err
		}
		inputObject, err := decodeObject(objectJSON)
		if err != nil {
			return err
		}
		apiVersion, _ := inputObject["apiVersion"].(string)
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil || !capiGroups[gv.Group] {
			continue
		}
		up, failure, err := convertWithWebhook(webhook, objectJSON, gv.Group+"/v1beta2")
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if failure != nil {
			continue
		}
		for key := range versions {
			delete(versions, key)
		}
		referencedVersions(inputObject, versions)
		down, failure, err := convertWithWebhook(webhook, up, apiVersion)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if failure != nil {
			return fmt.Errorf("%s: down-conversion failed: %s", file, *failure)
		}
		roundTripped, err := decodeObject(down)
		if err != nil {
			return err
		}
		if metadata, ok := roundTripped["metadata"].(map[string]interface{}); ok {
			if annotations, ok := metadata["annotations"].(map[string]interface{}); ok {
				delete(annotations, "cluster.x-k8s.io/conversion-data")
				if len(annotations) == 0 {
					delete(metadata, "annotations")
				}
			}
		}
		before, err := typedV1beta1(scheme, objectJSON)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if metadata, ok := before["metadata"].(map[string]interface{}); ok {
			if annotations, ok := metadata["annotations"].(map[string]interface{}); ok {
				delete(annotations, "cluster.x-k8s.io/conversion-data")
				if len(annotations) == 0 {
					delete(metadata, "annotations")
				}
			}
		}
		if _, hasStatus := inputObject["status"]; !hasStatus {
			delete(before, "status")
			delete(roundTripped, "status")
		}
		fields := []droppedField{}
		leafDiff("", before, roundTripped, &fields)
		for i := range fields {
			fields[i].Path = strings.TrimPrefix(fields[i].Path, ".")
		}
		kind, _ := inputObject["kind"].(string)
		report = append(report, droppedCase{Name: strings.TrimSuffix(filepath.Base(file), ".yaml"), Kind: kind, Dropped: fields})
	}
	raw, err := json.Marshal(map[string]interface{}{
		"generator": "tools/capi-conversion-oracle -dropped",
		"capi":      capiVersion,
		"cases":     report,
	})
	if err != nil {
		return err
	}
	var generic interface{}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&generic); err != nil {
		return err
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	return encoder.Encode(generic)
}
