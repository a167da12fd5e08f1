package paygate_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// errorCase makes the sandbox answer with code through an SDK call.
type errorCase struct {
	code paygate.ErrorCode
	name string
	// forms the case runs in; nil means both.
	forms []paygate.Form
	// opts configure the sandbox.
	opts []paygatetest.Option
	call func(t *testing.T, sb *sandbox) error
}

// errorCases produce every error code the sandbox answers with. The SDK
// checks its input before sending, so the codes of input the SDK never
// sends (a card number missing, a project key missing) are produced through
// a rewriteTransport; their answers still go through the SDK's error
// mapping.
var errorCases = []errorCase{
	{code: 40000, name: "a body that is not a form", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.rewritingClient(&rewriteTransport{rawBody: "identifier=%zz"}).Users.Resolve(testCtx(t), validResolve())
		return err
	}},
	{code: paygate.CodeProjectKeyMissing, name: "no project", call: resolveRewritten(drop("project"))},
	{code: paygate.CodeUserIdentifierMissing, name: "resolve without identifier", call: resolveRewritten(drop("identifier"))},
	{code: paygate.CodeCardNumberMissing, name: "tokenize without number", call: tokenizeRewritten(drop("number"))},
	{code: paygate.CodeCardNumberInvalid, name: "tokenize a number failing Luhn", call: tokenizeRewritten(set("number", "4242424242424241"))},
	{code: paygate.CodeExpiryInvalid, name: "tokenize with month 13", call: tokenizeRewritten(set("expiration_month", "13"))},
	{code: paygate.CodeSecurityCodeMissing, name: "tokenize without security code", call: tokenizeRewritten(drop("security_code"))},
	{code: paygate.CodeSecurityCodeInvalid, name: "tokenize with a non-digit security code", call: tokenizeRewritten(set("security_code", "12a"))},
	{code: paygate.CodeCardTokenMissing, name: "basic charge without token", forms: basicOnly, call: chargeRewritten(drop("card_token"))},
	{code: paygate.CodeCardDataMissing, name: "extended charge without token or card", forms: extendedOnly, call: chargeRewritten(drop("card_token"))},
	{code: paygate.CodeUserEmailMissing, name: "basic resolve without email", forms: basicOnly, call: resolveRewritten(drop("email"))},
	{code: paygate.CodeUserIPMissing, name: "resolve without ip", call: resolveRewritten(drop("ip"))},
	{code: paygate.CodeExpirationMonthMissing, name: "tokenize without month", call: tokenizeRewritten(drop("expiration_month"))},
	{code: paygate.CodeExpirationYearMissing, name: "tokenize without year", call: tokenizeRewritten(drop("expiration_year"))},
	{code: paygate.CodeMerchantDataMissing, name: "payout without a required parameter", forms: extendedOnly, call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
			Type: sb.payoutType(t, "WALLET"), Account: paygate.NewAccountNumber("W-100200"), Amount: dec("10.00"), Currency: "EUR",
		})
		return err
	}},
	{code: paygate.CodeCardholderInvalid, name: "charge with a 22-character cardholder", forms: extendedOnly, call: func(t *testing.T, sb *sandbox) error {
		client := sb.rewritingClient(&rewriteTransport{rewrite: set("card[holder]", strings.Repeat("J", 22))})
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
		params.CardToken, params.Card = paygate.CardToken{}, &paygate.CardDetails{
			Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"), Holder: "JANE ROE",
		}
		_, err := client.Cards.Charge(testCtx(t), params)
		return err
	}},
	{code: paygate.CodeSignatureMissing, name: "a request without signature", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.rewritingClient(&rewriteTransport{unsigned: true}).Users.Resolve(testCtx(t), validResolve())
		return err
	}},
	{code: paygate.CodeSignatureInvalid, name: "a request signed with another key", call: func(t *testing.T, sb *sandbox) error {
		client, err := paygate.NewClient(sb.srv.ProjectKey, "another-key",
			paygate.WithBaseURL(sb.srv.URL), paygate.WithForm(sb.form), paygate.WithRetryPolicy(paygate.NoRetries))
		require.NoError(t, err)
		_, err = client.Users.Resolve(testCtx(t), validResolve())
		return err
	}},
	{code: paygate.CodeCardTokenExpired, name: "a token older than 10 minutes", call: func(t *testing.T, sb *sandbox) error {
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
		sb.srv.Advance(10*time.Minute + time.Second)
		_, err := sb.client.Cards.Charge(testCtx(t), params)
		return err
	}},
	{code: paygate.CodeCardTokenUsed, name: "a token used twice", call: func(t *testing.T, sb *sandbox) error {
		return sb.chargeTokenTwice(t)
	}},
	{code: paygate.CodeCardBlocked, name: "the blocked card", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.tryCharge(t, paygatetest.CardBlocked, "10.00", "ord-1")
		return err
	}},
	{code: paygate.CodeRecurringDisabled, name: "recurring after cancelling", call: func(t *testing.T, sb *sandbox) error {
		user := sb.subscribe(t)
		require.NoError(t, sb.client.Users.CancelRecurring(testCtx(t), &paygate.CancelRecurringParams{User: user}))
		return sb.chargeRecurring(t, user)
	}},
	{code: paygate.CodeRecurringExpired, name: "recurring after its end", call: func(t *testing.T, sb *sandbox) error {
		user := sb.subscribe(t)
		sb.srv.Advance(366 * 24 * time.Hour)
		return sb.chargeRecurring(t, user)
	}},
	{code: paygate.CodeCardRememberingDisabled, name: "remember on a project that does not", opts: []paygatetest.Option{paygatetest.WithCardRemembering(false)}, call: func(t *testing.T, sb *sandbox) error {
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
		params.Remember = true
		_, err := sb.client.Cards.Charge(testCtx(t), params)
		return err
	}},
	{code: paygate.CodeProjectNotFound, name: "an unknown project", call: func(t *testing.T, sb *sandbox) error {
		client, err := paygate.NewClient("no-such-project", sb.srv.PrivateKey,
			paygate.WithBaseURL(sb.srv.URL), paygate.WithForm(sb.form), paygate.WithRetryPolicy(paygate.NoRetries))
		require.NoError(t, err)
		_, err = client.Users.Resolve(testCtx(t), validResolve())
		return err
	}},
	{code: paygate.CodeCardTokenInvalid, name: "a token never issued", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.client.Cards.Charge(testCtx(t), &paygate.ChargeParams{
			User: sb.user(t, "cust-1"), CardToken: paygate.NewCardToken("tmp_never_issued"), Price: dec("10.00"), Currency: "EUR", Description: "d",
		})
		return err
	}},
	{code: paygate.CodeTransactionNotFound, name: "status of an unknown id", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: 1000000000000000999})
		return err
	}},
	{code: paygate.CodeReferenceTransactionNotFound, name: "recurring without a subscription", call: func(t *testing.T, sb *sandbox) error {
		return sb.chargeRecurring(t, sb.user(t, "cust-1"))
	}},
	{code: paygate.CodeUserNotFound, name: "charge of an unknown user", call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.client.Cards.Charge(testCtx(t), sb.chargeParams(t, "999", paygatetest.CardApproved, "10.00", "ord-1"))
		return err
	}},
	{code: 40400, name: "an extended-only method of a basic-form project", forms: basicOnly, call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.srv.Client(paygate.WithForm(paygate.FormExtended)).Balance.Get(testCtx(t), nil)
		return err
	}},
	{code: paygate.CodeTransactionCompleted, name: "authenticate twice", call: func(t *testing.T, sb *sandbox) error {
		pay := sb.charge(t, paygatetest.Card3DSecure, "10.00", "ord-1")
		auth := &paygate.AuthenticateParams{PaRes: paygate.NewACSData(sb.srv.PaRes(pay.ACS.Parameters.MD, paygatetest.ACSPassword)), MD: paygate.NewACSData(pay.ACS.Parameters.MD)}
		_, err := sb.client.Cards.Authenticate(testCtx(t), auth)
		require.NoError(t, err)
		_, err = sb.client.Cards.Authenticate(testCtx(t), auth)
		return err
	}},
	{code: paygate.CodeRecurringTooFrequent, name: "recurring sooner than its frequency", call: func(t *testing.T, sb *sandbox) error {
		user := sb.subscribe(t)
		require.NoError(t, sb.client.Users.ChangeRecurring(testCtx(t), &paygate.ChangeRecurringParams{User: user, Interval: paygate.Days(7)}))
		require.NoError(t, sb.chargeRecurring(t, user), "the first manual charge may follow at once")
		return sb.chargeRecurring(t, user)
	}},
	{code: paygate.CodeNotReversible, name: "reverse a declined payment", call: func(t *testing.T, sb *sandbox) error {
		pay := sb.charge(t, paygatetest.CardDeclined, "10.00", "ord-1")
		_, err := sb.reverse(t, pay.ID, "10.00")
		return err
	}},
	{code: paygate.CodeGatewayMisconfigured, name: "a SEPA payout outside EUR", forms: extendedOnly, call: func(t *testing.T, sb *sandbox) error {
		_, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
			Type: sb.payoutType(t, "SEPA"), Account: paygate.NewAccountNumber("DE89370400440532013000"), Amount: dec("10.00"), Currency: "USD",
			BeneficiaryFirstName: "Jane", BeneficiaryLastName: "Roe", ReceiverBankBIC: "COBADEFFXXX",
		})
		return err
	}},
}

