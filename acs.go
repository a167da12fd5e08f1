package paygate

import (
	"bytes"
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
	if err := a.checkURL(); err != nil {
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
	p := &AuthenticateParams{PaRes: r.PostForm.Get("PaRes"), MD: r.PostForm.Get("MD")}
	switch {
	case p.PaRes == "":
		return nil, &ValidationError{Field: "PaRes", Reason: "is missing from the ACS return"}
	case p.MD == "":
		return nil, &ValidationError{Field: "MD", Reason: "is missing from the ACS return"}
	}
	return p, nil
}

// checkURL refuses anything but an absolute http(s) address, so that a
// tampered or broken answer cannot point the payer's browser at a
// javascript: or data: URL.
func (a *ACS) checkURL() error {
	if a == nil {
		return errors.New("paygate: no ACS object: the payment needs no 3-D Secure redirect")
	}
	if _, ok := absoluteHTTPURL(a.URL); !ok {
		return errors.New("paygate: the ACS URL is not an absolute http(s) URL")
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
