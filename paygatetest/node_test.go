package paygatetest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// TestControlPlane_FromNode drives the control plane from JavaScript
// (Debian's nodejs, its built-in fetch and JSON.parse; .ci/install-node
// installs it): it lists the transactions and charges one back by the id
// it read, which holds only while every control-plane id is a JSON string,
// since JSON.parse reads a 19-digit number as the nearest float64. It also
// reads a /v1 answer, ids as numbers, the ways docs/testing.md shows.
func TestControlPlane_FromNode(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	status, v1 := s.do(http.MethodGet, "/v1/transactions/"+pay, s.signed(nil))
	require.Equal(t, http.StatusOK, status, "%s", v1)
	require.Contains(t, string(v1), `"id":`+pay, "the /v1 answer's id is a JSON number")
	out := runControlPlaneClient(t, s, "node", ".ci/install-node", "testdata/controlplane_client.mjs",
		"V1_ANSWER="+string(v1), "V1_ID="+pay)
	require.Contains(t, out, "control plane from Node: 12 transactions")
}
