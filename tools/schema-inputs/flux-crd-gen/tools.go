//go:build tools

// Package tools pins controller-gen and the Flux API modules whose CRDs the Go module proxy does
// not publish as files (helm-controller and notification-controller are refused by the proxy; their
// api/ modules are served): fetch.sh runs controller-gen over these packages, as Flux's Makefiles do.
package tools

import (
	_ "github.com/fluxcd/helm-controller/api/v2"
	_ "github.com/fluxcd/image-automation-controller/api/v1"
	_ "github.com/fluxcd/image-reflector-controller/api/v1"
	_ "github.com/fluxcd/notification-controller/api/v1"
	_ "github.com/fluxcd/notification-controller/api/v1beta3"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
