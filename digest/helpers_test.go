package digest

import "github.com/google/go-cmp/cmp/cmpopts"

// cmpPrices compares prices computed by division to within rounding.
var cmpPrices = cmpopts.EquateApprox(0, 1e-9)
