module kubectl-capz.invalid/tools/clusterctl-oracle

go 1.26.0

require (
	github.com/drone/envsubst/v2 v2.0.0-20210730161058-179042472c46
	sigs.k8s.io/cluster-api v1.14.2
)
