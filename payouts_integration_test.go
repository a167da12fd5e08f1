package paygate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// payoutType returns the sandbox's payout type with key, as Types lists it.
func (sb *sandbox) payoutType(t testing.TB, key string) paygate.PayoutType {
	t.Helper()
	types, err := sb.client.Payouts.Types(testCtx(t))
	require.NoError(t, err)
	for _, pt := range types {
		if pt.Key == key {
			return pt
		}
	}
	t.Fatalf("no payout type %s in %v", key, types)
	return paygate.PayoutType{}
}

func TestIntegration_PayoutTypesInBothForms(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		types, err := sb.client.Payouts.Types(testCtx(t))
		require.NoError(t, err)
		require.Len(t, types, 3)
		assert.Equal(t, paygate.PayoutType{ID: paygatetest.PayoutCreditCard, Key: "CREDIT_CARD", Label: "Credit card"}, types[0])
		assert.True(t, types[0].IsCard())
		assert.Equal(t, "SEPA", types[1].Key)
		assert.False(t, types[1].IsCard())
		assert.Equal(t, "WALLET", types[2].Key)
	})
}

// The further parameters depend on the type, the card's BIN and the
// currency.
func TestIntegration_PayoutParametersDependOnTypeBINAndCurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, account, currency string
		required, optional           []string
	}{
		{"visa card in EUR", "CREDIT_CARD", "4242424242424242", "EUR", []string{"cardHolder"}, nil},
		{"mastercard asks for the expiry", "CREDIT_CARD", "5555555555554444", "EUR", []string{"cardHolder", "cardExpirationDate"}, nil},
		{"card outside EUR asks for the remitter", "CREDIT_CARD", "4242424242424242", "USD",
			[]string{"cardHolder", "firstName", "lastName", "birthDate", "country"}, []string{"address", "city"}},
		{"SEPA", "SEPA", "DE89370400440532013000", "EUR",
			[]string{"beneficiaryFirstName", "beneficiaryLastName", "receiverBankBIC"}, []string{"description"}},
		{"wallet in EUR", "WALLET", "W-100200", "EUR", []string{"phone"}, []string{"fullName"}},
		{"wallet outside EUR asks for the birth date", "WALLET", "W-100200", "GBP", []string{"phone", "birthDate"}, []string{"fullName"}},
	}
	for _, form := range forms {
		sb := newSandbox(t, form)
		for _, tt := range tests {
			t.Run(form.String()+"/"+tt.name, func(t *testing.T) {
				controls, err := sb.client.Payouts.Parameters(testCtx(t), &paygate.PayoutParametersParams{
					Type: sb.payoutType(t, tt.key), Account: paygate.NewAccountNumber(tt.account), Currency: tt.currency,
				})
				require.NoError(t, err)
				var required, optional []string
				for _, c := range controls {
					assert.NotEmpty(t, c.Label)
					assert.NotEmpty(t, c.Type)
					if c.Required {
						required = append(required, c.Name)
					} else {
						optional = append(optional, c.Name)
					}
				}
				assert.Equal(t, tt.required, required)
				assert.Equal(t, tt.optional, optional)
			})
		}
	}
}

func TestIntegration_SEPAPayoutOutsideEURIsErrGatewayMisconfigured(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	_, err := sb.client.Payouts.Parameters(testCtx(t), &paygate.PayoutParametersParams{
		Type: sb.payoutType(t, "SEPA"), Account: paygate.NewAccountNumber("DE89370400440532013000"), Currency: "USD",
	})
	require.ErrorIs(t, err, paygate.ErrGatewayMisconfigured)
}

// CheckRequired names what the controls require and the params lack; with
// them filled in, the payout goes through, is processing, and completes with
// a payout_completed callback.
func TestIntegration_CardPayoutCompletesWithCallback(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, paygatetest.DefaultPrivateKey)
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(rc.URL))
	card := sb.payoutType(t, "CREDIT_CARD")
	controls, err := sb.client.Payouts.Parameters(testCtx(t), &paygate.PayoutParametersParams{
		Type: card, Account: paygate.NewAccountNumber("5555555555554444"), Currency: "USD",
	})
	require.NoError(t, err)

	params := &paygate.PayoutParams{
		Type: card, Account: paygate.NewAccountNumber("5555555555554444"), Amount: dec("120.00"), Currency: "USD", OrderID: "payout-1",
		FirstName: "Jane", LastName: "Roe",
	}
	var missing *paygate.MissingParametersError
	require.ErrorAs(t, params.CheckRequired(controls), &missing)
	assert.Equal(t, []string{"cardHolder", "cardExpirationDate", "birthDate", "country"}, missing.Names)

	params.CardHolder, params.CardExpirationDate, params.BirthDate, params.Country = "JANE ROE", "12/30", "15.04.1990", "DE"
	require.NoError(t, params.CheckRequired(controls))
	payout, err := sb.client.Payouts.Create(testCtx(t), params)
	require.NoError(t, err)
	assert.True(t, payout.Success)
	assert.Equal(t, callback.Processing, payout.Status)

	cb := rc.wait(t, payout.ID, callback.PayoutCompleted)
	assert.Equal(t, "payout-1", cb.OrderID)
	assert.True(t, dec("120.00").Equal(cb.Price))
	assert.True(t, dec("-120.00").Equal(cb.Earned))
	conf, err := sb.client.ConfirmCallback(testCtx(t), cb)
	require.NoError(t, err)
	assert.True(t, conf.Confirmed(), "mismatches: %v", conf.Mismatches())

	st := sb.status(t, payout.ID)
	assert.Equal(t, paygate.TypePayout, st.Type)
	assert.Equal(t, paygate.StatusCompleted, st.Status)
}

