// Command capz-webhook-oracle drives CAPZ's real admission webhooks over bundles of manifests the way the
// kube-apiserver and Cluster API's controllers drive them, and prints what they decide as JSON.
//
// It is built by tools/capz-webhook-oracle/regen.sh inside a copy of CAPZ's module source
// (sigs.k8s.io/cluster-api-provider-azure at the release given to regen.sh, from the Go module proxy) so that it
// can import CAPZ's internal/webhooks package. It is not part of kubectl-capz; CI only replays its recordings.
//
// Per case (one multi-document YAML file), objects are admitted in file order (kubectl apply order):
//
//	create: prune unknown fields + CRD structural defaulting (CAPZ's CRDs from config/crd/bases),
//	        CAPZ's mutating webhook (registered handler, JSON patch applied), prune + default again,
//	        CRD schema validation, CAPZ's validating webhook. Allowed objects are stored in a
//	        controller-runtime fake client that the webhooks read (the Cluster, the other pools).
//	update: Cluster API's first update of each stored CAPZ object: the Cluster controller labels the
//	        objects its Cluster references (infrastructureRef, controlPlaneRef), the MachinePool
//	        controller labels its pool's infrastructureRef, with cluster.x-k8s.io/cluster-name, and the
//	        ClusterClass controller adds an owner reference to the templates its ClusterClass names.
//	        The same chain then runs with operation UPDATE (ValidateUpdate(old, new)).
//
// Which webhook runs for which operation comes from CAPZ's config/webhook/manifests.yaml.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
	sigsyaml "sigs.k8s.io/yaml"

	infrav1 "sigs.k8s.io/cluster-api-provider-azure/api/v1beta1"
	"sigs.k8s.io/cluster-api-provider-azure/internal/webhooks"
)

const (
	clusterNameLabel = "cluster.x-k8s.io/cluster-name"
	generatedSSHKey  = "<generated-by-capz-webhook>"
)

// --- a manager that only records webhook registrations -------------------------------------------------

type recordingServer struct {
	mux   *http.ServeMux
	hooks map[string]*admission.Webhook
}

func (s *recordingServer) NeedLeaderElection() bool { return false }
func (s *recordingServer) Register(path string, hook http.Handler) {
	if wh, ok := hook.(*admission.Webhook); ok {
		s.hooks[path] = wh
	}
	s.mux.Handle(path, hook)
}
func (s *recordingServer) Start(context.Context) error         { return nil }
func (s *recordingServer) StartedChecker() healthz.Checker     { return healthz.Ping }
func (s *recordingServer) WebhookMux() *http.ServeMux          { return s.mux }
func (s *recordingServer) tlsDisabled() bool                   { return true }
func (s *recordingServer) hook(path string) *admission.Webhook { return s.hooks[path] }

type recordingManager struct {
	manager.Manager // nil: any method not overridden below is not used by CAPZ's webhook setup
	scheme          *runtime.Scheme
	client          client.Client
	server          *recordingServer
	registry        conversion.Registry
}

func (m *recordingManager) GetScheme() *runtime.Scheme                    { return m.scheme }
func (m *recordingManager) GetClient() client.Client                      { return m.client }
func (m *recordingManager) GetWebhookServer() webhook.Server              { return m.server }
func (m *recordingManager) GetLogger() logr.Logger                        { return logr.Discard() }
func (m *recordingManager) GetConfig() *rest.Config                       { return &rest.Config{} }
func (m *recordingManager) GetConverterRegistry() conversion.Registry     { return m.registry }
func (m *recordingManager) GetAPIReader() client.Reader                   { return m.client }
func (m *recordingManager) GetHTTPClient() *http.Client                   { return http.DefaultClient }
func (m *recordingManager) Add(manager.Runnable) error                    { return nil }
func (m *recordingManager) AddHealthzCheck(string, healthz.Checker) error { return nil }

// --- the webhook configuration CAPZ ships --------------------------------------------------------------

type hookRule struct {
	mutating   bool
	name       string
	path       string
	resource   string
	operations map[string]bool
}

