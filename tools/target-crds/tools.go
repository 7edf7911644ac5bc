//go:build tools

// Package tools pins controller-gen (sigs.k8s.io/controller-tools), built by build.sh from the Go module proxy.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
