package paygate_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestIntegration_ResolveReturnsTheSameIDForTheSameIdentifier(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		first := sb.user(t, "cust-1")
		again := sb.user(t, "cust-1")
		other := sb.user(t, "cust-2")
		assert.Equal(t, first, again)
		assert.NotEqual(t, first, other)
	})
}

func TestIntegration_TemporaryTokenIsSingleUse(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		requireErrorStatus(t, sb.chargeTokenTwice(t), paygate.ErrCardTokenUsed, http.StatusForbidden)
	})
}

func TestIntegration_TemporaryTokenExpiresAfterTenMinutes(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		user := sb.user(t, "cust-1")
		onTime := sb.chargeParams(t, user, paygatetest.CardApproved, "10.00", "ord-1")
		sb.srv.Advance(10 * time.Minute)
		_, err := sb.client.Cards.Charge(testCtx(t), onTime)
		require.NoError(t, err, "a token is valid for 10 minutes")

		late := sb.chargeParams(t, user, paygatetest.CardApproved, "10.00", "ord-2")
		sb.srv.Advance(10*time.Minute + 1)
		_, err = sb.client.Cards.Charge(testCtx(t), late)
		require.ErrorIs(t, err, paygate.ErrCardTokenExpired)
	})
}

// Each test card takes the outcome DESIGN.md gives it, in both forms; the
// status endpoint agrees.
func TestIntegration_TestCardsTakeTheirOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		card   string
		status paygate.Status
		check  func(t *testing.T, p *paygate.Payment, form paygate.Form)
	}{
		{paygatetest.CardApproved, paygate.StatusCompleted, func(t *testing.T, p *paygate.Payment, form paygate.Form) {
			assert.True(t, p.Success)
			assert.False(t, p.NeedsAuthentication())
			assert.Equal(t, form == paygate.FormExtended, p.Completed(), "only the extended form carries the status")
		}},
		{paygatetest.CardDeclined, paygate.StatusFailed, func(t *testing.T, p *paygate.Payment, _ paygate.Form) {
			assert.False(t, p.Success)
			assert.True(t, p.Failed())
			assert.False(t, p.NeedsAuthentication())
		}},
		{"5555555555554444", paygate.StatusCompleted, func(t *testing.T, p *paygate.Payment, _ paygate.Form) {
			assert.True(t, p.Success, "any other Luhn-valid number is approved")
			assert.Equal(t, "mastercard", p.Card.Scheme)
		}},
	}
	for _, form := range forms {
		for _, tt := range tests {
			t.Run(form.String()+"/"+tt.card, func(t *testing.T) {
				sb := newSandbox(t, form)
				pay := sb.charge(t, tt.card, "25.00", "ord-1")
				tt.check(t, pay, form)
				require.NotNil(t, pay.Card)
				assert.Equal(t, tt.card[12:], pay.Card.LastFour)
				if form == paygate.FormExtended {
					assert.Equal(t, tt.status, pay.Status)
					assert.True(t, dec("25.00").Equal(pay.Price))
					assert.True(t, fee("25.00").Equal(pay.Fee))
					assert.Equal(t, "ord-1", pay.OrderID)
				}
				st := sb.status(t, pay.ID)
				assert.Equal(t, tt.status, st.Status)
				assert.Equal(t, paymentType(form), st.Type)
				assert.True(t, dec("25.00").Equal(st.Price))
			})
		}
	}
}

func TestIntegration_BlockedCardIsErrCardBlocked(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		_, err := sb.tryCharge(t, paygatetest.CardBlocked, "25.00", "ord-1")
		require.ErrorIs(t, err, paygate.ErrCardBlocked)
		rec, err := sb.client.Transactions.Reconcile(testCtx(t), "ord-1")
		require.NoError(t, err)
		assert.False(t, rec.Found, "a blocked card records no transaction")
	})
}