var (
	basicOnly    = []paygate.Form{paygate.FormBasic}
	extendedOnly = []paygate.Form{paygate.FormExtended}
)

// Every case's answer reaches the caller as an *Error with the code, the
// HTTP status of its first three digits, and (for the gateway's table) the
// sentinel errors.Is matches.
func TestIntegration_ErrorCodes(t *testing.T) {
	t.Parallel()
	sentinels := make(map[paygate.ErrorCode]bool)
	for _, c := range paygate.Codes() {
		sentinels[c] = true
	}
	for _, ec := range errorCases {
		caseForms := ec.forms
		if caseForms == nil {
			caseForms = forms
		}
		for _, form := range caseForms {
			t.Run(strconv.Itoa(int(ec.code))+"/"+form.String()+"/"+ec.name, func(t *testing.T) {
				sb := newSandbox(t, form, ec.opts...)
				err := ec.call(t, sb)
				var apiErr *paygate.Error
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, ec.code, apiErr.Code, apiErr.Message)
				assert.Equal(t, ec.code.HTTPStatus(), apiErr.HTTPStatus)
				assert.NotEmpty(t, apiErr.Message)
				if sentinels[ec.code] {
					assert.ErrorIs(t, err, &paygate.Error{Code: ec.code})
				}
			})
		}
	}
}

