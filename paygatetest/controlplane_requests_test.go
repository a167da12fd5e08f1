package paygatetest_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// control sends v (a form) to a control-plane path with the private key
// as bearer token and decodes the JSON object it answers.
func (s *sandbox) control(httpMethod, path string, v url.Values) (int, map[string]any) {
	s.t.Helper()
	status, body := s.controlRaw(httpMethod, path, "application/x-www-form-urlencoded", v.Encode(), s.srv.PrivateKey)
	return status, decode(s.t, body)
}

// controlRaw sends body with content type ct and bearer key ("" for no
// Authorization header) and returns the status and body.
func (s *sandbox) controlRaw(httpMethod, path, ct, body, key string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(httpMethod, s.srv.URL+path, strings.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", ct)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return s.exchange(req)
}

// controlFails sends v to a control-plane path as control does and
// requires the error object with code.
func (s *sandbox) controlFails(httpMethod, path string, v url.Values, code paygate.ErrorCode) {
	s.t.Helper()
	status, out := s.control(httpMethod, path, v)
	requireError(s.t, status, out, code)
}

func itoa(n int) string { return strconv.Itoa(n) }