// The processing card is processing first and completes shortly after; the
// completed callback reaches the merchant's callback.Handler, verifies, and
// agrees with the status endpoint.
func TestIntegration_ProcessingCardCompletesWithCallback(t *testing.T) {
	t.Parallel()
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		rc := newReceiver(t, paygatetest.DefaultPrivateKey)
		sb := newSandbox(t, form, paygatetest.WithCallbackURL(rc.URL))
		pay := sb.charge(t, paygatetest.CardProcessing, "40.00", "ord-1")
		assert.True(t, pay.Success)
		if form == paygate.FormExtended {
			assert.True(t, pay.Pending())
			rc.wait(t, pay.ID, callback.Processing)
		}

		cb := rc.wait(t, pay.ID, callback.Completed)
		assert.Equal(t, form, cb.Form)
		assert.Equal(t, "ord-1", cb.OrderID)
		assert.True(t, dec("40.00").Equal(cb.Price))
		assert.Equal(t, "EUR", cb.Currency)
		assert.True(t, cb.Sandbox)

		conf, err := sb.client.ConfirmCallback(testCtx(t), cb)
		require.NoError(t, err)
		assert.True(t, conf.Confirmed(), "mismatches: %v", conf.Mismatches())
		assert.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status)
	})
}

func TestIntegration_3DSecure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
		want     paygate.Status
	}{
		{"right password completes", paygatetest.ACSPassword, paygate.StatusCompleted},
		{"wrong password fails", "0000", paygate.StatusFailed},
	}
	for _, form := range forms {
		for _, tt := range tests {
			t.Run(form.String()+"/"+tt.name, func(t *testing.T) {
				sb := newSandbox(t, form)
				params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.Card3DSecure, "80.00", "ord-1")
				params.ACSReturnURL = "https://shop.example/3ds-return"
				pay, err := sb.client.Cards.Charge(testCtx(t), params)
				require.NoError(t, err)
				require.True(t, pay.NeedsAuthentication())
				assert.Equal(t, sb.srv.URL+"/acs", pay.ACS.URL)
				assert.Equal(t, "https://shop.example/3ds-return", pay.ACS.Parameters.TermURL)
				require.NotEmpty(t, pay.ACS.Parameters.MD)
				assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, pay.ID).Status)

				md := pay.ACS.Parameters.MD
				done, err := sb.client.Cards.Authenticate(testCtx(t), &paygate.AuthenticateParams{
					PaRes: paygate.NewACSData(sb.srv.PaRes(md, tt.password)), MD: paygate.NewACSData(md),
				})
				require.NoError(t, err)
				assert.Equal(t, pay.ID, done.ID)
				assert.False(t, done.NeedsAuthentication())
				assert.Equal(t, tt.want == paygate.StatusFailed, done.Failed())
				if form == paygate.FormExtended {
					assert.Equal(t, tt.want, done.Status)
				}
				assert.Equal(t, tt.want, sb.status(t, pay.ID).Status)

				_, err = sb.client.Cards.Authenticate(testCtx(t), &paygate.AuthenticateParams{
					PaRes: paygate.NewACSData(sb.srv.PaRes(md, paygatetest.ACSPassword)), MD: paygate.NewACSData(md),
				})
				require.ErrorIs(t, err, paygate.ErrTransactionCompleted)
			})
		}
	}
}

// The whole 3-D Secure round trip as the payer's browser makes it: the ACS
// parameters are POSTed to the sandbox's ACS page with the password, its
// answer POSTs PaRes and MD to the merchant's ACS return URL, whose handler
// reads them with ReadACSReturn and calls Authenticate.
func TestIntegration_3DSecureThroughTheACSPage(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		returned := make(chan *paygate.Payment, 1)
		merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			params, err := paygate.ReadACSReturn(r)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			pay, err := sb.client.Cards.Authenticate(r.Context(), params)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			returned <- pay
		}))
		t.Cleanup(merchant.Close)

		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "15.00", "ord-1")
		params.ThreeDS = true
		params.ACSReturnURL = merchant.URL + "/3ds-return"
		pay, err := sb.client.Cards.Charge(testCtx(t), params)
		require.NoError(t, err)
		require.True(t, pay.NeedsAuthentication(), "3ds=1 sends any card through the ACS")

		p := pay.ACS.Parameters
		page := postForm(t, pay.ACS.URL, url.Values{
			"PaReq": {p.PaReq}, "MD": {p.MD}, "TermUrl": {p.TermURL}, "password": {paygatetest.ACSPassword},
		})
		require.Equal(t, http.StatusOK, page.StatusCode)
		body, err := io.ReadAll(page.Body)
		require.NoError(t, err)
		back := hiddenFields(string(body))
		require.Equal(t, p.TermURL, formAction(t, string(body)))

		resp := postForm(t, p.TermURL, url.Values{"PaRes": {back["PaRes"]}, "MD": {back["MD"]}})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		done := deadline.Receive(t, "payment authenticated by the merchant's ACS return handler", returned)
		assert.Equal(t, pay.ID, done.ID)
		assert.True(t, done.Success)
		assert.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status)
	})
}

