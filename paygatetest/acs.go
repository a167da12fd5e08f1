package paygatetest

import (
	"html/template"
	"net/http"
)

// PaRes returns the payer authentication response the ACS page posts back
// for the merchant data md after the payer typed password, for tests that
// skip the browser step: pass it with md to card/authenticate.
func (s *Server) PaRes(md, password string) string {
	return acsPaRes(md, password == ACSPassword)
}

// serveACS is the sandbox's access control server. The payer's browser
// POSTs (or GETs) PaReq, MD and TermUrl; the page asks for the 3-D Secure
// password. Submitting it answers with a form that POSTs PaRes and MD to
// TermUrl by itself. The password ACSPassword passes; any other fails the
// authentication, which card/authenticate reads from PaRes.
func (s *Server) serveACS(w http.ResponseWriter, r *http.Request) {
	form, perr := readParams(w, r) // the bounds of an API request: no key is needed to get here
	if perr != nil {
		http.Error(w, "malformed form: "+perr.detail, http.StatusBadRequest)
		return
	}
	md, term := form.Get("MD"), form.Get("TermUrl")
	s.mu.Lock()
	t := s.st.byMD[md]
	s.mu.Unlock()
	if md == "" || t == nil {
		http.Error(w, "unknown MD", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if _, submitted := form["password"]; !submitted || r.Method != http.MethodPost {
		acsPasswordTemplate.Execute(w, map[string]string{"PaReq": form.Get("PaReq"), "MD": md, "TermUrl": term})
		return
	}
	acsReturnTemplate.Execute(w, map[string]string{
		"PaRes": acsPaRes(md, form.Get("password") == ACSPassword), "MD": md, "TermUrl": term,
	})
}

// acsPaRes is the payer authentication response for md: it tells
// card/authenticate whether the password step passed.
func acsPaRes(md string, passed bool) string {
	if passed {
		return "PARES-Y-" + md
	}
	return "PARES-N-" + md
}

var acsPasswordTemplate = template.Must(template.New("acs").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>3-D Secure</title></head>
<body>
<h1>Sandbox 3-D Secure</h1>
<p>Enter the password (1234 passes).</p>
<form method="post" action="/acs">
<input type="hidden" name="PaReq" value="{{.PaReq}}">
<input type="hidden" name="MD" value="{{.MD}}">
<input type="hidden" name="TermUrl" value="{{.TermUrl}}">
<input type="password" name="password" id="password" autofocus>
<button type="submit" id="submit">Submit</button>
</form>
</body></html>
`))

var acsReturnTemplate = template.Must(template.New("acs-return").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>3-D Secure</title></head>
<body onload="document.forms[0].submit()">
<form method="post" action="{{.TermUrl}}">
<input type="hidden" name="PaRes" value="{{.PaRes}}">
<input type="hidden" name="MD" value="{{.MD}}">
<noscript><button type="submit">Continue</button></noscript>
</form>
</body></html>
`))
