// Command capi-update-oracle runs Cluster API v1.14.2's own admission webhooks on UPDATE of a Cluster, ClusterClass
// or MachinePool, for (stored, applied) pairs of bundles, and prints every verdict as JSON. Built inside a copy of
// the sigs.k8s.io/cluster-api v1.14.2 module (see ../../regen.sh): the webhooks' decoders are unexported, so
// regen.sh adds zz_oracle_export.go to core/webhooks/admission to build them as SetupWebhookWithManager does.
//
// Usage: capi-update-oracle CASES_DIR CAPZ_CRD_PATCHES_DIR > recordings.json
//
// A case is CASES_DIR/NAME.old.yaml (the objects the management cluster holds) and NAME.new.yaml (the same
// bundle after the change). The subjects are the Clusters, ClusterClasses and MachinePools of cluster.x-k8s.io
// present on both sides whose content differs (when none differs, all of them: a no-op update). Per case:
//
//  1. The stored state, in a controller-runtime fake client: every object of NAME.old.yaml. v1beta1 objects of
//     cluster.x-k8s.io are converted to v1beta2 by CAPI's conversion webhook (posted as a ConversionReview, as
//     the API server does); provider objects are stored as written, each with a CustomResourceDefinition
//     (metadata only) labelled with its provider's contract labels (CAPZ's config/crd/patches; kubeadm's
//     v1beta1: v1beta1, v1beta2: v1beta2). ClusterClasses are reconciled by the ClusterClass reconciler (twice),
//     Clusters and MachinePools defaulted as on create, then stored. Clusters are indexed by ClusterClass, as
//     the manager indexes them.
//  2. What the repository cannot know, made stable: a topology Cluster gets the controlPlaneRef and
//     infrastructureRef the topology controller writes (when NAME.old.yaml has none; the applied Cluster keeps
//     them as server-side apply keeps a field another manager owns), and the control plane they name exists at
//     the Cluster's stored version (spec.version and status.version), provisioned and not upgrading. No
//     MachineDeployment or MachinePool is behind its version, no lifecycle hook is pending.
//  3. Per subject, the API server's UPDATE: the defaulting webhook on the applied object (the admission request
//     in the context, with the stored object as OldObject), then ValidateUpdate(stored, defaulted). The same
//     object is also judged as a create (Default with a CREATE request, then ValidateCreate) against the same
//     state: an error on both is a create rule, which `validate` checks on the new bundle anyway.
//
// Output: {"cases": [{"case", "input_fnv1a64", "subjects": [{"kind", "namespace", "name", "allowed",
// "errors": [{"type", "field", "message"}], "warnings", "create_errors"}]}]}, errors as the StatusCauses of the
// webhook's Invalid error (field.Error's type, field path and ErrorBody), sorted.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apixv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
	"sigs.k8s.io/yaml"

	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterclassreconciler "sigs.k8s.io/cluster-api/core/reconcilers/clusterclass"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/internal/contract"
	utilcontract "sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/cluster-api/util/index"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

type fieldErr struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

type subject struct {
	Kind         string     `json:"kind"`
	Namespace    string     `json:"namespace"`
	Name         string     `json:"name"`
	Allowed      bool       `json:"allowed"`
	Errors       []fieldErr `json:"errors"`
	Warnings     []string   `json:"warnings"`
	CreateErrors []fieldErr `json:"create_errors"`
}

type caseRow struct {
	Case     string    `json:"case"`
	Input    string    `json:"input_fnv1a64"`
	Error    string    `json:"error,omitempty"`
	Subjects []subject `json:"subjects"`
}

var (
	// The client of the case being run: the conversion webhook's APIVersionGetter reads CRDs through it.
	caseClient client.Client
	// CRD labels per CRD name (contract labels of the providers).
	crdLabels = map[string]map[string]string{}
)

// kubeadmContractLabels: CAPI's bootstrap/kubeadm and controlplane/kubeadm config/crd/kustomization.yaml.
var kubeadmContractLabels = map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}