func TestIntegration_Forced3DSSendsEveryCardThroughTheACS(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithForced3DS(true))
	pay := sb.charge(t, paygatetest.CardApproved, "10.00", "ord-1")
	assert.True(t, pay.NeedsAuthentication())
	assert.Equal(t, paygate.StatusAuthenticating, pay.Status)
}

// A remembered card gives a permanent token that charges again without
// the card data, any number of times.
func TestIntegration_RememberedCardChargesWithThePermanentToken(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		user := sb.user(t, "cust-1")
		params := sb.chargeParams(t, user, paygatetest.CardApproved, "10.00", "ord-1")
		params.Remember = true
		first, err := sb.client.Cards.Charge(testCtx(t), params)
		require.NoError(t, err)
		require.NotEmpty(t, first.PermanentToken)

		for i, order := range []string{"ord-2", "ord-3"} {
			pay, err := sb.client.Cards.Charge(testCtx(t), &paygate.ChargeParams{
				User: user, CardToken: paygate.NewCardToken(first.PermanentToken), Price: dec("12.50"), Currency: "EUR",
				Description: "Renewal", OrderID: order,
			})
			require.NoError(t, err, "charge %d with the permanent token", i+1)
			assert.True(t, pay.Success)
			assert.Equal(t, "4242", pay.Card.LastFour)
			assert.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status)
		}
	})
}

func TestIntegration_RememberOnAProjectWithoutRememberingIsErrCardRememberingDisabled(t *testing.T) {
	t.Parallel()
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb := newSandbox(t, form, paygatetest.WithCardRemembering(false))
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
		params.Remember = true
		_, err := sb.client.Cards.Charge(testCtx(t), params)
		require.ErrorIs(t, err, paygate.ErrCardRememberingDisabled)
	})
}

// verify_card charges 1 EUR whatever the price, and ends verified.
func TestIntegration_VerifyCardIsAOneEuroVerification(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "49.00", "ord-1")
		params.Currency = "USD"
		params.VerifyCard = true
		pay, err := sb.client.Cards.Charge(testCtx(t), params)
		require.NoError(t, err)
		assert.True(t, pay.Success)
		if sb.form == paygate.FormExtended {
			assert.Equal(t, paygate.StatusVerified, pay.Status)
			assert.Equal(t, paygate.TypeVerification, pay.Type)
		}
		st := sb.status(t, pay.ID)
		assert.Equal(t, paygate.StatusVerified, st.Status)
		assert.True(t, dec("1.00").Equal(st.Price), "price %s", st.Price)
		assert.Equal(t, "EUR", st.Currency)
		if sb.form == paygate.FormExtended {
			assert.True(t, sb.balance(t).IsZero(), "a verification moves no money")
		}
	})
}

func TestIntegration_RecurringPayments(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		user := sb.user(t, "cust-1")
		first := sb.chargeSubscribing(t, user, 2)
		require.NotNil(t, first.Recurring)
		assert.Equal(t, 2, first.Recurring.Frequency, "the frequency is the interval")
		assert.Equal(t, sandboxStart.AddDate(0, 0, 365), first.Recurring.EndsAt.Time)

		// A manual charge is outside the interval: the subscribing charge
		// does not hold it back, only a previous manual charge does.
		again := &paygate.ChargeRecurringParams{User: user, Price: dec("9.99"), Currency: "EUR", OrderID: "sub-1-2"}
		pay, err := sb.client.Cards.ChargeRecurring(testCtx(t), again)
		require.NoError(t, err)
		assert.True(t, pay.Success)
		st := sb.status(t, pay.ID)
		assert.Equal(t, paygate.StatusCompleted, st.Status)
		assert.Equal(t, "sub-1-2", st.OrderID)

		again.OrderID = "sub-1-3"
		_, err = sb.client.Cards.ChargeRecurring(testCtx(t), again)
		require.ErrorIs(t, err, paygate.ErrRecurringTooFrequent)
		sb.srv.Advance(48 * time.Hour)
		_, err = sb.client.Cards.ChargeRecurring(testCtx(t), again)
		require.NoError(t, err)

		require.NoError(t, sb.client.Users.ChangeRecurring(testCtx(t), &paygate.ChangeRecurringParams{
			User: user, Interval: paygate.Days(0), Price: dec("19.99"), Currency: "EUR",
		}))
		require.NoError(t, sb.client.Users.CancelRecurring(testCtx(t), &paygate.CancelRecurringParams{User: user}))
		sb.srv.Advance(48 * time.Hour)
		again.OrderID = "sub-1-4"
		_, err = sb.client.Cards.ChargeRecurring(testCtx(t), again)
		require.ErrorIs(t, err, paygate.ErrRecurringDisabled)
	})
}

