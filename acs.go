package paygate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"
)

// MaxACSReturnBytes bounds the body ReadACSReturn reads. A PaRes is a few
// kilobytes; the limit leaves ample room.
const MaxACSReturnBytes = 128 << 10

// RedirectForm returns an HTML form that POSTs the 3-D Secure parameters
// (PaReq, MD, TermUrl) unchanged to the access control server, with a
// script that submits it at once and, for browsers without scripts, a
// button. Embed it in a page of your own, or use WriteACSRedirect to send a
// complete page. The URL must be an absolute http(s) URL.
func (a *ACS) RedirectForm() (template.HTML, error) {
	if err := a.verifyURL(); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := acsFormTemplate.Execute(&buf, a); err != nil {
		return "", fmt.Errorf("paygate: rendering the ACS form: %w", err)
	}
	return template.HTML(buf.String()), nil
}

// WriteACSRedirect answers the payer's browser with a page that sends it on
// to the access control server (see ACS.RedirectForm). Call it when a
// payment's NeedsAuthentication reports true, with the payment's ACS. The
// page is marked not to be cached. Nothing is written when acs is unusable.
func WriteACSRedirect(w http.ResponseWriter, acs *ACS) error {
	form, err := acs.RedirectForm()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := acsPageTemplate.Execute(&buf, form); err != nil {
		return fmt.Errorf("paygate: rendering the ACS page: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(buf.Bytes())
	return err
}

// ReadACSReturn reads the request the access control server sends the payer
// back with, to the ChargeParams.ACSReturnURL: a form POST carrying PaRes
// and MD. Pass the result to CardsService.Authenticate. The body is read up
// to MaxACSReturnBytes; only the POSTed form is consulted, never the query
// string. A missing field is a *ValidationError naming it.
func ReadACSReturn(r *http.Request) (*AuthenticateParams, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("paygate: the ACS return must be a POST, got %s", r.Method)
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(nil, r.Body, MaxACSReturnBytes)
	}
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		err = r.ParseMultipartForm(MaxACSReturnBytes)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return nil, fmt.Errorf("paygate: reading the ACS return: %w", err)
	}
	p := &AuthenticateParams{PaRes: NewACSData(r.PostForm.Get("PaRes")), MD: NewACSData(r.PostForm.Get("MD"))}
	switch {
	case p.PaRes.IsZero():
		return nil, &ValidationError{Field: "PaRes", Reason: "is missing from the ACS return"}
	case p.MD.IsZero():
		return nil, &ValidationError{Field: "MD", Reason: "is missing from the ACS return"}
	}
	return p, nil
}

// verifyURL refuses anything but an absolute http(s) address, so that a
// tampered or broken answer cannot point the payer's browser at a
// javascript: or data: URL, and parameters without a TermUrl.
func (a *ACS) verifyURL() error {
	if a == nil {
		return errors.New("paygate: no ACS object: the payment needs no 3-D Secure redirect")
	}
	if _, ok := absoluteHTTPURL(a.URL); !ok {
		return errors.New("paygate: the ACS URL is not an absolute http(s) URL")
	}
	if a.Parameters.TermURL == "" {
		// The ACS would have nowhere to send the payer back to: the payment
		// would stay authenticating, the payer stranded on the bank's page.
		return errors.New("paygate: the ACS parameters carry no TermUrl; charge with an ACSReturnURL")
	}
	return nil
}

// The form submits itself through document.currentScript so that several
// embedded forms need no ids. It is well-formed XML, which keeps it easy to
// check.
var acsFormTemplate = template.Must(template.New("acs-form").Parse(
	`<form method="post" action="{{.URL}}">` +
		`<input type="hidden" name="PaReq" value="{{.Parameters.PaReq}}"/>` +
		`<input type="hidden" name="MD" value="{{.Parameters.MD}}"/>` +
		`<input type="hidden" name="TermUrl" value="{{.Parameters.TermURL}}"/>` +
		`<noscript><p>Your bank needs to confirm this payment.</p><button type="submit">Continue</button></noscript>` +
		`</form>` +
		`<script>document.currentScript.previousElementSibling.submit();</script>`))

var acsPageTemplate = template.Must(template.New("acs-page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="robots" content="noindex, nofollow"/>
<title>Confirming your payment</title>
</head>
<body>
{{.}}
</body>
</html>
`))

// authenticateBound is Authenticate for a return bound to a payment or an
// order: look the payment up, refuse another order's, report a settled one
// as it stands, authenticate, and refuse an answer about another payment.
func (s *CardsService) authenticateBound(ctx context.Context, p *AuthenticateParams, opts []CallOption) (*Payment, error) {
	if err := p.validate(s.client.form); err != nil {
		return nil, err
	}
	q := &TransactionStatusParams{ID: p.PaymentID}
	if p.PaymentID == 0 {
		q.OrderID = p.OrderID
	}
	before, err := s.client.Transactions.Status(ctx, q, opts...)
	if err != nil {
		return nil, err
	}
	expected := before.ID
	switch {
	case p.PaymentID != 0 && before.ID != p.PaymentID:
		status := endpoints[epStatus]
		return nil, &ResponseError{Method: status.method, Path: status.path, HTTPStatus: http.StatusOK,
			Field: "id", Err: fmt.Errorf("asked for transaction %s, answered for %s", p.PaymentID, before.ID)}
	case p.OrderID != "" && before.OrderID != p.OrderID:
		return nil, &ACSReturnMismatchError{PaymentID: expected, OrderID: p.OrderID, FoundOrderID: before.OrderID}
	case !awaitingAuthentication(before.Status):
		return paymentFromStatus(before), nil
	}
	pay, err := call[Payment](ctx, s.client, epAuthenticate, p, opts)
	var unknown *OutcomeUnknownError
	if errors.As(err, &unknown) {
		// PaRes and MD name no payment: give Settle the one looked up.
		unknown.TransactionID, unknown.OrderID = expected, before.OrderID
	}
	switch {
	case errors.Is(err, ErrTransactionCompleted):
		// A repeated return that raced the first: report where the payment
		// stands, unless it is still waiting, in which case the completed
		// transaction was another one.
		now, lerr := s.client.Transactions.Status(ctx, &TransactionStatusParams{ID: expected}, opts...)
		switch {
		case lerr != nil:
			return nil, err
		case awaitingAuthentication(now.Status):
			return nil, &ACSReturnMismatchError{PaymentID: expected, OrderID: p.OrderID, Err: err}
		}
		return paymentFromStatus(now), nil
	case err != nil:
		return nil, err
	case pay.ID != expected:
		return nil, &ACSReturnMismatchError{PaymentID: expected, OrderID: p.OrderID, AuthenticatedID: pay.ID}
	}
	return pay, nil
}

// awaitingAuthentication reports whether a payment in status s can still
// be completed by card/authenticate.
func awaitingAuthentication(s Status) bool {
	return s == StatusAuthenticating || s == StatusOpened
}

// paymentFromStatus reports a payment that needs no authentication any
// more as the status endpoint sees it.
func paymentFromStatus(st *TransactionStatus) *Payment {
	return &Payment{
		Success: st.Status != StatusFailed,
		ID:      st.ID, OrderID: st.OrderID, Price: st.Price, Fee: st.Fee, Currency: st.Currency,
		Type: st.Type, Status: st.Status, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
	}
}