func readCAPZContractLabels(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "capicontract_in_*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no capicontract_in_*.yaml in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var crd metav1.PartialObjectMetadata
		if err := yaml.Unmarshal(data, &crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		crdLabels[crd.Name] = crd.Labels
	}
	return nil
}

func coreScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clusterv1.AddToScheme, apixv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

func conversionScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clusterv1beta1.AddToScheme, clusterv1.AddToScheme,
		bootstrapv1beta1.AddToScheme, bootstrapv1.AddToScheme,
		controlplanev1beta1.AddToScheme, controlplanev1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// conversionWebhook: the handler CAPI's core manager mounts at /convert.
func conversionWebhook() http.Handler {
	s := conversionScheme()
	registry := conversion.NewRegistry()
	for kind, factory := range map[string]func(*runtime.Scheme) (conversion.Converter, error){
		"Cluster": coreconversion.Cluster, "ClusterClass": coreconversion.ClusterClass,
		"MachineDeployment": coreconversion.MachineDeployment, "MachinePool": coreconversion.MachinePool,
	} {
		c, err := factory(s)
		if err != nil {
			panic(err)
		}
		if err := registry.RegisterConverter(clusterv1.GroupVersion.WithKind(kind).GroupKind(), c); err != nil {
			panic(err)
		}
	}
	return conversion.NewWebhookHandler(s, registry)
}

// convert posts one object to the conversion webhook, as the API server does.
func convert(handler http.Handler, object map[string]interface{}, desiredAPIVersion string) (map[string]interface{}, error) {
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, err
	}
	review := apixv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apixv1.ConversionRequest{
			UID: types.UID("capi-update-oracle"), DesiredAPIVersion: desiredAPIVersion,
			Objects: []runtime.RawExtension{{Raw: raw}},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	request := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/convert", bytes.NewReader(body))
	request.Header.Set("Content-Type", "application/json")
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, request)
	var answer apixv1.ConversionReview
	if err := json.Unmarshal(recorder.Body.Bytes(), &answer); err != nil {
		return nil, fmt.Errorf("conversion webhook answer (HTTP %d): %w", recorder.Code, err)
	}
	if answer.Response == nil || answer.Response.Result.Status != "Success" || len(answer.Response.ConvertedObjects) != 1 {
		msg := "no response"
		if answer.Response != nil {
			msg = answer.Response.Result.Message
		}
		return nil, fmt.Errorf("conversion to %s failed: %s", desiredAPIVersion, msg)
	}
	out := map[string]interface{}{}
	if err := json.Unmarshal(answer.Response.ConvertedObjects[0].Raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func crdFor(gvk schema.GroupVersionKind) (*apixv1.CustomResourceDefinition, error) {
	name := utilcontract.CalculateCRDName(gvk.Group, gvk.Kind)
	labels, ok := crdLabels[name]
	if gvk.Group == bootstrapv1.GroupVersion.Group || gvk.Group == controlplanev1.GroupVersion.Group {
		labels, ok = kubeadmContractLabels, true
	}
	if !ok {
		return nil, fmt.Errorf("no contract labels known for CRD %s", name)
	}
	return &apixv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apixv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
	}, nil
}

// emptyClusterCache: no workload cluster is reachable, and no topology-owned MachinePool is stored, so the
// Cluster webhook never asks it for one.
type emptyClusterCache struct{}

func (emptyClusterCache) GetReader(context.Context, client.ObjectKey) (client.Reader, error) {
	return fake.NewClientBuilder().Build(), nil
}

type oracle struct {
	scheme  *runtime.Scheme
	webhook http.Handler
}

func isJudged(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == clusterv1.GroupVersion.Group && (gvk.Kind == "Cluster" || gvk.Kind == "ClusterClass" || gvk.Kind == "MachinePool")
}

func identity(u *unstructured.Unstructured) string {
	ns := u.GetNamespace()
	if ns == "" {
		ns = "default"
	}
	return u.GroupVersionKind().GroupKind().String() + "/" + ns + "/" + u.GetName()
}

