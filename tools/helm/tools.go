//go:build tools

// Package tools pins helm for the tests of kubectl-capz (see README.md).
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
