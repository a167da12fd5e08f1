package paygate

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzObjectMembers checks the tolerant decoder's scanner against
// encoding/json: for any valid JSON object, the members it finds are the
// ones encoding/json finds (a key sent twice by its last value), and for
// any valid array, the elements.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"status":"completed"}`,
		` { "a" : [1, {"b":"}"}] , "c\"d" : "x\\" , "a": null } `,
		`{"order\u005fid":"o","card":{"lastFour":"4242"},"n":-1.5e3,"t":true}`,
		`[1, "two", {"three":[3]}, null, [ ]]`,
		`{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimSpace(raw)
		if !json.Valid(raw) || len(raw) == 0 {
			return
		}
		switch raw[0] {
		case '{':
			var want map[string]json.RawMessage
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for _, m := range objectMembers(raw, nil) {
				var key string
				if err := json.Unmarshal(m.key, &key); err != nil {
					t.Fatalf("key %q: %v", m.key, err)
				}
				got[key] = m.value
			}
			if len(got) != len(want) {
				t.Fatalf("%d members, encoding/json finds %d in %s", len(got), len(want), raw)
			}
			for k, v := range want {
				if !bytes.Equal(got[k], v) {
					t.Fatalf("member %q is %s, encoding/json reads %s", k, got[k], v)
				}
			}
		case '[':
			var want []json.RawMessage
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			got := arrayElements(raw, nil)
			if len(got) != len(want) {
				t.Fatalf("%d elements, encoding/json finds %d in %s", len(got), len(want), raw)
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("element %d is %s, encoding/json reads %s", i, got[i], want[i])
				}
			}
		}
	})
}
