//go:build tools

// Package tools pins krew's own programs for the tests of kubectl-capz (see README.md).
package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
