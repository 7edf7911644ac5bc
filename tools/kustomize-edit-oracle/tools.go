//go:build tools

// Package tools pins kustomize for the Argo CD kustomize-edit referee (see README.md).
package tools

import (
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