// typed: a cluster.x-k8s.io object as v1beta2, through the conversion webhook for v1beta1.
func (o *oracle) typed(u *unstructured.Unstructured, into client.Object) error {
	m := u.DeepCopy().Object
	if u.GroupVersionKind().Version == "v1beta1" {
		converted, err := convert(o.webhook, m, clusterv1.GroupVersion.String())
		if err != nil {
			return err
		}
		m = converted
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
		return err
	}
	if into.GetNamespace() == "" {
		into.SetNamespace("default")
	}
	return nil
}

func causes(err error) []fieldErr {
	out := []fieldErr{}
	if err == nil {
		return out
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil && len(status.Status().Details.Causes) > 0 {
		for _, c := range status.Status().Details.Causes {
			out = append(out, fieldErr{Type: string(c.Type), Field: c.Field, Message: c.Message})
		}
	} else {
		out = append(out, fieldErr{Type: "", Field: "", Message: err.Error()})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Message < b.Message
	})
	return out
}

func request(op admissionv1.Operation, obj, old runtime.Object) admission.Request {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "capi-update-oracle", Operation: op}}
	if raw, err := json.Marshal(obj); err == nil {
		req.Object = runtime.RawExtension{Raw: raw}
	}
	if old != nil {
		if raw, err := json.Marshal(old); err == nil {
			req.OldObject = runtime.RawExtension{Raw: raw}
		}
	}
	return req
}

type state struct {
	client client.Client
	// Per Cluster identity: the refs the topology controller wrote (when the stored bundle has none).
	synthesized map[string]*clusterv1.Cluster
}

