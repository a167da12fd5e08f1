package paygatetest_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// RequestParams reads a body as the sandbox reads an API request's, so a
// tool's canonical string is the one the sandbox checks.
func TestRequestParams_ReadsABodyAsTheSandboxDoes(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/v1/card/process?project=pk",
		strings.NewReader(`{"card":{"number":"4242424242424242"},"id":9007199254740993,"x":true,"y":null}`))
	r.Header.Set("Content-Type", "application/json")
	got, err := paygatetest.RequestParams(r)
	require.NoError(t, err)
	assert.Equal(t, url.Values{"card[number]": {"4242424242424242"}, "id": {"9007199254740993"}, "x": {"1"},
		"y": {""}, "project": {"pk"}}, got)

	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":`+strings.Repeat("[", 9)))
	r.Header.Set("Content-Type", "application/json")
	_, err = paygatetest.RequestParams(r)
	require.Error(t, err, "nested past the sandbox's bound")
}