// The cases above cover every code the sandbox's source answers with: the
// codes of the gateway's table it names (paygate.CodeXxx) and its own API
// answers (40000, 40400). A code added to the sandbox fails this test until
// a case produces it or the list below names it.
func TestIntegration_ErrorCasesCoverEveryCodeTheSandboxAnswers(t *testing.T) {
	t.Parallel()
	consts := parseErrorCodeConsts(t, "errors.go", filepath.Join("paygatetest", "errors.go"))
	// The sandbox's own codes beyond 40000 and 40400 answer its control
	// plane and pages (40300, 40500, 40900) and its bounds on abuse (41300
	// for a body over its limit, 42900 for an address out of signature
	// guesses): no typed call meets them in a merchant's ordinary use.
	for _, name := range []string{"CodeForbidden", "CodeNotAllowed", "CodeConflict", "CodeBodyTooLarge", "CodeTooManyGuesses"} {
		require.Contains(t, consts, name, "paygatetest/errors.go no longer defines %s: update this list", name)
		delete(consts, name)
	}
	produced := make(map[paygate.ErrorCode]string)
	refRE := regexp.MustCompile(`\b(?:paygate\.)?([Cc]ode[A-Z][A-Za-z]+)\b`)
	files, err := filepath.Glob(filepath.Join("paygatetest", "*.go"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range refRE.FindAllStringSubmatch(string(src), -1) {
			if code, ok := consts[m[1]]; ok {
				produced[code] = m[1]
			}
		}
	}
	require.NotEmpty(t, produced)

	covered := make(map[paygate.ErrorCode]bool)
	for _, ec := range errorCases {
		covered[ec.code] = true
	}
	for code, name := range produced {
		assert.True(t, covered[code], "the sandbox answers %d (%s) but no error case produces it", code, name)
	}
	var never []string
	for _, code := range paygate.Codes() {
		if _, ok := produced[code]; !ok {
			never = append(never, strconv.Itoa(int(code)))
		}
	}
	slices.Sort(never)
	t.Logf("codes of the gateway's table the sandbox never answers: %s", strings.Join(never, ", "))
}

// parseErrorCodeConsts reads the ErrorCode constants declared in files:
// name -> value.
func parseErrorCodeConsts(t *testing.T, files ...string) map[string]paygate.ErrorCode {
	t.Helper()
	out := make(map[string]paygate.ErrorCode)
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.INT {
						continue
					}
					n, err := strconv.Atoi(lit.Value)
					require.NoError(t, err)
					if n >= 40000 && n < 60000 {
						out[id.Name] = paygate.ErrorCode(n)
					}
				}
			}
		}
	}
	return out
}

