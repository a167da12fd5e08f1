package paygatetest

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/paygate/paygate-go"
)

// Bounds of what a request may carry. They are applied while the request is
// read, before any value is parsed or the server's lock is taken: a reader
// stops at the first byte past a bound, so that refusing a hostile request
// costs no more than reading its first few kilobytes. No parameter of the
// API comes near them.
const (
	maxParams      = 256     // parameters per request; in a JSON body every value, objects and arrays included
	maxParamLength = 4 << 10 // bytes of one value
	maxKeyLength   = 256     // bytes of one name, brackets included
	maxJSONDepth   = 8       // nesting of a JSON body's objects and arrays
	maxHeaderBytes = 1 << 20 // request line and headers: a huge query string is answered 40000, not 431
	readBuffer     = 4 << 10 // bytes a body is read ahead of its reader
)

// errBodyTooLong answers a body over maxRequestBody.
var errBodyTooLong = fmt.Errorf("the body is longer than %d bytes", maxRequestBody)

// readParams reads the parameters of an API request: the body, as a form or
// as a JSON object (see flattenJSON), then the query string, as
// http.Request.ParseForm orders them. On a refusal it returns what it read
// before the bound was passed, from which the answer learns the project.
func readParams(w http.ResponseWriter, r *http.Request) (url.Values, *apiError) {
	params := paramReader{out: url.Values{}}
	if err := params.body(w, r); err != nil {
		return params.out, newError(codeMalformedRequest, err.Error())
	}
	if err := params.form(strings.NewReader(r.URL.RawQuery)); err != nil {
		return params.out, newError(codeMalformedRequest, err.Error())
	}
	return params.out, nil
}

// paramReader gathers the parameters of one request and counts them against
// maxParams across the body and the query string.
type paramReader struct {
	out   url.Values
	count int
}

// body reads the body the way ParseForm would, and a JSON object body of
// any method but GET and HEAD. Other bodies are not read.
func (p *paramReader) body(w http.ResponseWriter, r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	readsJSON := r.Method != http.MethodGet && r.Method != http.MethodHead && isJSON(ct)
	if !readsJSON && r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
		return nil
	}
	if !readsJSON {
		mt, err := mediaType(cmp.Or(ct, "application/octet-stream"))
		if err != nil {
			return errors.New("the form cannot be parsed")
		}
		if mt != "application/x-www-form-urlencoded" {
			return nil
		}
	}
	if r.ContentLength > maxRequestBody {
		w.Header().Set("Connection", "close") // the rest of the body is not worth reading
		return errBodyTooLong
	}
	body := bufio.NewReaderSize(http.MaxBytesReader(w, r.Body, maxRequestBody), bufferFor(r.ContentLength))
	if readsJSON {
		return p.json(body)
	}
	return p.form(body)
}

// bufferFor is the read-ahead buffer for a body of length bytes (-1:
// unknown): a small body gets a buffer of its size, so that the buffer does
// not cost an ordinary request more than its body.
func bufferFor(length int64) int {
	if length >= 0 && length < readBuffer {
		return int(length) + 1 // one more to see the end
	}
	return readBuffer
}

func isJSON(contentType string) bool {
	mt, err := mediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// mediaType returns the media type of a Content-Type, in lower case. Its
// parameters are not parsed: none matters to the sandbox, and a megabyte of
// them would cost megabytes of memory.
func mediaType(contentType string) (string, error) {
	typ, _, _ := strings.Cut(contentType, ";")
	mt, _, err := mime.ParseMediaType(typ)
	return mt, err
}

// add keeps one parameter, counting it against maxParams.
func (p *paramReader) add(key, value string) error {
	if err := p.counted(); err != nil {
		return err
	}
	p.out[key] = append(p.out[key], value)
	return nil
}

// counted counts one more parameter, refusing the first past maxParams.
func (p *paramReader) counted() error {
	if p.count++; p.count > maxParams {
		return errTooManyParams
	}
	return nil
}

var (
	errTooManyParams = fmt.Errorf("more than %d parameters", maxParams)
	errKeyTooLong    = fmt.Errorf("a parameter name is longer than %d bytes", maxKeyLength)
)

// errValueTooLong names the parameter whose value passed maxParamLength.
func errValueTooLong(key string) error {
	return fmt.Errorf("%s is longer than %d bytes", key, maxParamLength)
}

// readFailure is what a failed read of the body is answered: its length
// when the body passed maxRequestBody, otherwise the fallback.
func readFailure(err error, fallback string) error {
	var tooLong *http.MaxBytesError
	if errors.As(err, &tooLong) {
		return errBodyTooLong
	}
	return errors.New(fallback)
}

func checkOrderID(id string) *apiError {
	if len([]rune(id)) > paygate.MaxOrderIDLength {
		return errMerchantData("order_id longer than 64 characters")
	}
	return nil
}

// atoiParam parses a non-negative integer parameter.
func atoiParam(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}