func loadWebhookConfig(path string) ([]hookRule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rules []hookRule
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		var head metav1.TypeMeta
		if err := sigsyaml.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			var cfg admissionregistrationv1.MutatingWebhookConfiguration
			if err := sigsyaml.Unmarshal(doc, &cfg); err != nil {
				return nil, err
			}
			for _, w := range cfg.Webhooks {
				rules = append(rules, ruleOf(true, w.Name, w.ClientConfig, w.Rules)...)
			}
		case "ValidatingWebhookConfiguration":
			var cfg admissionregistrationv1.ValidatingWebhookConfiguration
			if err := sigsyaml.Unmarshal(doc, &cfg); err != nil {
				return nil, err
			}
			for _, w := range cfg.Webhooks {
				rules = append(rules, ruleOf(false, w.Name, w.ClientConfig, w.Rules)...)
			}
		}
	}
	return rules, nil
}

func ruleOf(mutating bool, name string, cc admissionregistrationv1.WebhookClientConfig, rs []admissionregistrationv1.RuleWithOperations) []hookRule {
	var out []hookRule
	for _, r := range rs {
		ops := map[string]bool{}
		for _, op := range r.Operations {
			ops[string(op)] = true
		}
		for _, res := range r.Resources {
			out = append(out, hookRule{mutating: mutating, name: name, path: *cc.Service.Path, resource: res, operations: ops})
		}
	}
	return out
}

// --- CRDs -----------------------------------------------------------------------------------------------

type crdInfo struct {
	plural     string
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	deprecated *string
}

func loadCRDs(dir string) (map[string]*crdInfo, error) {
	out := map[string]*crdInfo{}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := sigsyaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			var internal apiextensionsinternal.JSONSchemaProps
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			s, err := structuralschema.NewStructural(&internal)
			if err != nil {
				return nil, fmt.Errorf("%s %s: structural schema: %w", f, v.Name, err)
			}
			validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
			if err != nil {
				return nil, fmt.Errorf("%s %s: schema validator: %w", f, v.Name, err)
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			info := &crdInfo{plural: crd.Spec.Names.Plural, structural: s, validator: validator}
			if v.Deprecated {
				w := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, v.Name, crd.Spec.Names.Kind)
				if v.DeprecationWarning != nil {
					w = *v.DeprecationWarning
				}
				info.deprecated = &w
			}
			out[gvk.String()] = info
		}
	}
	return out, nil
}

// --- recordings -----------------------------------------------------------------------------------------

// FieldError is one cause of a denial.
type FieldError struct {
	Field   string `json:"field"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

// Verdict is what one admission (create or update) of one object ended in.
type Verdict struct {
	Allowed bool `json:"allowed"`
	// Stage that denied: "schema" (CRD structural schema) or "webhook" (CAPZ's validating or mutating webhook).
	Stage    string       `json:"stage,omitempty"`
	Webhook  string       `json:"webhook,omitempty"`
	Message  string       `json:"message,omitempty"`
	Errors   []FieldError `json:"errors,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	// Patch is what admission changed (CRD defaulting + CAPZ's defaulting webhook), as RFC 6902
	// operations from the object as sent (after pruning) to the object as stored.
	Patch []any `json:"patch,omitempty"`
	// UnknownFields are the fields the API server prunes (kubectl's default strict field validation
	// rejects the request naming them; with --validate=warn or =ignore they are dropped silently).
	UnknownFields []string `json:"unknown_fields,omitempty"`
	// Change describes what the update phase changed (update only).
	Change string `json:"change,omitempty"`
}

