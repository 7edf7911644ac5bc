package admission

// Added by tools/capi-update-oracle/regen.sh to a copy of sigs.k8s.io/cluster-api@v1.14.2 (never committed
// upstream): the webhooks' decoders are unexported, and Default decodes the old object of an UPDATE request with
// them, so the oracle builds the webhooks here as SetupWebhookWithManager would.

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// OracleClusterWebhook is the Cluster webhook with the decoder SetupWebhookWithManager gives it.
func OracleClusterWebhook(c client.Reader, cache ClusterCacheReader, scheme *runtime.Scheme) *Cluster {
	return &Cluster{Client: c, ClusterCacheReader: cache, decoder: admission.NewDecoder(scheme)}
}

// OracleMachinePoolWebhook is the MachinePool webhook with the decoder SetupWebhookWithManager gives it.
func OracleMachinePoolWebhook(scheme *runtime.Scheme) *MachinePool {
	return &MachinePool{decoder: admission.NewDecoder(scheme)}
}