func (o *oracle) buildState(ctx context.Context, objs []unstructured.Unstructured) (*state, error) {
	mapper := meta.NewDefaultRESTMapper(nil)
	for gvk := range o.scheme.AllKnownTypes() {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	mapper.Add(apixv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), meta.RESTScopeRoot)
	providerObjs := []client.Object{}
	crds := map[string]bool{}
	capiObjs := []*unstructured.Unstructured{}
	for i := range objs {
		u := &objs[i]
		gvk := u.GroupVersionKind()
		if gvk.Group == clusterv1.GroupVersion.Group {
			capiObjs = append(capiObjs, u)
			continue
		}
		if u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
		for _, kind := range []string{gvk.Kind, strings.TrimSuffix(gvk.Kind, clusterv1.TemplateSuffix)} {
			for _, version := range []string{"v1beta1", "v1beta2", "v1alpha1"} {
				mapper.Add(schema.GroupVersionKind{Group: gvk.Group, Version: version, Kind: kind}, meta.RESTScopeNamespace)
			}
			k := gvk.Group + "/" + kind
			if crds[k] {
				continue
			}
			crds[k] = true
			// Kinds without contract labels (identities) get no CRD; the contract lookups of a kind that needs
			// one fail as they would in a cluster without it.
			if crd, err := crdFor(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: kind}); err == nil {
				providerObjs = append(providerObjs, crd)
			}
		}
		providerObjs = append(providerObjs, u)
	}
	c := fake.NewClientBuilder().WithScheme(o.scheme).WithRESTMapper(mapper).
		WithObjects(providerObjs...).
		WithIndex(&clusterv1.Cluster{}, index.ClusterClassRefPath, index.ClusterByClusterClassRef).
		WithStatusSubresource(&clusterv1.ClusterClass{}, &clusterv1.Cluster{}).Build()
	caseClient = c
	s := &state{client: c, synthesized: map[string]*clusterv1.Cluster{}}

	// ClusterClasses first (the Cluster defaulting reads them), reconciled as the controller does.
	for _, u := range capiObjs {
		if u.GetKind() != "ClusterClass" {
			continue
		}
		class := &clusterv1.ClusterClass{}
		if err := o.typed(u, class); err != nil {
			return nil, fmt.Errorf("converting ClusterClass %s: %w", u.GetName(), err)
		}
		if err := c.Create(ctx, class); err != nil {
			return nil, fmt.Errorf("storing ClusterClass %s: %w", class.Name, err)
		}
		ccr := &clusterclassreconciler.Reconciler{Client: c}
		req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(class)}
		for i := 0; i < 2; i++ {
			if _, err := ccr.Reconcile(ctx, req); err != nil {
				return nil, fmt.Errorf("ClusterClass %s could not be reconciled: %w", class.Name, err)
			}
		}
	}
	for _, u := range capiObjs {
		switch u.GetKind() {
		case "Cluster":
			cluster := &clusterv1.Cluster{}
			if err := o.typed(u, cluster); err != nil {
				return nil, fmt.Errorf("converting Cluster %s: %w", u.GetName(), err)
			}
			if cluster.Spec.Topology.IsDefined() && !cluster.Spec.ControlPlaneRef.IsDefined() {
				if err := s.synthesizeRefs(ctx, cluster); err != nil {
					return nil, fmt.Errorf("Cluster %s: %w", cluster.Name, err)
				}
				s.synthesized[identity(u)] = cluster.DeepCopy()
			}
			hook := coreadmission.OracleClusterWebhook(c, emptyClusterCache{}, o.scheme)
			if err := hook.Default(admission.NewContextWithRequest(ctx, request(admissionv1.Create, cluster, nil)), cluster); err != nil {
				return nil, fmt.Errorf("defaulting stored Cluster %s: %w", cluster.Name, err)
			}
			if err := c.Create(ctx, cluster); err != nil {
				return nil, fmt.Errorf("storing Cluster %s: %w", cluster.Name, err)
			}
		case "MachinePool":
			mp := &clusterv1.MachinePool{}
			if err := o.typed(u, mp); err != nil {
				return nil, fmt.Errorf("converting MachinePool %s: %w", u.GetName(), err)
			}
			hook := coreadmission.OracleMachinePoolWebhook(o.scheme)
			if err := hook.Default(admission.NewContextWithRequest(ctx, request(admissionv1.Create, mp, nil)), mp); err != nil {
				return nil, fmt.Errorf("defaulting stored MachinePool %s: %w", mp.Name, err)
			}
			if err := c.Create(ctx, mp); err != nil {
				return nil, fmt.Errorf("storing MachinePool %s: %w", mp.Name, err)
			}
		case "MachineDeployment":
			md := &clusterv1.MachineDeployment{}
			if err := o.typed(u, md); err != nil {
				return nil, fmt.Errorf("converting MachineDeployment %s: %w", u.GetName(), err)
			}
			if err := c.Create(ctx, md); err != nil {
				return nil, fmt.Errorf("storing MachineDeployment %s: %w", md.Name, err)
			}
		case "ClusterClass":
		default:
			return nil, fmt.Errorf("the oracle does not store %s", u.GroupVersionKind())
		}
	}
	return s, nil
}

// synthesizeRefs: what the topology controller writes into a topology Cluster it reconciled, and the control
// plane at the Cluster's version, provisioned and not upgrading.
func (s *state) synthesizeRefs(ctx context.Context, cluster *clusterv1.Cluster) error {
	class := &clusterv1.ClusterClass{}
	if err := s.client.Get(ctx, cluster.GetClassKey(), class); err != nil {
		return fmt.Errorf("its ClusterClass %s: %w", cluster.GetClassKey(), err)
	}
	cpGVK := class.Spec.ControlPlane.TemplateRef.GroupVersionKind()
	cpGVK.Kind = strings.TrimSuffix(cpGVK.Kind, clusterv1.TemplateSuffix)
	infraGVK := class.Spec.Infrastructure.TemplateRef.GroupVersionKind()
	infraGVK.Kind = strings.TrimSuffix(infraGVK.Kind, clusterv1.TemplateSuffix)
	cluster.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{APIGroup: cpGVK.Group, Kind: cpGVK.Kind, Name: cluster.Name}
	cluster.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: infraGVK.Group, Kind: infraGVK.Kind, Name: cluster.Name}
	cp := &unstructured.Unstructured{Object: map[string]interface{}{}}
	cp.SetGroupVersionKind(cpGVK)
	cp.SetName(cluster.Name)
	cp.SetNamespace(cluster.Namespace)
	version := cluster.Spec.Topology.Version
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	_ = unstructured.SetNestedField(cp.Object, version, "spec", "version")
	_ = unstructured.SetNestedField(cp.Object, version, "status", "version")
	return s.client.Create(ctx, cp)
}

