//go:build tools

// Package tools pins the peer programs the benchmarks compare kubectl-capz with (clusterctl).
package tools

import _ "sigs.k8s.io/cluster-api/cmd/clusterctl"
