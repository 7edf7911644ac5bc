module kubectl-capz/tools/go-duration-oracle

go 1.24
