package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
)

// FuzzParseBody: any body read by sign and verify (pasted from a log,
// possibly cut or mangled) is read without a panic; a form that net/url
// refuses is refused, one read is read as net/url reads it (the sandbox's
// bounds may refuse what net/url reads), and a JSON object keeps every
// top-level string value.
func FuzzParseBody(f *testing.F) {
	f.Add([]byte("project=10042&id=9007199254740993&amount=10.00&reason=&signature=ab"))
	f.Add([]byte(`{"project":"pk","card":{"number":"4242424242424242","expiration_month":12},"price":10.00,"x":true,"y":null,"z":[1,"a"]}`))
	f.Add([]byte(`{"a":`))
	f.Add([]byte("%zz=1"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseBody(body)
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			want, werr := url.ParseQuery(string(trimmed))
			if (werr != nil && err == nil) || (err == nil && !equalValues(got, want)) {
				t.Fatalf("form %q: got %v, %v; net/url reads %v, %v", body, got, err, want, werr)
			}
			return
		}
		var obj map[string]any
		if err != nil || json.Unmarshal(trimmed, &obj) != nil {
			return
		}
		for k, v := range obj {
			if s, ok := v.(string); ok && !slices.Contains(got[k], s) {
				t.Fatalf("JSON %q: %s=%q is missing from %v", body, k, s, got)
			}
		}
	})
}

func equalValues(a, b url.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, vs := range a {
		if !slices.Equal(vs, b[k]) {
			return false
		}
	}
	return true
}
