package paygate

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

func TestCheckAmount_TwoDecimalsAtMost(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{
		"24.90": true, "24.900": true, "0.01": true, "9999999999.99": true,
		"24.901": false, "0.001": false, "0": false, "-1": false, "10000000000": false,
	} {
		err := checkAmount("price", decimal.RequireFromString(in))
		if ok {
			require.NoError(t, err, in)
		} else {
			require.ErrorContains(t, err, "price", in)
		}
	}
}