func (o *oracle) judge(ctx context.Context, s *state, oldU, newU *unstructured.Unstructured) (sub subject, err error) {
	sub = subject{Kind: newU.GetKind(), Namespace: newU.GetNamespace(), Name: newU.GetName(), Warnings: []string{}}
	if sub.Namespace == "" {
		sub.Namespace = "default"
	}
	key := client.ObjectKey{Namespace: sub.Namespace, Name: sub.Name}
	var updateErr, createErr error
	var warnings admission.Warnings
	switch newU.GetKind() {
	case "Cluster":
		stored := &clusterv1.Cluster{}
		if err := s.client.Get(ctx, key, stored); err != nil {
			return sub, err
		}
		fresh := func() (*clusterv1.Cluster, error) {
			cluster := &clusterv1.Cluster{}
			if err := o.typed(newU, cluster); err != nil {
				return nil, err
			}
			if synth, ok := s.synthesized[identity(oldU)]; ok {
				if !cluster.Spec.ControlPlaneRef.IsDefined() {
					cluster.Spec.ControlPlaneRef = synth.Spec.ControlPlaneRef
				}
				if !cluster.Spec.InfrastructureRef.IsDefined() {
					cluster.Spec.InfrastructureRef = synth.Spec.InfrastructureRef
				}
			}
			return cluster, nil
		}
		hook := coreadmission.OracleClusterWebhook(s.client, emptyClusterCache{}, o.scheme)
		applied, err := fresh()
		if err != nil {
			return sub, err
		}
		uctx := admission.NewContextWithRequest(ctx, request(admissionv1.Update, applied, stored))
		if updateErr = hook.Default(uctx, applied); updateErr == nil {
			warnings, updateErr = hook.ValidateUpdate(uctx, stored.DeepCopy(), applied)
		}
		created, err := fresh()
		if err != nil {
			return sub, err
		}
		cctx := admission.NewContextWithRequest(ctx, request(admissionv1.Create, created, nil))
		if createErr = hook.Default(cctx, created); createErr == nil {
			_, createErr = hook.ValidateCreate(cctx, created)
		}
	case "ClusterClass":
		stored := &clusterv1.ClusterClass{}
		if err := s.client.Get(ctx, key, stored); err != nil {
			return sub, err
		}
		applied := &clusterv1.ClusterClass{}
		if err := o.typed(newU, applied); err != nil {
			return sub, err
		}
		hook := &coreadmission.ClusterClass{Client: s.client}
		warnings, updateErr = hook.ValidateUpdate(ctx, stored.DeepCopy(), applied.DeepCopy())
		_, createErr = hook.ValidateCreate(ctx, applied.DeepCopy())
	case "MachinePool":
		stored := &clusterv1.MachinePool{}
		if err := s.client.Get(ctx, key, stored); err != nil {
			return sub, err
		}
		fresh := func() (*clusterv1.MachinePool, error) {
			mp := &clusterv1.MachinePool{}
			return mp, o.typed(newU, mp)
		}
		hook := coreadmission.OracleMachinePoolWebhook(o.scheme)
		applied, err := fresh()
		if err != nil {
			return sub, err
		}
		uctx := admission.NewContextWithRequest(ctx, request(admissionv1.Update, applied, stored))
		if updateErr = hook.Default(uctx, applied); updateErr == nil {
			warnings, updateErr = hook.ValidateUpdate(uctx, stored.DeepCopy(), applied)
		}
		created, err := fresh()
		if err != nil {
			return sub, err
		}
		cctx := admission.NewContextWithRequest(ctx, request(admissionv1.Create, created, nil))
		if createErr = hook.Default(cctx, created); createErr == nil {
			_, createErr = hook.ValidateCreate(cctx, created)
		}
	}
	sub.Allowed = updateErr == nil
	sub.Errors = causes(updateErr)
	sub.CreateErrors = causes(createErr)
	for _, w := range warnings {
		sub.Warnings = append(sub.Warnings, w)
	}
	return sub, nil
}

