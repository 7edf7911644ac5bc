// Command capi-topology-oracle-v114 runs Cluster API v1.14.2's own topology code on every case file of a directory
// and prints what it did, as tools/capi-topology-oracle does for v1.10.10's `clusterctl alpha topology plan` (gone
// since v1.11). Built inside a copy of the sigs.k8s.io/cluster-api v1.14.2 module (see ../../regen.sh), because
// the contract helpers live in internal/ and the topology reconciler's steps are unexported (regen.sh adds
// zz_oracle_export.go to core/reconcilers/topology/cluster to call them).
//
// Usage: capi-topology-oracle-v114 CASES_DIR CAPZ_CRD_PATCHES_DIR CAPI_CRD_DIR > recordings-v1.14.2.json
//
// Per case, what a v1.14.2 management cluster does when the case is applied (the order of
// clusterctl's planner): a v1beta1 ClusterClass / Cluster is converted to v1beta2 by CAPI's conversion
// webhook (core/webhooks/conversion, posted as a ConversionReview, as the API server does); the
// ClusterClass's CRD schema and CEL rules (of the version sent, as the API server checks them) and
// validating webhook (core/webhooks/admission); the ClusterClass reconciler
// (core/reconcilers/clusterclass, twice: the first pass only sets the paused condition); the Cluster
// defaulting webhook, its CRD schema and CEL rules, its validating webhook; then the topology reconciler's steps up to the desired state
// (exp/topology/desiredstate Generate). For a new Cluster the reconciler creates exactly the desired
// objects and merge-patches the Cluster into the desired Cluster; those are recorded. The client is
// controller-runtime's fake client holding the case's templates and one CustomResourceDefinition (metadata
// only) per provider kind, labelled with its provider's real contract labels (CAPZ's
// config/crd/patches/capicontract_in_*.yaml; kubeadm's v1beta1: v1beta1, v1beta2: v1beta2).
//
// Output: a JSON array, one row per case in file-name order, in the shape of tools/capi-topology-oracle:
//
//	{"name": ..., "error": "<what failed>"}   or   {"name": ..., "created": [objects], "modified": [{"before", "after"}]}
//
// Before they are recorded, created objects get the API server's metadata check of a create (name, labels,
// annotations); a failure is the case's error, as the controller's create fails.
// Objects are shown as a client of the Cluster's apiVersion reads them: for a v1beta1 Cluster the
// cluster.x-k8s.io objects are converted back to v1beta1 by the same conversion webhook (its
// APIVersionGetter reads the CRDs, as core/main.go sets it up); for a v1beta2 Cluster as v1.14.2 stores
// them. Two normalisations keep the bytes stable: an address CAPI prints as an array index is replaced, and of
// the orders in which CAPI lists several field errors (Go map order) the smallest of 21 runs is kept.
// status, resourceVersion, creationTimestamp and managedFields are dropped; objects are sorted by kind, then
// name; names use apimachinery's random generator seeded with 1 per case.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apixv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
	"sigs.k8s.io/yaml"

	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	clusterclassreconciler "sigs.k8s.io/cluster-api/core/reconcilers/clusterclass"
	topologyreconciler "sigs.k8s.io/cluster-api/core/reconcilers/topology/cluster"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/internal/contract"
	utilcontract "sigs.k8s.io/cluster-api/util/contract"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

var pointerIndex = regexp.MustCompile(`array does not have index [0-9]{6,}`)

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
}

// noClusterCache satisfies NewGenerator's non-nil check; Generate only asks it for a workload cluster client
// when MachinePools already have nodes, which a new Cluster's do not.
type noClusterCache struct{ clustercache.ClusterCache }

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

