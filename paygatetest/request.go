package paygatetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Bounds of what a request may carry, checked before any value is parsed
// or the server's lock is taken. No parameter of the API comes near them.
const (
	maxParams      = 256     // parameters per request, nested leaves counted
	maxParamLength = 4 << 10 // bytes of one value
	maxKeyLength   = 256     // bytes of one name, brackets included
	maxJSONDepth   = 8       // nesting of a JSON body's objects and arrays
	maxHeaderBytes = 1 << 20 // request line and headers: a huge query string is answered 40000, not 431
)

// readParams reads the parameters of an API request: the query string and,
// for a POST, the body as a form or as a JSON object (see flattenJSON).
func readParams(w http.ResponseWriter, r *http.Request) (url.Values, *apiError) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	var params url.Values
	if r.Method != http.MethodGet && r.Method != http.MethodHead && isJSON(r.Header.Get("Content-Type")) {
		query, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, newError(codeMalformedRequest, "the query string cannot be parsed")
		}
		if params, err = flattenJSON(r.Body); err != nil {
			return nil, newError(codeMalformedRequest, err.Error())
		}
		for k, vs := range query {
			params[k] = append(params[k], vs...)
		}
	} else {
		if err := r.ParseForm(); err != nil {
			return nil, newError(codeMalformedRequest, "the form cannot be parsed")
		}
		params = r.Form
	}
	return params, checkBounds(params)
}

// checkBounds refuses a request with too many, too long or too long-named
// parameters: 40000 naming the first.
func checkBounds(params url.Values) *apiError {
	n := 0
	for k, vs := range params {
		n += len(vs)
		if len(k) > maxKeyLength {
			return newError(codeMalformedRequest, fmt.Sprintf("a parameter name is longer than %d bytes", maxKeyLength))
		}
		for _, v := range vs {
			if len(v) > maxParamLength {
				return newError(codeMalformedRequest, fmt.Sprintf("%s is longer than %d bytes", k, maxParamLength))
			}
		}
	}
	if n > maxParams {
		return newError(codeMalformedRequest, fmt.Sprintf("more than %d parameters", maxParams))
	}
	return nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// flattenJSON reads a JSON object body as the form fields a PHP client
// would send for it: nested objects and arrays become bracket keys
// (card[number], items[0]), numbers keep their literal text (a 19-digit id
// never passes through float64), true is "1", false and null are "". An
// empty body has no fields.
func flattenJSON(body io.Reader) (url.Values, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	out := url.Values{}
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		return out, nil
	case err != nil:
		return nil, errors.New("the JSON body cannot be read")
	case tok != json.Delim('{'):
		return nil, errors.New("the JSON body is not an object")
	}
	f := flattener{dec: dec, out: out}
	if err := f.object("", 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("the JSON body has data after the object")
	}
	return out, nil
}

type flattener struct {
	dec   *json.Decoder
	out   url.Values
	count int
}

// object reads the members of an object whose '{' was read, under prefix.
func (f *flattener) object(prefix string, depth int) error {
	for f.dec.More() {
		tok, err := f.dec.Token()
		if err != nil {
			return errors.New("the JSON body cannot be read")
		}
		key, _ := tok.(string)
		if prefix != "" {
			key = prefix + "[" + key + "]"
		}
		if err := f.value(key, depth); err != nil {
			return err
		}
	}
	_, err := f.dec.Token() // '}'
	return err
}

// array reads the elements of an array whose '[' was read, under prefix.
func (f *flattener) array(prefix string, depth int) error {
	for i := 0; f.dec.More(); i++ {
		if err := f.value(prefix+"["+strconv.Itoa(i)+"]", depth); err != nil {
			return err
		}
	}
	_, err := f.dec.Token() // ']'
	return err
}

func (f *flattener) value(key string, depth int) error {
	tok, err := f.dec.Token()
	if err != nil {
		return errors.New("the JSON body cannot be read")
	}
	if d, ok := tok.(json.Delim); ok {
		if depth >= maxJSONDepth {
			return fmt.Errorf("the JSON body is nested deeper than %d levels", maxJSONDepth)
		}
		if d == '{' {
			return f.object(key, depth+1)
		}
		return f.array(key, depth+1)
	}
	if f.count++; f.count > maxParams {
		return fmt.Errorf("more than %d parameters", maxParams)
	}
	var s string
	switch v := tok.(type) {
	case string:
		s = v
	case json.Number:
		s = string(v)
	case bool:
		if v {
			s = "1"
		}
	}
	f.out.Add(key, s)
	return nil
}