func TestIntegration_PayoutToTheDeclinedCardFailsAndTheAmountReturns(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, paygatetest.DefaultPrivateKey)
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(rc.URL))
	sb.charge(t, paygatetest.CardApproved, "100.00", "ord-1")
	before := sb.balance(t)

	payout, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
		Type: sb.payoutType(t, "CREDIT_CARD"), CardToken: paygate.NewCardToken(sb.token(t, paygatetest.CardDeclined)),
		Amount: dec("30.00"), Currency: "EUR", OrderID: "payout-1", CardHolder: "JANE ROE",
	})
	require.NoError(t, err)
	assert.True(t, before.Sub(dec("30.00")).Equal(sb.balance(t)), "the amount leaves at once")

	cb := rc.wait(t, payout.ID, callback.PayoutFailed)
	assert.NotEmpty(t, cb.Reason)
	assert.Equal(t, paygate.StatusFailed, sb.status(t, payout.ID).Status)
	assert.True(t, before.Equal(sb.balance(t)), "and returns when the payout fails")
}

func TestIntegration_NonCardPayouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key    string
		params paygate.PayoutParams
	}{
		{"SEPA", paygate.PayoutParams{Account: paygate.NewAccountNumber("DE89370400440532013000"), BeneficiaryFirstName: "Jane", BeneficiaryLastName: "Roe", ReceiverBankBIC: "COBADEFFXXX", Extra: map[string]string{"purposeCode": "SALA"}}},
		{"WALLET", paygate.PayoutParams{Account: paygate.NewAccountNumber("W-100200"), Phone: "4915123456789", FullName: "Jane Roe"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			sb := newSandbox(t, paygate.FormExtended)
			params := tt.params
			params.Type, params.Amount, params.Currency, params.OrderID = sb.payoutType(t, tt.key), dec("10.00"), "EUR", "payout-"+tt.key
			payout, err := sb.client.Payouts.Create(testCtx(t), &params)
			require.NoError(t, err)
			sb.srv.SettlePending()
			assert.Equal(t, paygate.StatusCompleted, sb.status(t, payout.ID).Status)
		})
	}
}

func TestIntegration_PayoutErrors(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	card := sb.payoutType(t, "CREDIT_CARD")
	t.Run("a required parameter left out", func(t *testing.T) {
		_, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
			Type: card, Account: paygate.NewAccountNumber("4242424242424242"), Amount: dec("10.00"), Currency: "EUR",
		})
		require.ErrorIs(t, err, paygate.ErrMerchantDataMissing)
		var apiErr *paygate.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Contains(t, apiErr.Message, "cardHolder")
	})
	t.Run("a blocked card", func(t *testing.T) {
		_, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
			Type: card, Account: paygate.NewAccountNumber(paygatetest.CardBlocked), Amount: dec("10.00"), Currency: "EUR", CardHolder: "JANE ROE",
		})
		require.ErrorIs(t, err, paygate.ErrCardBlocked)
	})
	t.Run("a used card token", func(t *testing.T) {
		params := &paygate.PayoutParams{
			Type: card, CardToken: paygate.NewCardToken(sb.token(t, paygatetest.CardApproved)), Amount: dec("10.00"), Currency: "EUR", CardHolder: "JANE ROE",
		}
		_, err := sb.client.Payouts.Create(testCtx(t), params)
		require.NoError(t, err)
		_, err = sb.client.Payouts.Create(testCtx(t), params)
		require.ErrorIs(t, err, paygate.ErrCardTokenUsed)
	})
}

// The balance moves with every payment (less its fee), refund and payout.
func TestIntegration_BalanceMovesWithPaymentsRefundsAndPayouts(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	assert.True(t, sb.balance(t).IsZero())

	pay := sb.charge(t, paygatetest.CardApproved, "100.00", "ord-1")
	want := dec("100.00").Sub(fee("100.00"))
	assert.True(t, want.Equal(sb.balance(t)), "after the payment: %s", sb.balance(t))

	_, err := sb.reverse(t, pay.ID, "20.00")
	require.NoError(t, err)
	want = want.Sub(dec("20.00"))
	assert.True(t, want.Equal(sb.balance(t)), "after the refund: %s", sb.balance(t))

	_, err = sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
		Type: sb.payoutType(t, "WALLET"), Account: paygate.NewAccountNumber("W-100200"), Amount: dec("50.00"), Currency: "EUR", Phone: "4915123456789",
	})
	require.NoError(t, err)
	want = want.Sub(dec("50.00"))
	assert.True(t, want.Equal(sb.balance(t)), "after the payout: %s", sb.balance(t))

	sb.charge(t, paygatetest.CardDeclined, "100.00", "ord-2")
	assert.True(t, want.Equal(sb.balance(t)), "a declined payment moves nothing")

	b, err := sb.client.Balance.Get(testCtx(t), nil)
	require.NoError(t, err)
	assert.Equal(t, "EUR", b.Currency, "EUR without a currency")
	assert.True(t, want.Equal(b.BaseAmount))
	assert.True(t, b.RollingReserve.IsZero())
}