// conversionWebhook: the handler CAPI's core manager mounts at /convert, with the converters of the kinds the
// topology controller reads and writes.
func conversionWebhook() http.Handler {
	s := conversionScheme()
	registry := conversion.NewRegistry()
	for kind, factory := range map[string]func(*runtime.Scheme) (conversion.Converter, error){
		"Cluster": coreconversion.Cluster, "ClusterClass": coreconversion.ClusterClass,
		"MachineDeployment": coreconversion.MachineDeployment, "MachinePool": coreconversion.MachinePool,
		"MachineHealthCheck": coreconversion.MachineHealthCheck,
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
			UID: types.UID("capi-topology-oracle-v114"), DesiredAPIVersion: desiredAPIVersion,
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

func toMap(s *runtime.Scheme, o runtime.Object) (map[string]interface{}, error) {
	gvks, _, err := s.ObjectKinds(o)
	if err != nil {
		return nil, err
	}
	o = o.DeepCopyObject()
	o.GetObjectKind().SetGroupVersionKind(gvks[0])
	return runtime.DefaultUnstructuredConverter.ToUnstructured(o)
}

func clean(o map[string]interface{}) map[string]interface{} {
	delete(o, "status")
	if m, ok := o["metadata"].(map[string]interface{}); ok {
		for _, k := range []string{"resourceVersion", "creationTimestamp", "managedFields"} {
			delete(m, k)
		}
	}
	return o
}

type planner struct {
	scheme  *runtime.Scheme
	webhook http.Handler
	// CRD schemas of Cluster and ClusterClass, per version (CAPI v1.14.2's core/config/crd/bases).
	schemas map[string]map[string]*versionSchema
}

type versionSchema struct {
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
}

// loadSchemas reads the CRDs of Cluster and ClusterClass as the API server holds them: OpenAPI schema and CEL
// rules per served version.
func loadSchemas(dir string) (map[string]map[string]*versionSchema, error) {
	out := map[string]map[string]*versionSchema{}
	for kind, file := range map[string]string{"Cluster": "cluster.x-k8s.io_clusters.yaml", "ClusterClass": "cluster.x-k8s.io_clusterclasses.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		crd := &apixv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out[kind] = map[string]*versionSchema{}
		for _, v := range crd.Spec.Versions {
			internal := &apiextensionsinternal.JSONSchemaProps{}
			if err := apixv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				return nil, err
			}
			validator, _, err := apiservervalidation.NewSchemaValidator(internal)
			if err != nil {
				return nil, err
			}
			structural, err := structuralschema.NewStructural(internal)
			if err != nil {
				return nil, err
			}
			out[kind][v.Name] = &versionSchema{validator: validator, structural: structural}
		}
	}
	return out, nil
}

// validateSchema is the API server's validation of a custom resource against the CRD schema of the version it
// was sent in (OpenAPI, then CEL x-kubernetes-validations), run between mutating and validating admission.
func (p *planner) validateSchema(ctx context.Context, o map[string]interface{}) error {
	u := unstructured.Unstructured{Object: o}
	gvk := u.GroupVersionKind()
	vs := p.schemas[gvk.Kind][gvk.Version]
	if vs == nil {
		return fmt.Errorf("no CRD schema for %s", gvk)
	}
	errs := apiservervalidation.ValidateCustomResource(nil, o, vs.validator)
	celErrs, _ := cel.NewValidator(vs.structural, true, celconfig.PerCallLimit).Validate(ctx, nil, vs.structural, o, nil, celconfig.RuntimeCELCostBudget)
	errs = append(errs, celErrs...)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(gvk.GroupKind(), u.GetName(), errs)
}

// view: the object as a client of apiVersion `view` (v1beta1 or v1beta2 of cluster.x-k8s.io) reads it.
func (p *planner) view(o map[string]interface{}, v1beta1 bool) (map[string]interface{}, error) {
	u := unstructured.Unstructured{Object: o}
	if v1beta1 && u.GroupVersionKind().Group == clusterv1.GroupVersion.Group && u.GroupVersionKind().Version == "v1beta2" {
		converted, err := convert(p.webhook, o, clusterv1beta1.GroupVersion.String())
		if err != nil {
			return nil, err
		}
		o = converted
	}
	return clean(o), nil
}

func (p *planner) typed(o *unstructured.Unstructured, into client.Object) error {
	m := o.Object
	if o.GroupVersionKind().Version == "v1beta1" {
		converted, err := convert(p.webhook, o.Object, clusterv1.GroupVersion.String())
		if err != nil {
			return err
		}
		m = converted
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, into)
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

// validateCreate is the API server's check of a created custom resource's metadata (the customresource strategy's
// ValidateObjectMetaAccessor with NameIsDNSSubdomain): the topology controller's create fails on an object whose
// generated name, labels or annotations the API server refuses.
func validateCreate(o runtime.Object) error {
	if o == nil {
		return nil
	}
	if u, ok := o.(*unstructured.Unstructured); ok && u == nil {
		return nil
	}
	accessor, err := meta.Accessor(o)
	if err != nil {
		return err
	}
	errs := apimachineryvalidation.ValidateObjectMetaAccessor(accessor, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if len(errs) == 0 {
		return nil
	}
	gvk := o.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		switch o.(type) {
		case *clusterv1.MachineDeployment:
			gvk = clusterv1.GroupVersion.WithKind("MachineDeployment")
		case *clusterv1.MachinePool:
			gvk = clusterv1.GroupVersion.WithKind("MachinePool")
		case *clusterv1.MachineHealthCheck:
			gvk = clusterv1.GroupVersion.WithKind("MachineHealthCheck")
		}
	}
	return apierrors.NewInvalid(gvk.GroupKind(), accessor.GetName(), errs)
}

func (p *planner) plan(ctx context.Context, path string) (r row) {
	r.Name = strings.TrimSuffix(filepath.Base(path), ".yaml")
	fail := func(err error) row {
		// CAPI v1.14.2 formats a *int with %d in "array does not have index %d" (patches/variables/value.go),
		// printing an address that changes from run to run.
		s := pointerIndex.ReplaceAllString(err.Error(), "array does not have index <address of the index>")
		r.Error = &s
		return r
	}
	defer func() {
		if x := recover(); x != nil {
			s := fmt.Sprint(x)
			r.Panic = &s
		}
	}()
	raw, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	objs, err := utilyaml.ToUnstructured(raw)
	if err != nil {
		return fail(fmt.Errorf("parse: %w", err))
	}
	utilrand.Seed(1)

	var clusterU, classU *unstructured.Unstructured
	mapper := meta.NewDefaultRESTMapper(nil)
	for gvk := range p.scheme.AllKnownTypes() {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	mapper.Add(apixv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), meta.RESTScopeRoot)
	initObjs := []client.Object{}
	crds := map[string]bool{}
	for i := range objs {
		o := &objs[i]
		gvk := o.GroupVersionKind()
		switch {
		case gvk.Group == clusterv1.GroupVersion.Group && gvk.Kind == "Cluster":
			clusterU = o
		case gvk.Group == clusterv1.GroupVersion.Group && gvk.Kind == "ClusterClass":
			classU = o
		default:
			// A provider template: stored as given; its kind and the kind it creates are known to the
			// client's RESTMapper and have a CRD.
			for _, kind := range []string{gvk.Kind, strings.TrimSuffix(gvk.Kind, clusterv1.TemplateSuffix)} {
				for _, version := range []string{"v1beta1", "v1beta2", "v1alpha1"} {
					mapper.Add(schema.GroupVersionKind{Group: gvk.Group, Version: version, Kind: kind}, meta.RESTScopeNamespace)
				}
				k := gvk.Group + "/" + kind
				if crds[k] {
					continue
				}
				crds[k] = true
				crd, err := crdFor(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: kind})
				if err != nil {
					return fail(err)
				}
				initObjs = append(initObjs, crd)
			}
			initObjs = append(initObjs, o)
		}
	}
	if clusterU == nil || classU == nil {
		return fail(fmt.Errorf("a case needs one Cluster and one ClusterClass"))
	}
	v1beta1View := clusterU.GroupVersionKind().Version == "v1beta1"

	class := &clusterv1.ClusterClass{}
	if err := p.typed(classU, class); err != nil {
		return fail(fmt.Errorf("converting the ClusterClass: %w", err))
	}
	cluster := &clusterv1.Cluster{}
	if err := p.typed(clusterU, cluster); err != nil {
		return fail(fmt.Errorf("converting the Cluster: %w", err))
	}

	c := fake.NewClientBuilder().WithScheme(p.scheme).WithRESTMapper(mapper).
		WithObjects(initObjs...).WithObjects(class).
		WithStatusSubresource(&clusterv1.ClusterClass{}, &clusterv1.Cluster{}).Build()
	caseClient = c

	// The API server: the ClusterClass as sent against its CRD schema (no mutating webhook for it), then the
	// ClusterClass validating webhook (v1.14.2 has no ClusterClass defaulter).
	if err := p.validateSchema(ctx, classU.DeepCopy().Object); err != nil {
		return fail(fmt.Errorf("failed schema validation of ClusterClass %s/%s: %w", class.Namespace, class.Name, err))
	}
	if _, err := (&coreadmission.ClusterClass{Client: c}).ValidateCreate(ctx, class.DeepCopy()); err != nil {
		return fail(fmt.Errorf("failed validation of ClusterClass %s/%s: %w", class.Namespace, class.Name, err))
	}
	// The ClusterClass reconciler, as clusterctl's planner ran it: twice.
	ccr := &clusterclassreconciler.Reconciler{Client: c}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(class)}
	for i := 0; i < 2; i++ {
		if _, err := ccr.Reconcile(ctx, req); err != nil {
			return fail(fmt.Errorf("ClusterClass %s could not be reconciled: %w", class.Name, err))
		}
	}
	// The Cluster defaulting and validating webhooks.
	clusterWebhook := &coreadmission.Cluster{Client: c}
	if err := clusterWebhook.Default(ctx, cluster); err != nil {
		return fail(fmt.Errorf("failed defaulting of Cluster %s/%s: %w", cluster.Namespace, cluster.Name, err))
	}
	// The defaulted Cluster, in the version it was sent in, against its CRD schema.
	defaulted, err := toMap(p.scheme, cluster)
	if err != nil {
		return fail(err)
	}
	if v1beta1View {
		if defaulted, err = convert(p.webhook, defaulted, clusterv1beta1.GroupVersion.String()); err != nil {
			return fail(err)
		}
	}
	delete(defaulted, "status")
	if err := p.validateSchema(ctx, defaulted); err != nil {
		return fail(fmt.Errorf("failed schema validation of Cluster %s/%s: %w", cluster.Namespace, cluster.Name, err))
	}
	if _, err := clusterWebhook.ValidateCreate(ctx, cluster); err != nil {
		return fail(fmt.Errorf("failed validation of Cluster %s/%s: %w", cluster.Namespace, cluster.Name, err))
	}
	// The API server gives the Cluster a UID; owner references to it carry it (a fixed one here).
	cluster.UID = types.UID("00000000-0000-0000-0000-00000000c1a5")
	if err := c.Create(ctx, cluster.DeepCopy()); err != nil {
		return fail(fmt.Errorf("storing the Cluster: %w", err))
	}
	before, err := toMap(p.scheme, cluster)
	if err != nil {
		return fail(err)
	}

	generator, err := desiredstate.NewGenerator(c, noClusterCache{}, nil, nil, nil)
	if err != nil {
		return fail(err)
	}
	s, err := topologyreconciler.OracleDesiredState(ctx, c, cluster.DeepCopy(), generator)
	if err != nil {
		return fail(fmt.Errorf("failed to dry run the topology controller: %w", err))
	}

	created := []map[string]interface{}{}
	add := func(o runtime.Object) error {
		if o == nil {
			return nil
		}
		var m map[string]interface{}
		if u, ok := o.(*unstructured.Unstructured); ok {
			if u == nil {
				return nil
			}
			m = u.DeepCopy().Object
		} else {
			var err error
			if m, err = toMap(p.scheme, o); err != nil {
				return err
			}
		}
		v, err := p.view(m, v1beta1View)
		if err != nil {
			return err
		}
		created = append(created, v)
		return nil
	}
	d := s.Desired
	objects := []runtime.Object{d.InfrastructureCluster, d.ControlPlane.Object, d.ControlPlane.InfrastructureMachineTemplate}
	if d.ControlPlane.MachineHealthCheck != nil {
		objects = append(objects, d.ControlPlane.MachineHealthCheck)
	}
	for _, name := range sortedKeys(d.MachineDeployments) {
		md := d.MachineDeployments[name]
		objects = append(objects, md.Object, md.BootstrapTemplate, md.InfrastructureMachineTemplate)
		if md.MachineHealthCheck != nil {
			objects = append(objects, md.MachineHealthCheck)
		}
	}
	for _, name := range sortedKeys(d.MachinePools) {
		mp := d.MachinePools[name]
		objects = append(objects, mp.Object, mp.BootstrapObject, mp.InfrastructureMachinePoolObject)
	}
	for _, o := range objects {
		if err := validateCreate(o); err != nil {
			return fail(fmt.Errorf("failed to dry run the topology controller: error reconciling the Cluster topology: %w", err))
		}
	}
	for _, o := range objects {
		if err := add(o); err != nil {
			return fail(err)
		}
	}
	key := func(o map[string]interface{}) string {
		u := unstructured.Unstructured{Object: o}
		return u.GetKind() + "/" + u.GetName()
	}
	sort.Slice(created, func(i, j int) bool { return key(created[i]) < key(created[j]) })
	r.Created = created

	after, err := toMap(p.scheme, d.Cluster)
	if err != nil {
		return fail(err)
	}
	bv, err := p.view(before, v1beta1View)
	if err != nil {
		return fail(err)
	}
	av, err := p.view(after, v1beta1View)
	if err != nil {
		return fail(err)
	}
	r.Modified = []modified{{Before: bv, After: av}}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: capi-topology-oracle-v114 CASES_DIR CAPZ_CRD_PATCHES_DIR CAPI_CRD_DIR > recordings-v1.14.2.json")
		os.Exit(2)
	}
	log.SetLogger(logr.Discard())
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
	schemas, err := loadSchemas(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p := &planner{scheme: coreScheme(), webhook: conversionWebhook(), schemas: schemas}
	paths, err := filepath.Glob(filepath.Join(os.Args[1], "*.yaml"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sort.Strings(paths)
	ctx := context.Background()
	rows := make([]row, 0, len(paths))
	for _, path := range paths {
		r := p.plan(ctx, path)
		// CAPI validates some maps (labels, annotations) in Go's random map order, so a list of several
		// field errors comes in varying order: of 20 runs the smallest message is kept.
		if r.Error != nil && strings.Contains(*r.Error, "is invalid: [") {
			for i := 0; i < 20; i++ {
				if again := p.plan(ctx, path); again.Error != nil && *again.Error < *r.Error {
					r = again
				}
			}
		}
		rows = append(rows, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