// ObjectRecord is one CAPZ object of a case.
type ObjectRecord struct {
	Document  int      `json:"document"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Create    Verdict  `json:"create"`
	Update    *Verdict `json:"update"`
	// UpdateSkipped says why there is no update phase.
	UpdateSkipped string `json:"update_skipped,omitempty"`
}

// CaseRecord is one bundle.
type CaseRecord struct {
	Case string `json:"case"`
	// InputFNV1a64 is the FNV-1a 64-bit hash of the case file's bytes (hex), so that the replay test
	// notices a case edited without re-recording.
	InputFNV1a64 string         `json:"input_fnv1a64"`
	Objects      []ObjectRecord `json:"objects"`
}

// Recordings is the whole output: a header saying what was built, then the cases.
type Recordings struct {
	Referee string `json:"referee"`
	// CAPZ is the CAPZ release whose module source the harness was built in (regen.sh's argument).
	CAPZ string `json:"capz"`
	// CAPI and ASO are the versions of those modules in the build's module graph (`go list -m` in the copy; ASO's
	// as CAPZ's go.mod requires it).
	CAPI string `json:"capi"`
	ASO  string `json:"aso"`
	// ASOReplace is the replace directive the build used for ASO, when CAPZ's pinned ASO release could not be had.
	ASOReplace string       `json:"aso_replace,omitempty"`
	Cases      []CaseRecord `json:"cases"`
}

// --- the harness ----------------------------------------------------------------------------------------

type harness struct {
	scheme *runtime.Scheme
	rules  []hookRule
	crds   map[string]*crdInfo
}

type caseRun struct {
	h      *harness
	client client.Client
	server *recordingServer
}

func (h *harness) newCaseRun() (*caseRun, error) {
	c := fake.NewClientBuilder().WithScheme(h.scheme).Build()
	srv := &recordingServer{mux: http.NewServeMux(), hooks: map[string]*admission.Webhook{}}
	mgr := &recordingManager{scheme: h.scheme, client: c, server: srv, registry: conversion.NewRegistry()}
	setups := []interface{ SetupWebhookWithManager(manager.Manager) error }{
		&webhooks.AzureClusterIdentityWebhook{},
		&webhooks.AzureManagedMachinePoolWebhook{},
		&webhooks.AzureManagedMachinePoolTemplateWebhook{},
		&webhooks.AzureManagedClusterWebhook{},
		&webhooks.AzureManagedClusterTemplateWebhook{},
		&webhooks.AzureManagedControlPlaneWebhook{},
		&webhooks.AzureManagedControlPlaneTemplateWebhook{},
		&webhooks.AzureASOManagedClusterWebhook{},
		&webhooks.AzureASOManagedControlPlaneWebhook{},
		&webhooks.AzureASOManagedMachinePoolWebhook{},
	}
	for _, s := range setups {
		if err := s.SetupWebhookWithManager(mgr); err != nil {
			return nil, fmt.Errorf("%T: %w", s, err)
		}
	}
	return &caseRun{h: h, client: c, server: srv}, nil
}

type document struct {
	index int
	obj   map[string]any
}

func (d document) gvk() schema.GroupVersionKind {
	apiVersion, _ := d.obj["apiVersion"].(string)
	kind, _ := d.obj["kind"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithKind(kind)
}

func (d document) meta() map[string]any {
	m, _ := d.obj["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		d.obj["metadata"] = m
	}
	return m
}

func (d document) name() string      { s, _ := d.meta()["name"].(string); return s }
func (d document) namespace() string { s, _ := d.meta()["namespace"].(string); return s }

func (r *caseRun) hooksFor(plural, op string, mutating bool) []hookRule {
	var out []hookRule
	for _, rule := range r.h.rules {
		if rule.mutating == mutating && rule.resource == plural && rule.operations[op] {
			out = append(out, rule)
		}
	}
	return out
}

// admit runs one object through the API server's admission chain and returns the verdict and the
// object as it would be stored.
func (r *caseRun) admit(op string, obj, old map[string]any) (Verdict, map[string]any) {
	gvk := document{obj: obj}.gvk()
	crd := r.h.crds[gvk.String()]
	v := Verdict{Allowed: true}
	if crd.deprecated != nil {
		v.Warnings = append(v.Warnings, "apiserver: "+*crd.deprecated)
	}
	structural := func(o map[string]any) {
		structuralpruning.Prune(o, crd.structural, true)
		structuraldefaulting.Default(o, crd.structural)
	}
	current := deepCopy(obj)
	unknown := structuralpruning.PruneWithOptions(current, crd.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(unknown)
	v.UnknownFields = unknown
	// The CRD handler's decoder also drops nulls of fields that are neither nullable nor defaulted
	// (customresource_handler.go, schemaCoercingConverter).
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(current, crd.structural)
	input := deepCopy(current) // the user's object as the API server decodes it (pruned)
	structuraldefaulting.Default(current, crd.structural)
	emptyKey := false
	if spec, ok := current["spec"].(map[string]any); ok {
		if key, ok := spec["sshPublicKey"].(string); ok && key == "" {
			emptyKey = true
		}
	}

	for _, rule := range r.hooksFor(crd.plural, op, true) {
		resp := r.call(rule, op, current, old)
		v.Warnings = append(v.Warnings, resp.Warnings...)
		if !resp.Allowed {
			return deny(v, "webhook", rule.name, resp), nil
		}
		if len(resp.Patch) > 0 {
			patch, err := jsonpatch.DecodePatch(resp.Patch)
			if err != nil {
				panic(err)
			}
			raw, _ := json.Marshal(current)
			patched, err := patch.Apply(raw)
			if err != nil {
				panic(err)
			}
			current = map[string]any{}
			if err := json.Unmarshal(patched, &current); err != nil {
				panic(err)
			}
		}
		structural(current)
	}
	if spec, ok := current["spec"].(map[string]any); ok && emptyKey {
		if key, ok := spec["sshPublicKey"].(string); ok && key != "" {
			generatedKeys[key] = true
		}
	}
	v.Patch = diffPatch(input, current)

	var schemaErrs field.ErrorList
	if op == "CREATE" {
		schemaErrs = apiservervalidation.ValidateCustomResource(nil, current, crd.validator)
	} else {
		schemaErrs = apiservervalidation.ValidateCustomResourceUpdate(nil, current, old, crd.validator)
	}
	if len(schemaErrs) > 0 {
		v.Allowed = false
		v.Stage = "schema"
		v.Message = schemaErrs.ToAggregate().Error()
		for _, e := range schemaErrs {
			v.Errors = append(v.Errors, FieldError{Field: e.Field, Type: string(e.Type), Message: e.ErrorBody()})
		}
		return v, nil
	}

	for _, rule := range r.hooksFor(crd.plural, op, false) {
		resp := r.call(rule, op, current, old)
		v.Warnings = append(v.Warnings, resp.Warnings...)
		if !resp.Allowed {
			return deny(v, "webhook", rule.name, resp), nil
		}
	}
	return v, current
}

func deny(v Verdict, stage, hook string, resp admission.Response) Verdict {
	v.Allowed = false
	v.Stage = stage
	v.Webhook = hook // v.Patch stays: what admission had changed before the denial
	if resp.Result != nil {
		v.Message = resp.Result.Message
		if resp.Result.Details != nil {
			for _, c := range resp.Result.Details.Causes {
				v.Errors = append(v.Errors, FieldError{Field: c.Field, Type: string(c.Type), Message: c.Message})
			}
		}
	}
	if len(v.Errors) == 0 {
		v.Errors = parseFieldErrors(v.Message)
	}
	return v
}

// parseFieldErrors recovers field.Error causes from a denial message the webhook built from a plain
// (non-APIStatus) error, e.g. an aggregate of field errors: "[spec.a: Invalid value: ..., spec.b: Forbidden: ...]".
var fieldErrorStart = regexp.MustCompile(`(?:^|\[|, )([A-Za-z][A-Za-z0-9_.\[\]-]*): (Invalid value|Forbidden|Required value|Too many|Unsupported value|Duplicate value|Not found|Internal error|Too long)`)

func parseFieldErrors(msg string) []FieldError {
	idx := fieldErrorStart.FindAllStringSubmatchIndex(msg, -1)
	var out []FieldError
	for i, m := range idx {
		end := len(msg)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		body := strings.TrimSuffix(strings.TrimSpace(msg[m[4]:end]), "]")
		out = append(out, FieldError{Field: msg[m[2]:m[3]], Type: msg[m[4]:m[5]], Message: body})
	}
	if len(out) == 0 && msg != "" {
		out = append(out, FieldError{Field: "", Message: msg})
	}
	return out
}

func (r *caseRun) call(rule hookRule, op string, obj, old map[string]any) admission.Response {
	hook := r.server.hook(rule.path)
	if hook == nil {
		panic(fmt.Sprintf("no handler registered at %s (webhook %s)", rule.path, rule.name))
	}
	raw, _ := json.Marshal(obj)
	gvk := document{obj: obj}.gvk()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID("referee"),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: rule.resource},
		Name:      document{obj: obj}.name(),
		Namespace: document{obj: obj}.namespace(),
		Operation: admissionv1.Operation(op),
		Object:    runtime.RawExtension{Raw: raw},
	}}
	if old != nil {
		oldRaw, _ := json.Marshal(old)
		req.OldObject = runtime.RawExtension{Raw: oldRaw}
	}
	return hook.Handle(context.Background(), req)
}

// store puts an admitted object into the fake client, typed, as the webhooks will read it.
func (r *caseRun) store(obj map[string]any, update bool) error {
	gvk := document{obj: obj}.gvk()
	var typed client.Object
	if gvk.Group == clusterv1.GroupVersion.Group && gvk.Kind == "Cluster" {
		// CAPZ reads clusterv1 (v1beta2) Clusters; the fields it reads (metadata, spec.clusterNetwork)
		// have the same JSON shape in v1beta1, so only those are carried over.
		c := &clusterv1.Cluster{}
		meta, _ := json.Marshal(obj["metadata"])
		if err := json.Unmarshal(meta, &c.ObjectMeta); err != nil {
			return err
		}
		if spec, ok := obj["spec"].(map[string]any); ok {
			if cn, ok := spec["clusterNetwork"]; ok {
				raw, _ := json.Marshal(cn)
				if err := json.Unmarshal(raw, &c.Spec.ClusterNetwork); err != nil {
					return fmt.Errorf("Cluster %s: spec.clusterNetwork: %w", c.Name, err)
				}
			}
		}
		c.ResourceVersion = ""
		typed = c
	} else {
		rt, err := r.h.scheme.New(gvk)
		if err != nil {
			return nil // a kind the webhooks never read (Secret, MachinePool, KubeadmConfig, ...)
		}
		raw, _ := json.Marshal(obj)
		if err := json.Unmarshal(raw, rt); err != nil {
			return err
		}
		typed = rt.(client.Object)
		typed.SetResourceVersion("")
	}
	if update {
		existing := typed.DeepCopyObject().(client.Object)
		if err := r.client.Get(context.Background(), client.ObjectKeyFromObject(typed), existing); err != nil {
			return err
		}
		typed.SetResourceVersion(existing.GetResourceVersion())
		return r.client.Update(context.Background(), typed)
	}
	return r.client.Create(context.Background(), typed)
}

// admitted is a bundle after creation and Cluster API's first update: what the API server stores.
type admitted struct {
	run     *caseRun
	stored  map[int]map[string]any
	changes map[int]update
	byDoc   map[int]*ObjectRecord
	records []*ObjectRecord
}

func (h *harness) runCase(name string, docs []document) (CaseRecord, error) {
	rec := CaseRecord{Case: name, Objects: []ObjectRecord{}}
	a, err := h.admitBundle(docs)
	if err != nil {
		return rec, err
	}
	for _, or := range a.records {
		rec.Objects = append(rec.Objects, *or)
	}
	return rec, nil
}

// admitBundle creates every document in file order, then runs Cluster API's first update of each stored CAPZ
// object.
func (h *harness) admitBundle(docs []document) (*admitted, error) {
	run, err := h.newCaseRun()
	if err != nil {
		return nil, err
	}
	stored := map[int]map[string]any{}
	var records []*ObjectRecord
	byDoc := map[int]*ObjectRecord{}
	for _, d := range docs {
		meta := d.meta()
		if d.namespace() == "" {
			meta["namespace"] = "default"
		}
		meta["uid"] = fmt.Sprintf("uid-%d", d.index)
		meta["creationTimestamp"] = "2026-01-01T00:00:00Z"
		gvk := d.gvk()
		if _, ok := h.crds[gvk.String()]; !ok {
			if err := run.store(d.obj, false); err != nil {
				return nil, fmt.Errorf("document %d (%s %s): %w", d.index, gvk.Kind, d.name(), err)
			}
			continue
		}
		or := &ObjectRecord{Document: d.index, Kind: gvk.Kind, Namespace: d.namespace(), Name: d.name()}
		verdict, admitted := run.admit("CREATE", d.obj, nil)
		or.Create = verdict
		if admitted != nil {
			meta := admitted["metadata"].(map[string]any)
			meta["generation"] = int64(1)
			stored[d.index] = admitted
			if err := run.store(admitted, false); err != nil {
				return nil, fmt.Errorf("document %d: store: %w", d.index, err)
			}
		}
		records = append(records, or)
		byDoc[d.index] = or
	}

	// Cluster API's first update.
	changes := firstUpdates(docs)
	for _, d := range docs {
		or := byDoc[d.index]
		if or == nil {
			continue
		}
		old := stored[d.index]
		if old == nil {
			or.UpdateSkipped = "denied at create"
			continue
		}
		change, ok := changes[d.index]
		if !ok {
			or.UpdateSkipped = "no Cluster API controller updates it (not referenced by a Cluster, MachinePool or ClusterClass of the bundle)"
			continue
		}
		next := deepCopy(old)
		change.apply(next)
		verdict, admitted := run.admit("UPDATE", next, old)
		verdict.Change = change.describe()
		or.Update = &verdict
		if admitted != nil {
			stored[d.index] = admitted
			if err := run.store(admitted, true); err != nil {
				return nil, fmt.Errorf("document %d: store update: %w", d.index, err)
			}
		}
	}
	return &admitted{run: run, stored: stored, changes: changes, byDoc: byDoc, records: records}, nil
}

// runPair admits the old bundle (create, then Cluster API's first update), then sends each object of the new
// bundle as an UPDATE of the stored object of the same kind, namespace and name: the object as written, with
// what the API server and Cluster API keep of the stored one (uid, creationTimestamp, generation, the
// cluster-name label and owner reference Cluster API added).
func (h *harness) runPair(name string, oldDocs, newDocs []document) (CaseRecord, error) {
	rec := CaseRecord{Case: name, Objects: []ObjectRecord{}}
	a, err := h.admitBundle(oldDocs)
	if err != nil {
		return rec, err
	}
	type key struct{ ns, kind, name string }
	index := map[key]int{}
	for _, d := range oldDocs {
		index[key{d.namespace(), d.gvk().Kind, d.name()}] = d.index
	}
	for _, nd := range newDocs {
		meta := nd.meta()
		if nd.namespace() == "" {
			meta["namespace"] = "default"
		}
		gvk := nd.gvk()
		if _, ok := h.crds[gvk.String()]; !ok {
			return rec, fmt.Errorf("new document %d (%s %s): a pair changes CAPZ objects only", nd.index, gvk.Kind, nd.name())
		}
		i, ok := index[key{nd.namespace(), gvk.Kind, nd.name()}]
		if !ok {
			return rec, fmt.Errorf("new document %d (%s %s): not in the old bundle", nd.index, gvk.Kind, nd.name())
		}
		created := a.byDoc[i]
		or := ObjectRecord{Document: nd.index, Kind: gvk.Kind, Namespace: nd.namespace(), Name: nd.name(), Create: created.Create}
		old := a.stored[i]
		switch {
		case old == nil:
			or.UpdateSkipped = "the old object was denied at create"
		case created.Update != nil && !created.Update.Allowed:
			or.UpdateSkipped = "Cluster API's first update of the old object was denied"
		}
		if or.UpdateSkipped != "" {
			rec.Objects = append(rec.Objects, or)
			continue
		}
		oldMeta := old["metadata"].(map[string]any)
		for _, k := range []string{"uid", "creationTimestamp"} {
			meta[k] = oldMeta[k]
		}
		if change, ok := a.changes[i]; ok {
			change.apply(nd.obj)
		}
		meta["generation"] = oldMeta["generation"]
		verdict, _ := a.run.admit("UPDATE", nd.obj, old)
		verdict.Change = "the pair's new object"
		maskGeneratedInVerdict(&verdict)
		or.Update = &verdict
		rec.Objects = append(rec.Objects, or)
	}
	return rec, nil
}

type update struct {
	clusterName string
	ownerKind   string
	ownerName   string
	ownerAPI    string
}

func (u update) apply(obj map[string]any) {
	meta := obj["metadata"].(map[string]any)
	if u.clusterName != "" {
		labels, _ := meta["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
		}
		labels[clusterNameLabel] = u.clusterName
		meta["labels"] = labels
	}
	refs, _ := meta["ownerReferences"].([]any)
	refs = append(refs, map[string]any{"apiVersion": u.ownerAPI, "kind": u.ownerKind, "name": u.ownerName, "uid": "uid-owner-" + u.ownerName})
	meta["ownerReferences"] = refs
	meta["generation"] = int64(1)
}

func (u update) describe() string {
	if u.clusterName != "" {
		return fmt.Sprintf("label %s=%s, owner %s/%s", clusterNameLabel, u.clusterName, u.ownerKind, u.ownerName)
	}
	return fmt.Sprintf("owner %s/%s", u.ownerKind, u.ownerName)
}

// firstUpdates finds, per document, the update a Cluster API controller makes first.
func firstUpdates(docs []document) map[int]update {
	type key struct{ ns, kind, name string }
	index := map[key]int{}
	for _, d := range docs {
		index[key{d.namespace(), d.gvk().Kind, d.name()}] = d.index
	}
	out := map[int]update{}
	ref := func(ns string, v any) (int, bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		i, ok := index[key{ns, kind, name}]
		return i, ok
	}
	for _, d := range docs {
		gvk := d.gvk()
		if gvk.Group != "cluster.x-k8s.io" {
			continue
		}
		spec, _ := d.obj["spec"].(map[string]any)
		switch gvk.Kind {
		case "Cluster":
			for _, f := range []string{"infrastructureRef", "controlPlaneRef"} {
				if i, ok := ref(d.namespace(), spec[f]); ok {
					out[i] = update{clusterName: d.name(), ownerKind: "Cluster", ownerName: d.name(), ownerAPI: d.obj["apiVersion"].(string)}
				}
			}
		case "MachinePool":
			tmpl, _ := spec["template"].(map[string]any)
			tspec, _ := tmpl["spec"].(map[string]any)
			clusterName, _ := spec["clusterName"].(string)
			if i, ok := ref(d.namespace(), tspec["infrastructureRef"]); ok {
				out[i] = update{clusterName: clusterName, ownerKind: "MachinePool", ownerName: d.name(), ownerAPI: d.obj["apiVersion"].(string)}
			}
		case "ClusterClass":
			walk(spec, func(m map[string]any) {
				if i, ok := ref(d.namespace(), m); ok {
					if _, seen := out[i]; !seen {
						out[i] = update{ownerKind: "ClusterClass", ownerName: d.name(), ownerAPI: d.obj["apiVersion"].(string)}
					}
				}
			})
		}
	}
	return out
}

func walk(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, c := range t {
			walk(c, f)
		}
	case []any:
		for _, c := range t {
			walk(c, f)
		}
	}
}

// --- helpers --------------------------------------------------------------------------------------------

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	raw, _ := json.Marshal(m)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

func diffPatch(before, after map[string]any) []any {
	a, _ := json.Marshal(maskGenerated(deepCopy(before)))
	b, _ := json.Marshal(maskGenerated(deepCopy(after)))
	if bytes.Equal(a, b) {
		return nil
	}
	ops := jsonDiff("", decode(a), decode(b))
	sort.SliceStable(ops, func(i, j int) bool {
		return ops[i].(map[string]any)["path"].(string) < ops[j].(map[string]any)["path"].(string)
	})
	return ops
}

func decode(raw []byte) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// jsonDiff is a small RFC 6902 diff: add/replace/remove per leaf or whole subtree, map keys sorted.
func jsonDiff(path string, a, b any) []any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []any
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			av, ain := am[k]
			bv, bin := bm[k]
			switch {
			case ain && !bin:
				out = append(out, map[string]any{"op": "remove", "path": p})
			case !ain && bin:
				out = append(out, map[string]any{"op": "add", "path": p, "value": bv})
			default:
				out = append(out, jsonDiff(p, av, bv)...)
			}
		}
		return out
	}
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	if bytes.Equal(ra, rb) {
		return nil
	}
	return []any{map[string]any{"op": "replace", "path": path, "value": b}}
}

// maskGenerated replaces the SSH key CAPZ's defaulting generates at random (spec.sshPublicKey: "")
// so that recordings are reproducible.
func maskGenerated(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	if spec, ok := obj["spec"].(map[string]any); ok {
		if key, ok := spec["sshPublicKey"].(string); ok && generatedKeys[key] {
			spec["sshPublicKey"] = generatedSSHKey
		}
	}
	return obj
}

// maskGeneratedInVerdict replaces the generated SSH keys in a verdict's messages (an immutability error quotes
// the new, generated key) so that recordings are reproducible.
func maskGeneratedInVerdict(v *Verdict) {
	mask := func(s string) string {
		for key := range generatedKeys {
			s = strings.ReplaceAll(s, key, generatedSSHKey)
		}
		return s
	}
	v.Message = mask(v.Message)
	for i := range v.Errors {
		v.Errors[i].Message = mask(v.Errors[i].Message)
	}
}

// generatedKeys holds the keys the webhook generated in this run (recorded when a patch introduces one).
var generatedKeys = map[string]bool{}

func readDocs(path string) ([]document, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var docs []document
	for i := 0; ; {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var obj map[string]any
		if err := sigsyaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s document %d: %w", path, i, err)
		}
		if obj == nil {
			continue
		}
		docs = append(docs, document{index: i, obj: obj})
		i++
	}
	return docs, nil
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func main() {
	module := flag.String("module", ".", "root of the CAPZ module copy (config/crd/bases, config/webhook)")
	casesDir := flag.String("cases", "", "directory of case bundles (*.yaml)")
	pairsDir := flag.String("pairs", "", "directory of update pairs (NAME.old.yaml + NAME.new.yaml); replaces -cases")
	capzVersion := flag.String("capz-version", "", "the CAPZ release the module copy is (for the header)")
	capiVersion := flag.String("capi-version", "", "the CAPI version in the build's module graph (for the header)")
	asoVersion := flag.String("aso-version", "", "the ASO version CAPZ's go.mod requires (for the header)")
	asoReplace := flag.String("aso-replace", "", "the replace directive the build used for ASO, if any (for the header)")
	flag.Parse()
	ctrllog.SetLogger(logr.Discard())

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(clusterv1.AddToScheme(scheme))
	must(infrav1.AddToScheme(scheme))

	rules, err := loadWebhookConfig(filepath.Join(*module, "config/webhook/manifests.yaml"))
	must(err)
	crds, err := loadCRDs(filepath.Join(*module, "config/crd/bases"))
	must(err)
	h := &harness{scheme: scheme, rules: rules, crds: crds}
	out := Recordings{
		Referee:    "sigs.k8s.io/cluster-api-provider-azure@" + *capzVersion + " internal/webhooks, driven by tools/capz-webhook-oracle",
		CAPZ:       *capzVersion,
		CAPI:       *capiVersion,
		ASO:        *asoVersion,
		ASOReplace: *asoReplace,
		Cases:      []CaseRecord{},
	}

	if *pairsDir != "" {
		out.Referee = "sigs.k8s.io/cluster-api-provider-azure@" + *capzVersion + " internal/webhooks on UPDATE, driven by tools/capz-webhook-oracle -pairs"
		files, err := filepath.Glob(filepath.Join(*pairsDir, "*.old.yaml"))
		must(err)
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".old.yaml")
			newFile := filepath.Join(*pairsDir, name+".new.yaml")
			oldDocs, err := readDocs(f)
			must(err)
			newDocs, err := readDocs(newFile)
			must(err)
			hash := fnv.New64a()
			for _, path := range []string{f, newFile} {
				raw, err := os.ReadFile(path)
				must(err)
				_, _ = hash.Write(raw)
			}
			rec, err := h.runPair(name, oldDocs, newDocs)
			if err != nil {
				fmt.Fprintf(os.Stderr, "pair %s: %v\n", name, err)
				os.Exit(1)
			}
			rec.InputFNV1a64 = fmt.Sprintf("%016x", hash.Sum64())
			out.Cases = append(out.Cases, rec)
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		must(enc.Encode(out))
		return
	}
	files, err := filepath.Glob(filepath.Join(*casesDir, "*.yaml"))
	must(err)
	sort.Strings(files)
	for _, f := range files {
		docs, err := readDocs(f)
		must(err)
		raw, err := os.ReadFile(f)
		must(err)
		hash := fnv.New64a()
		_, _ = hash.Write(raw)
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		rec, err := h.runCase(name, docs)
		rec.InputFNV1a64 = fmt.Sprintf("%016x", hash.Sum64())
		if err != nil {
			fmt.Fprintf(os.Stderr, "case %s: %v\n", name, err)
			os.Exit(1)
		}
		out.Cases = append(out.Cases, rec)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	must(enc.Encode(out))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
