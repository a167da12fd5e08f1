package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/paygate/paygate-go/internal/jsonscalar"
)

// emit prints v as indented JSON with --json, else what text writes.
func (c *config) emit(v any, text func(w io.Writer)) error {
	if c.json {
		return printJSON(c.env.stdout, v)
	}
	text(c.env.stdout)
	return nil
}

// printJSON prints v as JSON indented by two spaces, jsonPrintable.
func printJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonPrintable(buf.Bytes()))
	return err
}

// parseParams reads name=value arguments; a value may hold "=", and a
// name may repeat.
func parseParams(args []string) (url.Values, error) {
	out := url.Values{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, usagef("%q is not name=value", a)
		}
		out.Add(name, value)
	}
	return out, nil
}

// fieldsJSON is a url.Values as a JSON object: a name sent once maps to
// its value, a repeated one to the list.
func fieldsJSON(v url.Values) map[string]any {
	out := make(map[string]any, len(v))
	for k, vs := range v {
		if len(vs) == 1 {
			out[k] = vs[0]
		} else {
			out[k] = vs
		}
	}
	return out
}

// textID is an id the sandbox writes as a JSON string or number; the
// command prints it as a string, as it prints every id: a 19-digit number
// loses digits in many JSON readers.
type textID string

// UnmarshalJSON implements json.Unmarshaler: a string or a number.
func (id *textID) UnmarshalJSON(b []byte) error {
	s, err := jsonscalar.Text(b)
	*id = textID(s)
	return err
}
