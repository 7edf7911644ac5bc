// Command capi-conversion-oracle records what the real conversion code answers for every object of a corpus:
//
//   - Cluster API v1.14.2 core / kubeadm bootstrap / kubeadm control plane kinds, v1beta1 -> v1beta2: the
//     object is sent, as a ConversionReview, to controller-runtime's conversion webhook handler
//     (sigs.k8s.io/controller-runtime/pkg/webhook/conversion.NewWebhookHandler) holding the converters CAPI's
//     managers register with WithConverter (sigs.k8s.io/cluster-api/{core,bootstrap/kubeadm,controlplane/kubeadm}
//     /webhooks/conversion), exactly as the API server calls it; the recorded output is the webhook's answer.
//   - CAPZ v1.26.0 AzureASOManaged* (+Template) kinds, infrastructure.cluster.x-k8s.io v1alpha1 -> v1beta1: their
//     CRDs declare no conversion webhook (strategy None; both versions have the same schema), so the API server
//     converts them with its own CR converter (k8s.io/apiextensions-apiserver/pkg/apiserver/conversion, the
//     nopConverter picked by CRConverterFactory.NewConverter for strategy None); this program builds that
//     converter from CAPZ's own CRD files and runs it.
//
// Usage: capi-conversion-oracle CORPUS_DIR CAPZ_CRD_DIR > recorded.json
//
//	capi-conversion-oracle -dropped CORPUS_DIR > dropped.json   (dropped.go)
//
// Output (stable bytes, keys sorted, two-space indent):
//
//	{"generator": "tools/capi-conversion-oracle", "capi": "v1.14.2", "capz": "v1.26.0",
//	 "cases": [{"name", "input_sha256", "output": object|null, "error": string|null}, ...]}
//
// Normalisation of "output" (nothing else): `metadata.creationTimestamp: null` is dropped; `status` is dropped when it
// is an empty object, and whenever the input object has no `status` (v1beta1 status structs have non-optional
// integers, so the webhook answers `status: {replicas: 0, deprecated: ...}` for an object written without one).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apixv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apixconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
	"sigs.k8s.io/yaml"

	addonsv1beta1 "sigs.k8s.io/cluster-api/api/addons/v1beta1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	bootstrapconversion "sigs.k8s.io/cluster-api/bootstrap/kubeadm/webhooks/conversion"
	controlplaneconversion "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/conversion"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
)

const (
	capiVersion = "v1.14.2"
	capzVersion = "v1.26.0"
	capzGroup   = "infrastructure.cluster.x-k8s.io"
)

type recordedCase struct {
	Name        string      `json:"name"`
	InputSHA256 string      `json:"input_sha256"`
	Output      interface{} `json:"output"`
	Error       *string     `json:"error"`
}

type recording struct {
	Generator string         `json:"generator"`
	CAPI      string         `json:"capi"`
	CAPZ      string         `json:"capz"`
	Cases     []recordedCase `json:"cases"`
}