func validResolve() *paygate.ResolveUserParams {
	return &paygate.ResolveUserParams{Identifier: "cust-1", Email: "jane@example.com", IP: "203.0.113.7"}
}

// drop returns a rewrite removing the parameter name.
func drop(name string) func(url.Values) {
	return func(v url.Values) { v.Del(name) }
}

// set returns a rewrite setting the parameter name to value.
func set(name, value string) func(url.Values) {
	return func(v url.Values) { v.Set(name, value) }
}

// resolveRewritten resolves a valid user in a request rewrite spoils.
func resolveRewritten(rewrite func(url.Values)) func(t *testing.T, sb *sandbox) error {
	return func(t *testing.T, sb *sandbox) error {
		_, err := sb.rewritingClient(&rewriteTransport{rewrite: rewrite}).Users.Resolve(testCtx(t), validResolve())
		return err
	}
}

// tokenizeRewritten tokenizes a valid card whose request rewrite spoils.
func tokenizeRewritten(rewrite func(url.Values)) func(t *testing.T, sb *sandbox) error {
	return func(t *testing.T, sb *sandbox) error {
		_, err := sb.rewritingClient(&rewriteTransport{rewrite: rewrite}).Cards.Tokenize(testCtx(t), &paygate.TokenizeParams{
			Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
		})
		return err
	}
}

// chargeRewritten charges a valid token in a request rewrite spoils.
func chargeRewritten(rewrite func(url.Values)) func(t *testing.T, sb *sandbox) error {
	return func(t *testing.T, sb *sandbox) error {
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "10.00", "ord-1")
		_, err := sb.rewritingClient(&rewriteTransport{rewrite: rewrite}).Cards.Charge(testCtx(t), params)
		return err
	}
}

// subscribe charges a new user with recurring (manual only: at most
// daily) and returns the user.
func (sb *sandbox) subscribe(t *testing.T) paygate.UserID {
	t.Helper()
	user := sb.user(t, "cust-recurring")
	sb.chargeSubscribing(t, user, 0)
	return user
}

// chargeRecurring makes a manual recurring charge of user.
func (sb *sandbox) chargeRecurring(t *testing.T, user paygate.UserID) error {
	t.Helper()
	_, err := sb.client.Cards.ChargeRecurring(testCtx(t), &paygate.ChargeRecurringParams{User: user, Price: dec("9.99"), Currency: "EUR"})
	return err
}

