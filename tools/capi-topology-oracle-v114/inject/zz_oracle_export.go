/*
Added to a copy of sigs.k8s.io/cluster-api v1.14.2 by kubectl-capz's tools/capi-topology-oracle-v114
(regen.sh copies it into core/reconcilers/topology/cluster/); it is not part of Cluster API.
*/

package cluster

import (
	"context"

	pkgerrors "github.com/pkg/errors"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
	"sigs.k8s.io/cluster-api/util/conditions"
)

// OracleDesiredState runs the steps of (*Reconciler).reconcile that lead to the desired state, in the same
// order and with the same error wrapping, for a Cluster whose topology does not exist yet: the ClusterClass
// reconciled checks, DefaultAndValidateVariables, getBlueprint, getCurrentState, desiredStateGenerator.Generate.
// (RuntimeSDK hooks, dynamic watches and the managed-fields migration are skipped: RuntimeSDK is off and there is
// no current object.) reconcileState then creates the desired objects and merge-patches the Cluster with the
// desired Cluster; the caller reads those from the returned scope.
func OracleDesiredState(ctx context.Context, c client.Client, cluster *clusterv1.Cluster, generator desiredstate.Generator) (*scope.Scope, error) {
	r := &Reconciler{Client: c, APIReader: c, desiredStateGenerator: generator}
	s := scope.New(cluster)
	var err error

	clusterClass := &clusterv1.ClusterClass{}
	key := s.Current.Cluster.GetClassKey()
	if err := r.Client.Get(ctx, key, clusterClass); err != nil {
		return nil, pkgerrors.Wrapf(err, "failed to retrieve ClusterClass %s", key)
	}
	s.Blueprint.ClusterClass = clusterClass
	if !conditions.Has(clusterClass, clusterv1.ClusterClassVariablesReadyCondition) ||
		conditions.IsFalse(clusterClass, clusterv1.ClusterClassVariablesReadyCondition) {
		return nil, pkgerrors.Errorf("ClusterClass is not successfully reconciled: status of %s condition on ClusterClass must be \"True\"", clusterv1.ClusterClassVariablesReadyCondition)
	}
	if clusterClass.GetGeneration() != clusterClass.Status.ObservedGeneration {
		return nil, pkgerrors.Errorf("ClusterClass is not successfully reconciled: ClusterClass.status.observedGeneration must be %d, but is %d", clusterClass.GetGeneration(), clusterClass.Status.ObservedGeneration)
	}
	if errs := (&coreadmission.Cluster{}).DefaultAndValidateVariables(ctx, s.Current.Cluster, nil, clusterClass); len(errs) > 0 {
		return nil, apierrors.NewInvalid(clusterv1.GroupVersion.WithKind("Cluster").GroupKind(), s.Current.Cluster.Name, errs)
	}
	s.Blueprint, err = r.getBlueprint(ctx, s.Current.Cluster, s.Blueprint.ClusterClass)
	if err != nil {
		return nil, pkgerrors.Wrap(err, "error reading the ClusterClass")
	}
	s.Current, err = r.getCurrentState(ctx, s)
	if err != nil {
		return nil, pkgerrors.Wrap(err, "error reading current state of the Cluster topology")
	}
	s.Desired, err = r.desiredStateGenerator.Generate(ctx, s)
	if err != nil {
		return nil, pkgerrors.Wrap(err, "error computing the desired state of the Cluster topology")
	}
	return s, nil
}
