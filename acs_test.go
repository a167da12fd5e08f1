package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderedForm is what a browser would take from the rendered HTML: the
// form's method and action and its inputs, entities decoded.
type renderedForm struct {
	Method, Action string
	Inputs         map[string]string // name -> value
	InputTypes     map[string]string
	Scripts        int
	NoscriptButton bool
}

// parseForm reads the rendered markup, which is well-formed XML, the way a
// browser reads the attributes: with character references decoded.
func parseForm(t *testing.T, markup string) renderedForm {
	t.Helper()
	f := renderedForm{Inputs: map[string]string{}, InputTypes: map[string]string{}}
	dec := xml.NewDecoder(strings.NewReader(markup))
	inNoscript := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the markup must be well-formed")
		switch el := tok.(type) {
		case xml.StartElement:
			attr := func(name string) string {
				for _, a := range el.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch el.Name.Local {
			case "form":
				f.Method, f.Action = attr("method"), attr("action")
			case "input":
				_, dup := f.Inputs[attr("name")]
				require.False(t, dup, "input %s appears twice", attr("name"))
				f.Inputs[attr("name")] = attr("value")
				f.InputTypes[attr("name")] = attr("type")
			case "script":
				f.Scripts++
			case "noscript":
				inNoscript = true
			case "button":
				f.NoscriptButton = f.NoscriptButton || (inNoscript && attr("type") == "submit")
			}
		case xml.EndElement:
			if el.Name.Local == "noscript" {
				inNoscript = false
			}
		}
	}
	return f
}

func fixtureACS(t *testing.T) *ACS {
	t.Helper()
	var p Payment
	require.NoError(t, json.Unmarshal(fixture(t, "card_process_3ds_extended.json"), &p))
	require.NotNil(t, p.ACS)
	return p.ACS
}

func TestRedirectForm_PostsTheThreeParametersUnchangedToTheACS(t *testing.T) {
	t.Parallel()
	hostile := &ACS{
		URL: "https://acs.bank.example/3ds/pareq?session=ab12&lang=en",
		Parameters: ACSParameters{
			PaReq:   `eJx"quoted'<b>bold</b>&amp;+/=`,
			MD:      `"></form><script>alert(document.cookie)</script>`,
			TermURL: `https://shop.example/3ds-return?order=1&note="x"<y>`,
		},
	}
	for name, acs := range map[string]*ACS{"fixture": fixtureACS(t), "hostile values": hostile} {
		t.Run(name, func(t *testing.T) {
			html, err := acs.RedirectForm()
			require.NoError(t, err)

			f := parseForm(t, string(html))
			assert.Equal(t, "post", f.Method)
			assert.Equal(t, acs.URL, f.Action)
			assert.Equal(t, acsInputs(acs), f.Inputs)
			assert.Equal(t, map[string]string{"PaReq": "hidden", "MD": "hidden", "TermUrl": "hidden"}, f.InputTypes)
			assert.Equal(t, 1, f.Scripts, "only the form's own script")
			assert.True(t, f.NoscriptButton, "browsers without scripts get a submit button")
		})
	}
}

func TestRedirectForm_EscapesQuotesAndAngleBrackets(t *testing.T) {
	t.Parallel()
	acs := &ACS{URL: "https://acs.bank.example/pareq", Parameters: ACSParameters{
		PaReq: `a"b`, MD: `<script>x</script>`, TermURL: `https://shop.example/r?a=1&b=2`,
	}}
	html, err := acs.RedirectForm()
	require.NoError(t, err)
	s := string(html)
	assert.Contains(t, s, `value="a&#34;b"`)
	assert.Contains(t, s, `value="&lt;script&gt;x&lt;/script&gt;"`)
	assert.Contains(t, s, `value="https://shop.example/r?a=1&amp;b=2"`)
	assert.NotContains(t, s, `<script>x`)
}

func TestRedirectForm_RejectsAnythingButAnAbsoluteHTTPURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"javascript:alert(1)",
		"JAVASCRIPT:alert(1)",
		"data:text/html;base64,PHNjcmlwdD4=",
		"ftp://acs.bank.example/pareq",
		"/3ds/pareq",
		"//acs.bank.example/pareq",
		"https://",
		"",
	} {
		t.Run(u, func(t *testing.T) {
			acs := &ACS{URL: u, Parameters: ACSParameters{PaReq: "p", MD: "m", TermURL: "https://shop.example/r"}}
			html, err := acs.RedirectForm()
			require.Error(t, err)
			assert.Empty(t, html)

			w := httptest.NewRecorder()
			require.Error(t, WriteACSRedirect(w, acs))
			assert.Zero(t, w.Body.Len(), "nothing is written")
			assert.Empty(t, w.Header().Get("Content-Type"))
		})
	}
	t.Run("nil", func(t *testing.T) {
		var acs *ACS
		_, err := acs.RedirectForm()
		require.Error(t, err)
		require.Error(t, WriteACSRedirect(httptest.NewRecorder(), nil))
	})
	t.Run("http is accepted", func(t *testing.T) {
		_, err := (&ACS{URL: "http://acs.bank.example/pareq", Parameters: ACSParameters{TermURL: "https://shop.example/r"}}).RedirectForm()
		require.NoError(t, err)
	})
}