// capiWebhook builds the conversion webhook handler of CAPI's managers: the scheme holds the v1beta1 and v1beta2
// types of the three API groups, the registry the converters their admission packages pass to WithConverter.
func capiWebhook() (http.Handler, error) {
	scheme, err := capiScheme()
	if err != nil {
		return nil, err
	}
	registry := conversion.NewRegistry()
	converters := []struct {
		gk      schema.GroupKind
		factory func(*runtime.Scheme) (conversion.Converter, error)
	}{
		{clusterv1.GroupVersion.WithKind("Cluster").GroupKind(), coreconversion.Cluster},
		{clusterv1.GroupVersion.WithKind("ClusterClass").GroupKind(), coreconversion.ClusterClass},
		{clusterv1.GroupVersion.WithKind("Machine").GroupKind(), coreconversion.Machine},
		{clusterv1.GroupVersion.WithKind("MachineSet").GroupKind(), coreconversion.MachineSet},
		{clusterv1.GroupVersion.WithKind("MachineDeployment").GroupKind(), coreconversion.MachineDeployment},
		{clusterv1.GroupVersion.WithKind("MachinePool").GroupKind(), coreconversion.MachinePool},
		{clusterv1.GroupVersion.WithKind("MachineHealthCheck").GroupKind(), coreconversion.MachineHealthCheck},
		{clusterv1.GroupVersion.WithKind("MachineDrainRule").GroupKind(), coreconversion.MachineDrainRule},
		{addonsv1.GroupVersion.WithKind("ClusterResourceSet").GroupKind(), coreconversion.ClusterResourceSet},
		{addonsv1.GroupVersion.WithKind("ClusterResourceSetBinding").GroupKind(), coreconversion.ClusterResourceSetBinding},
		{bootstrapv1.GroupVersion.WithKind("KubeadmConfig").GroupKind(), bootstrapconversion.KubeadmConfig},
		{bootstrapv1.GroupVersion.WithKind("KubeadmConfigTemplate").GroupKind(), bootstrapconversion.KubeadmConfigTemplate},
		{controlplanev1.GroupVersion.WithKind("KubeadmControlPlane").GroupKind(), controlplaneconversion.KubeadmControlPlane},
		{controlplanev1.GroupVersion.WithKind("KubeadmControlPlaneTemplate").GroupKind(), controlplaneconversion.KubeadmControlPlaneTemplate},
	}
	for _, c := range converters {
		converter, err := c.factory(scheme)
		if err != nil {
			return nil, fmt.Errorf("converter for %s: %w", c.gk, err)
		}
		if err := registry.RegisterConverter(c.gk, converter); err != nil {
			return nil, err
		}
	}
	return conversion.NewWebhookHandler(scheme, registry), nil
}

// capiScheme holds the v1beta1 and v1beta2 types of CAPI's core, kubeadm bootstrap, kubeadm control plane and addons
// groups.
func capiScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clusterv1beta1.AddToScheme, clusterv1.AddToScheme,
		bootstrapv1beta1.AddToScheme, bootstrapv1.AddToScheme,
		controlplanev1beta1.AddToScheme, controlplanev1.AddToScheme,
		addonsv1beta1.AddToScheme, addonsv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// convertWithWebhook posts one object to the webhook handler, as the API server does, and returns the converted