func readBundle(path string) ([]unstructured.Unstructured, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	objs, err := utilyaml.ToUnstructured(raw)
	return objs, raw, err
}

func fnv1a64(b []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

func (o *oracle) run(ctx context.Context, dir, name string) (row caseRow) {
	row = caseRow{Case: name, Subjects: []subject{}}
	defer func() {
		if x := recover(); x != nil {
			row.Error = fmt.Sprintf("panic: %v", x)
		}
	}()
	oldObjs, oldRaw, err := readBundle(filepath.Join(dir, name+".old.yaml"))
	if err != nil {
		row.Error = err.Error()
		return row
	}
	newObjs, newRaw, err := readBundle(filepath.Join(dir, name+".new.yaml"))
	if err != nil {
		row.Error = err.Error()
		return row
	}
	row.Input = fnv1a64(append(append([]byte{}, oldRaw...), newRaw...))
	// The subjects, judged against the stored bundle as given (before buildState defaults namespaces).
	oldBy := map[string]*unstructured.Unstructured{}
	for i := range oldObjs {
		if isJudged(&oldObjs[i]) {
			oldBy[identity(&oldObjs[i])] = oldObjs[i].DeepCopy()
		}
	}
	type pair struct{ old, new *unstructured.Unstructured }
	changed, all := []pair{}, []pair{}
	for i := range newObjs {
		n := &newObjs[i]
		if !isJudged(n) {
			continue
		}
		if old, ok := oldBy[identity(n)]; ok {
			p := pair{old, n.DeepCopy()}
			all = append(all, p)
			if !reflect.DeepEqual(old.Object, n.Object) {
				changed = append(changed, p)
			}
		}
	}
	if len(changed) == 0 {
		changed = all
	}
	s, err := o.buildState(ctx, oldObjs)
	if err != nil {
		row.Error = err.Error()
		return row
	}
	for _, p := range changed {
		sub, err := o.judge(ctx, s, p.old, p.new)
		if err != nil {
			row.Error = fmt.Sprintf("%s %s: %v", p.new.GetKind(), p.new.GetName(), err)
			return row
		}
		row.Subjects = append(row.Subjects, sub)
	}
	return row
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: capi-update-oracle CASES_DIR CAPZ_CRD_PATCHES_DIR > recordings.json")
		os.Exit(2)
	}
	log.SetLogger(logr.Discard())
	ctrl.SetLogger(logr.Discard())
	if err := feature.MutableGates.Set(fmt.Sprintf("%s=true", feature.ClusterTopology)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := readCAPZContractLabels(os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	coreconversion.SetAPIVersionGetter(func(ctx context.Context, gk schema.GroupKind) (string, error) {
		return contract.GetAPIVersion(ctx, caseClient, gk)
	})
	o := &oracle{scheme: coreScheme(), webhook: conversionWebhook()}
	paths, err := filepath.Glob(filepath.Join(os.Args[1], "*.old.yaml"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sort.Strings(paths)
	ctx := context.Background()
	rows := []caseRow{}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".old.yaml")
		rows = append(rows, o.run(ctx, os.Args[1], name))
	}
	out := map[string]interface{}{
		"referee": "sigs.k8s.io/cluster-api@v1.14.2 core/webhooks/admission (Default, then ValidateUpdate; ValidateCreate beside), driven by tools/capi-update-oracle",
		"capi":    "v1.14.2",
		"go":      goruntime.Version(),
		"cases":   rows,
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
