//go:build aso_v2_18_0

package main

import (
	cs20240402p "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20240402preview"
	cs20240402ps "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20240402preview/storage"
	cs20240901 "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20240901"
	cs20240901s "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20240901/storage"
	cs20250301 "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250301"
	cs20250301s "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250301/storage"
	cs20250801 "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	cs20250801s "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801/storage"
	cs20251002p "github.com/Azure/azure-service-operator/v2/api/containerservice/v20251002preview"
	cs20251002ps "github.com/Azure/azure-service-operator/v2/api/containerservice/v20251002preview/storage"
	nw20201101 "github.com/Azure/azure-service-operator/v2/api/network/v1api20201101"
	nw20201101s "github.com/Azure/azure-service-operator/v2/api/network/v1api20201101/storage"
	nw20220701 "github.com/Azure/azure-service-operator/v2/api/network/v1api20220701"
	nw20220701s "github.com/Azure/azure-service-operator/v2/api/network/v1api20220701/storage"
	nw20240301 "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	nw20240301s "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301/storage"
	rg20200601 "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	rg20200601s "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601/storage"
	"k8s.io/apimachinery/pkg/runtime"
)

func register(scheme *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		cs20240402p.AddToScheme, cs20240402ps.AddToScheme, cs20240901.AddToScheme, cs20240901s.AddToScheme,
		cs20250301.AddToScheme, cs20250301s.AddToScheme, cs20250801.AddToScheme, cs20250801s.AddToScheme,
		cs20251002p.AddToScheme, cs20251002ps.AddToScheme,
		nw20201101.AddToScheme, nw20201101s.AddToScheme, nw20220701.AddToScheme, nw20220701s.AddToScheme,
		nw20240301.AddToScheme, nw20240301s.AddToScheme,
		rg20200601.AddToScheme, rg20200601s.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	return nil
}
