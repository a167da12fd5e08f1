package paygatetest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

func TestServer_HealthPathAnswersWithoutAKey(t *testing.T) {
	srv := paygatetest.NewServer()
	defer srv.Close()
	for _, c := range []struct {
		method string
		status int
		body   string
	}{
		{http.MethodGet, http.StatusOK, "ok\n"},
		{http.MethodHead, http.StatusOK, ""},
		{http.MethodPost, http.StatusMethodNotAllowed, "method not allowed\n"},
	} {
		t.Run(c.method, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+paygatetest.HealthPath, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, c.status, resp.StatusCode)
			assert.Equal(t, c.body, string(body))
		})
	}
}