func TestWriteACSRedirect_WritesAnUncachedHTMLPageWithTheForm(t *testing.T) {
	t.Parallel()
	acs := fixtureACS(t)
	w := httptest.NewRecorder()
	require.NoError(t, WriteACSRedirect(w, acs))

	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
	assert.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	body := w.Body.String()
	assert.True(t, strings.HasPrefix(body, "<!DOCTYPE html>"))

	f := parseForm(t, body)
	assert.Equal(t, acs.URL, f.Action)
	assert.Equal(t, acsInputs(acs), f.Inputs)
	assert.True(t, f.NoscriptButton)
}

// acsInputs are the fields a redirect form to acs must post: its
// parameters under the names the spec gives them.
func acsInputs(acs *ACS) map[string]string {
	return map[string]string{
		"PaReq":   acs.Parameters.PaReq,
		"MD":      acs.Parameters.MD,
		"TermUrl": acs.Parameters.TermURL,
	}
}

func acsReturnRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "https://shop.example/checkout/3ds-return?order=ord-20261122-0002", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func TestReadACSReturn_ReadsPaResAndMDFromThePostedForm(t *testing.T) {
	t.Parallel()
	paRes := "eJzVWFmTo7gS/iuOno+KKSHA2GfL0yEWYx+nM+0kL0kRmsPr+Fp/+ii8Cg=="
	md := "NDYxMTY4NjAxODQyNzM4Nzk1MTpjdXN0LTg4NDE="
	body := url.Values{"PaRes": {paRes}, "MD": {md}}.Encode()

	p, err := ReadACSReturn(acsReturnRequest(body))
	require.NoError(t, err)
	assert.Equal(t, &AuthenticateParams{PaRes: NewACSData(paRes), MD: NewACSData(md)}, p)
}

func TestReadACSReturn_ReadsAMultipartForm(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	require.NoError(t, mw.WriteField("PaRes", "pares+/="))
	require.NoError(t, mw.WriteField("MD", "md=="))
	require.NoError(t, mw.Close())
	r := httptest.NewRequest(http.MethodPost, "https://shop.example/3ds-return", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())

	p, err := ReadACSReturn(r)
	require.NoError(t, err)
	assert.Equal(t, &AuthenticateParams{PaRes: NewACSData("pares+/="), MD: NewACSData("md==")}, p)
}

func TestReadACSReturn_MissingFieldsAreValidationErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		req   *http.Request
		field string
	}{
		{"empty body", acsReturnRequest(""), "PaRes"},
		{"PaRes missing", acsReturnRequest("MD=md"), "PaRes"},
		{"PaRes empty", acsReturnRequest("PaRes=&MD=md"), "PaRes"},
		{"MD missing", acsReturnRequest("PaRes=pares"), "MD"},
		{"only in the query string", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "https://shop.example/3ds-return?PaRes=pares&MD=md", strings.NewReader(""))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}(), "PaRes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ReadACSReturn(tt.req)
			assert.Nil(t, p)
			requireValidationError(t, err, tt.field)
			assert.Contains(t, err.Error(), "ACS return")
		})
	}
}

func TestReadACSReturn_RejectsOtherMethods(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "https://shop.example/3ds-return?PaRes=pares&MD=md", nil)
	p, err := ReadACSReturn(r)
	assert.Nil(t, p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "POST")
}

func TestReadACSReturn_LimitsTheBodySize(t *testing.T) {
	t.Parallel()
	body := "MD=md&PaRes=" + strings.Repeat("A", MaxACSReturnBytes)
	p, err := ReadACSReturn(acsReturnRequest(body))
	assert.Nil(t, p)
	var tooLarge *http.MaxBytesError
	require.True(t, errors.As(err, &tooLarge), "got %v", err)
}

func TestReadACSReturn_FeedsAuthenticate(t *testing.T) {
	t.Parallel()
	p, err := ReadACSReturn(acsReturnRequest(url.Values{"PaRes": {"pa+res/=="}, "MD": {"m d"}}.Encode()))
	require.NoError(t, err)
	r := requestSent(t, http.MethodPost, "card/authenticate", "card_authenticate.json", func(c *Client) error {
		return errOf(c.Cards.Authenticate(context.Background(), p))
	})
	requireSignedFields(t, r, map[string]string{"PaRes": "pa+res/==", "MD": "m d"})
}