func TestIntegration_RecurringPastItsEndIsErrRecurringExpired(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		user := sb.user(t, "cust-1")
		first := sb.chargeSubscribing(t, user, 0)

		sb.srv.Advance(first.Recurring.EndsAt.Sub(sandboxStart) + time.Second)
		_, err := sb.client.Cards.ChargeRecurring(testCtx(t), &paygate.ChargeRecurringParams{
			User: user, Price: dec("9.99"), Currency: "EUR",
		})
		require.ErrorIs(t, err, paygate.ErrRecurringExpired)
	})
}

// hiddenFieldRE matches the hidden inputs of the sandbox's pages.
var hiddenFieldRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hiddenFields returns the hidden inputs of an HTML form page.
func hiddenFields(page string) map[string]string {
	out := make(map[string]string)
	for _, m := range hiddenFieldRE.FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[2]
	}
	return out
}

var formActionRE = regexp.MustCompile(`<form method="post" action="([^"]*)">`)

// formAction returns the action of the page's form.
func formAction(t testing.TB, page string) string {
	t.Helper()
	m := formActionRE.FindStringSubmatch(page)
	require.NotNil(t, m, "no form in page")
	return m[1]
}

// The extended form charges a card and a payer given in full, without a
// token or a resolved user; the payer is the user Resolve would find.
func TestIntegration_ExtendedChargeWithCardAndUserDetails(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	resolved := sb.user(t, "cust-1")
	pay, err := sb.client.Cards.Charge(testCtx(t), &paygate.ChargeParams{
		UserDetails: &paygate.UserDetails{Identifier: "cust-1", Email: "cust-1@example.com", IP: "203.0.113.7"},
		Card: &paygate.CardDetails{
			Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"), Holder: "JANE ROE",
		},
		Price: dec("17.00"), Currency: "EUR", Description: "Order ord-1", OrderID: "ord-1",
	})
	require.NoError(t, err)
	assert.True(t, pay.Completed())
	require.NotNil(t, pay.User)
	assert.Equal(t, resolved, pay.User.ID)
	require.NotNil(t, pay.Card)
	assert.Equal(t, "JANE ROE", pay.Card.Holder)
	assert.Equal(t, "************4242", pay.Card.Mask)
}

// What the basic form does not take, the SDK refuses before sending.
func TestIntegration_BasicFormRefusesCardAndUserDetailsLocally(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormBasic)
	client, sent := sb.countingClient()
	card := &paygate.CardDetails{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123")}
	for name, p := range map[string]*paygate.ChargeParams{
		"card":         {User: "1", Card: card, Price: dec("1"), Currency: "EUR", Description: "d"},
		"user details": {UserDetails: &paygate.UserDetails{Identifier: "c", IP: "203.0.113.7"}, CardToken: paygate.NewCardToken("tmp"), Price: dec("1"), Currency: "EUR", Description: "d"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := client.Cards.Charge(testCtx(t), p)
			var verr *paygate.ValidationError
			require.ErrorAs(t, err, &verr)
		})
	}
	assert.Zero(t, sent.Load(), "requests sent")
}

// A processing payment also settles when the sandbox's clock moves on.
func TestIntegration_ProcessingPaymentSettlesWhenTheClockMoves(t *testing.T) {
	t.Parallel()
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb := newSandbox(t, form, paygatetest.WithProcessingDelay(0))
		pay := sb.charge(t, paygatetest.CardProcessing, "40.00", "ord-1")
		assert.Equal(t, paygate.StatusProcessing, sb.status(t, pay.ID).Status)
		sb.srv.Advance(time.Minute)
		assert.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status)
	})
}