// object or the failure message of the ConversionReview's result.
func convertWithWebhook(handler http.Handler, object []byte, desiredAPIVersion string) (json.RawMessage, *string, error) {
	review := apixv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apixv1.ConversionRequest{
			UID:               types.UID("capi-conversion-oracle"),
			DesiredAPIVersion: desiredAPIVersion,
			Objects:           []runtime.RawExtension{{Raw: object}},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, nil, err
	}
	request := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/convert", bytes.NewReader(body))
	request.Header.Set("Content-Type", "application/json")
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, request)
	if recorder.Code != http.StatusOK {
		return nil, nil, fmt.Errorf("webhook answered HTTP %d", recorder.Code)
	}
	var answer struct {
		Response *struct {
			ConvertedObjects []json.RawMessage `json:"convertedObjects"`
			Result           struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(recorder.Body.Bytes(), &answer); err != nil {
		return nil, nil, fmt.Errorf("webhook answer: %w", err)
	}
	if answer.Response == nil {
		return nil, nil, fmt.Errorf("webhook answer has no response")
	}
	if answer.Response.Result.Status != "Success" {
		message := answer.Response.Result.Message
		return nil, &message, nil
	}
	if len(answer.Response.ConvertedObjects) != 1 {
		return nil, nil, fmt.Errorf("webhook answered %d objects", len(answer.Response.ConvertedObjects))
	}
	return answer.Response.ConvertedObjects[0], nil, nil
}

// capzConverters builds the API server's CR converter for every CRD file of CAPZ's config/crd/bases whose kind
// starts with AzureASOManaged, after the API server's defaulting of the CRD (conversion strategy None when unset).
func capzConverters(crdDir string) (map[string]runtime.ObjectConvertor, error) {
	factory, err := apixconversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(crdDir, "infrastructure.cluster.x-k8s.io_azureasomanaged*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no AzureASOManaged CRD in %s", crdDir)
	}
	converters := map[string]runtime.ObjectConvertor{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		crd := &apixv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		apixv1.SetObjectDefaults_CustomResourceDefinition(crd)
		_, unsafe, err := factory.NewConverter(crd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		converters[crd.Spec.Names.Kind] = unsafe
	}
	return converters, nil
}

// normalise applies the only normalisation of the recordings (README.md): drop `metadata.creationTimestamp: null`,
// an empty `status` object, and `status` when the input had none.
func normalise(object map[string]interface{}, inputHasStatus bool) {
	if metadata, ok := object["metadata"].(map[string]interface{}); ok {
		if value, present := metadata["creationTimestamp"]; present && value == nil {
			delete(metadata, "creationTimestamp")
		}
	}
	if status, ok := object["status"].(map[string]interface{}); ok && len(status) == 0 {
		delete(object, "status")
	}
	if !inputHasStatus {
		delete(object, "status")
	}
}

func decodeObject(raw []byte) (map[string]interface{}, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var object map[string]interface{}
	if err := decoder.Decode(&object); err != nil {
		return nil, err
	}
	return object, nil
}

var capiGroups = map[string]bool{
	clusterv1.GroupVersion.Group:      true,
	bootstrapv1.GroupVersion.Group:    true,
	controlplanev1.GroupVersion.Group: true,
	addonsv1.GroupVersion.Group:       true,
}

func convertCase(webhook http.Handler, capz map[string]runtime.ObjectConvertor, input []byte) (interface{}, *string, error) {
	objectJSON, err := yaml.YAMLToJSON(input)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus file is not YAML: %w", err)
	}
	var typeMeta metav1.TypeMeta
	if err := json.Unmarshal(objectJSON, &typeMeta); err != nil {
		return nil, nil, err
	}
	var topLevel map[string]json.RawMessage
	if err := json.Unmarshal(objectJSON, &topLevel); err != nil {
		return nil, nil, err
	}
	_, inputHasStatus := topLevel["status"]
	gv, err := schema.ParseGroupVersion(typeMeta.APIVersion)
	if err != nil {
		return nil, nil, err
	}
	var converted []byte
	switch {
	case capiGroups[gv.Group] && gv.Version == "v1beta1":
		out, failure, err := convertWithWebhook(webhook, objectJSON, gv.Group+"/v1beta2")
		if err != nil || failure != nil {
			return nil, failure, err
		}
		converted = out
	case gv.Group == capzGroup && gv.Version == "v1alpha1" && capz[typeMeta.Kind] != nil:
		object := &unstructured.Unstructured{}
		if err := object.UnmarshalJSON(objectJSON); err != nil {
			message := err.Error()
			return nil, &message, nil
		}
		out, err := capz[typeMeta.Kind].ConvertToVersion(object, schema.GroupVersion{Group: capzGroup, Version: "v1beta1"})
		if err != nil {
			message := err.Error()
			return nil, &message, nil
		}
		converted, err = json.Marshal(out)
		if err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("no conversion for %s %s", typeMeta.APIVersion, typeMeta.Kind)
	}
	object, err := decodeObject(converted)
	if err != nil {
		return nil, nil, err
	}
	normalise(object, inputHasStatus)
	return object, nil, nil
}

func run(corpusDir, crdDir string) error {
	webhook, err := capiWebhook()
	if err != nil {
		return err
	}
	capz, err := capzConverters(crdDir)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	out := recording{Generator: "tools/capi-conversion-oracle", CAPI: capiVersion, CAPZ: capzVersion, Cases: []recordedCase{}}
	for _, file := range files {
		input, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(input)
		output, failure, err := convertCase(webhook, capz, input)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		out.Cases = append(out.Cases, recordedCase{
			Name:        strings.TrimSuffix(filepath.Base(file), ".yaml"),
			InputSHA256: hex.EncodeToString(sum[:]),
			Output:      output,
			Error:       failure,
		})
	}
	// Round-trip through generic values so that every object's keys come out sorted.
	raw, err := json.Marshal(out)
	if err != nil {
		return err
	}
	generic, err := decodeObject(raw)
	if err != nil {
		return err
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	return encoder.Encode(generic)
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-dropped" {
		if err := runDropped(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "capi-conversion-oracle:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: capi-conversion-oracle CORPUS_DIR CAPZ_CRD_DIR > recorded.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "capi-conversion-oracle:", err)
		os.Exit(1)
	}
}