// The SDK refuses locally, naming the field and sending nothing, the input
// the sandbox would answer with these codes.
func TestIntegration_SDKRefusesLocallyWhatTheSandboxWouldReject(t *testing.T) {
	t.Parallel()
	card := func(number string, month int, code string) *paygate.TokenizeParams {
		return &paygate.TokenizeParams{Number: paygate.NewCardNumber(number), Expiry: paygate.NewExpiry(month, 2030), SecurityCode: paygate.NewSecurityCode(code)}
	}
	tests := []struct {
		sandboxCode paygate.ErrorCode
		form        paygate.Form
		field       string
		call        func(c *paygate.Client) error
	}{
		{paygate.CodeUserIdentifierMissing, paygate.FormExtended, "identifier", func(c *paygate.Client) error {
			_, err := c.Users.Resolve(context.Background(), &paygate.ResolveUserParams{IP: "203.0.113.7"})
			return err
		}},
		{paygate.CodeUserEmailMissing, paygate.FormBasic, "email", func(c *paygate.Client) error {
			_, err := c.Users.Resolve(context.Background(), &paygate.ResolveUserParams{Identifier: "c", IP: "203.0.113.7"})
			return err
		}},
		{paygate.CodeUserIPMissing, paygate.FormExtended, "ip", func(c *paygate.Client) error {
			_, err := c.Users.Resolve(context.Background(), &paygate.ResolveUserParams{Identifier: "c"})
			return err
		}},
		{paygate.CodeCardNumberMissing, paygate.FormExtended, "number", func(c *paygate.Client) error {
			_, err := c.Cards.Tokenize(context.Background(), card("", 12, "123"))
			return err
		}},
		{paygate.CodeCardNumberInvalid, paygate.FormExtended, "number", func(c *paygate.Client) error {
			_, err := c.Cards.Tokenize(context.Background(), card("4242424242424241", 12, "123"))
			return err
		}},
		{paygate.CodeExpiryInvalid, paygate.FormExtended, "expiration_month", func(c *paygate.Client) error {
			_, err := c.Cards.Tokenize(context.Background(), card(paygatetest.CardApproved, 13, "123"))
			return err
		}},
		{paygate.CodeSecurityCodeMissing, paygate.FormExtended, "security_code", func(c *paygate.Client) error {
			_, err := c.Cards.Tokenize(context.Background(), card(paygatetest.CardApproved, 12, ""))
			return err
		}},
		{paygate.CodeCardTokenMissing, paygate.FormBasic, "card_token", func(c *paygate.Client) error {
			_, err := c.Cards.Charge(context.Background(), &paygate.ChargeParams{User: "1", Price: dec("1"), Currency: "EUR", Description: "d"})
			return err
		}},
		{paygate.CodeCardholderInvalid, paygate.FormExtended, "card[holder]", func(c *paygate.Client) error {
			_, err := c.Cards.Charge(context.Background(), &paygate.ChargeParams{
				User: "1", Price: dec("1"), Currency: "EUR", Description: "d",
				Card: &paygate.CardDetails{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"), Holder: strings.Repeat("J", 22)},
			})
			return err
		}},
		{paygate.CodeMerchantDataMissing, paygate.FormExtended, "description", func(c *paygate.Client) error {
			_, err := c.Cards.Charge(context.Background(), &paygate.ChargeParams{User: "1", CardToken: paygate.NewCardToken("tmp"), Price: dec("1"), Currency: "EUR"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(int(tt.sandboxCode))+"/"+tt.field, func(t *testing.T) {
			sb := newSandbox(t, tt.form)
			client, sent := sb.countingClient()
			var verr *paygate.ValidationError
			require.ErrorAs(t, tt.call(client), &verr)
			assert.Equal(t, tt.field, verr.Field)
			assert.Zero(t, sent.Load(), "requests sent")
		})
	}
}
