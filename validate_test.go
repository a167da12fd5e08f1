package paygate

import (
	"math"
	"testing"
	"time"

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

// MaxRecurringDays is the most whole days a time.Duration holds: that many
// days convert without overflow, one more would not.
func TestMaxRecurringDays_IsTheMostDaysADurationHolds(t *testing.T) {
	t.Parallel()
	require.Equal(t, 106751, MaxRecurringDays)
	const day = int64(24 * time.Hour)
	require.LessOrEqual(t, int64(MaxRecurringDays), math.MaxInt64/day)
	require.Greater(t, int64(MaxRecurringDays)+1, math.MaxInt64/day)
	require.NoError(t, checkDays("interval", Days(MaxRecurringDays)))
	require.Error(t, checkDays("interval", Days(MaxRecurringDays+1)))
}

// The locale is an ISO 639-1 code: two lowercase ASCII letters, the
// first and last letters of the alphabet included.
func TestCheckUser_LocaleIsTwoLowercaseLetters(t *testing.T) {
	t.Parallel()
	names := userFields{identifier: "identifier", phone: "phone", locale: "locale"}
	for _, locale := range []string{"", "en", "az", "za", "aa", "zz"} {
		require.NoError(t, checkUser(names, "u-1", "", locale), locale)
	}
	for _, locale := range []string{"En", "eN", "EN", "e1", "1e", "`a", "a`", "{a", "a{", "e", "eng"} {
		err := checkUser(names, "u-1", "", locale)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, locale)
		require.Equal(t, "locale", ve.Field, locale)
	}
}
