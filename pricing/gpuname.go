package pricing

import (
	"fmt"
	"strings"
	"sync"

	"github.com/fitbot/fitbot/sizing"
)

// gpuSpec is what one provider SKU rents: a canonical sizing GPU id and
// how many of it (fractional for sliced GPUs).
type gpuSpec struct {
	GPU   string
	Count float64
}

// awsInstances maps EC2 instance types to the GPUs they carry. The table is
// explicit: an instance type missing here is counted as unknown, never
// guessed from its family name. GPU counts and models are from the EC2
// accelerated-computing instance pages; g5 carries the A10G, a distinct SKU
// from the A10.
var awsInstances = map[string]gpuSpec{
	"g4dn.xlarge":      {"t4", 1},
	"g4dn.2xlarge":     {"t4", 1},
	"g4dn.4xlarge":     {"t4", 1},
	"g4dn.8xlarge":     {"t4", 1},
	"g4dn.16xlarge":    {"t4", 1},
	"g4dn.12xlarge":    {"t4", 4},
	"g4dn.metal":       {"t4", 8},
	"g5.xlarge":        {"a10g", 1},
	"g5.2xlarge":       {"a10g", 1},
	"g5.4xlarge":       {"a10g", 1},
	"g5.8xlarge":       {"a10g", 1},
	"g5.16xlarge":      {"a10g", 1},
	"g5.12xlarge":      {"a10g", 4},
	"g5.24xlarge":      {"a10g", 4},
	"g5.48xlarge":      {"a10g", 8},
	"g6.xlarge":        {"l4", 1},
	"g6.2xlarge":       {"l4", 1},
	"g6.4xlarge":       {"l4", 1},
	"g6.8xlarge":       {"l4", 1},
	"g6.16xlarge":      {"l4", 1},
	"gr6.4xlarge":      {"l4", 1},
	"gr6.8xlarge":      {"l4", 1},
	"g6.12xlarge":      {"l4", 4},
	"g6.24xlarge":      {"l4", 4},
	"g6.48xlarge":      {"l4", 8},
	"g6e.xlarge":       {"l40s", 1},
	"g6e.2xlarge":      {"l40s", 1},
	"g6e.4xlarge":      {"l40s", 1},
	"g6e.8xlarge":      {"l40s", 1},
	"g6e.16xlarge":     {"l40s", 1},
	"g6e.12xlarge":     {"l40s", 4},
	"g6e.24xlarge":     {"l40s", 4},
	"g6e.48xlarge":     {"l40s", 8},
	"p3.2xlarge":       {"v100-16", 1},
	"p3.8xlarge":       {"v100-16", 4},
	"p3.16xlarge":      {"v100-16", 8},
	"p3dn.24xlarge":    {"v100-32", 8},
	"p4d.24xlarge":     {"a100-40", 8},
	"p4de.24xlarge":    {"a100-80", 8},
	"p5.4xlarge":       {"h100", 1},
	"p5.48xlarge":      {"h100", 8},
	"p5e.48xlarge":     {"h200", 8},
	"p5en.48xlarge":    {"h200", 8},
	"p6-b200.48xlarge": {"b200", 8},
	"p6-b300.48xlarge": {"b300", 8},
	// One p6e-gb200 instance is a tray of 4 GPUs in an NVL72 UltraServer.
	"p6e-gb200.36xlarge": {"gb200", 4},
}

// awsGPUFamily reports whether an EC2 instance type belongs to a GPU
// family (g* or p* followed by a digit), so that GPU instances missing from
// awsInstances are counted as unknown while CPU instances are not.
func awsGPUFamily(instanceType string) bool {
	family, _, _ := strings.Cut(instanceType, ".")
	if len(family) < 2 || (family[0] != 'g' && family[0] != 'p') {
		return false
	}
	if family[0] == 'g' && strings.HasPrefix(family, "gr") {
		family = family[1:]
	}
	return family[1] >= '0' && family[1] <= '9'
}

// azureSKUs maps Azure armSkuName values to the GPUs they carry, from the
// VM-series pages on learn.microsoft.com (reference §3a). NVads A10 v5
// sizes rent a slice of one A10; NCads H100 v5 carries the H100 NVL 94 GB.
var azureSKUs = map[string]gpuSpec{
	"Standard_NC4as_T4_v3":       {"t4", 1},
	"Standard_NC8as_T4_v3":       {"t4", 1},
	"Standard_NC16as_T4_v3":      {"t4", 1},
	"Standard_NC64as_T4_v3":      {"t4", 4},
	"Standard_NC6s_v3":           {"v100-16", 1},
	"Standard_NC12s_v3":          {"v100-16", 2},
	"Standard_NC24s_v3":          {"v100-16", 4},
	"Standard_NC24rs_v3":         {"v100-16", 4},
	"Standard_ND40rs_v2":         {"v100-32", 8},
	"Standard_NV6ads_A10_v5":     {"a10", 1.0 / 6},
	"Standard_NV12ads_A10_v5":    {"a10", 1.0 / 3},
	"Standard_NV18ads_A10_v5":    {"a10", 1.0 / 2},
	"Standard_NV36ads_A10_v5":    {"a10", 1},
	"Standard_NV36adms_A10_v5":   {"a10", 1},
	"Standard_NV72ads_A10_v5":    {"a10", 2},
	"Standard_NC24ads_A100_v4":   {"a100-80-pcie", 1},
	"Standard_NC48ads_A100_v4":   {"a100-80-pcie", 2},
	"Standard_NC96ads_A100_v4":   {"a100-80-pcie", 4},
	"Standard_ND96asr_v4":        {"a100-40", 8},
	"Standard_ND96amsr_A100_v4":  {"a100-80", 8},
	"Standard_NC40ads_H100_v5":   {"h100-nvl", 1},
	"Standard_NC80adis_H100_v5":  {"h100-nvl", 2},
	"Standard_NCC40ads_H100_v5":  {"h100-nvl", 1},
	"Standard_ND96isr_H100_v5":   {"h100", 8},
	"Standard_ND96isr_H200_v5":   {"h200", 8},
	"Standard_ND96isr_MI300X_v5": {"mi300x", 8},
}

// catalogIDs is the set of the sizing catalog's GPU ids.
var catalogIDs = sync.OnceValue(func() map[string]bool {
	ids := make(map[string]bool)
	for _, g := range sizing.GPUs() {
		ids[g.ID] = true
	}
	return ids
})

// isCatalogID reports whether id is exactly a sizing catalog GPU id.
func isCatalogID(id string) bool { return catalogIDs()[id] }

// CanonicalGPU returns the sizing catalog id a GPU name stands for
// ("H100 SXM", "rtx4090", "a100-80"), and whether it names exactly one
// card. An ambiguous name ("a100": 40 or 80 GB?) is refused: a price must
// not be filed under a guess.
func CanonicalGPU(name string) (string, bool) {
	id, problem := lookupGPU(name)
	return id, problem == ""
}

// lookupGPU is CanonicalGPU with the reason a name was refused.
func lookupGPU(name string) (id, problem string) {
	g, note, err := sizing.LookupGPU(name)
	switch {
	case err != nil:
		return "", err.Error()
	case note != "" && strings.ToLower(strings.TrimSpace(name)) != g.ID:
		return "", fmt.Sprintf("%q is ambiguous (%s); write the catalog id, e.g. %s", name, note, g.ID)
	}
	return g.ID, ""
}
