package paygatetest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestServer_ClientTalksToTheSandbox(t *testing.T) {
	s := newSandbox(t)
	id := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	client := s.srv.Client()
	assert.Equal(t, s.srv.ProjectKey, client.ProjectKey())
	assert.Equal(t, paygate.FormExtended, client.Form())
	pid, err := paygate.ParseID(id)
	require.NoError(t, err)
	st, err := client.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{ID: pid})
	require.NoError(t, err)
	assert.Equal(t, paygate.StatusCompleted, st.Status)
	assert.Equal(t, "10", st.Price.String())

	_, err = client.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{ID: pid + 100})
	require.ErrorIs(t, err, paygate.ErrTransactionNotFound)
}

func TestServer_ClientSpeaksTheProjectsForm(t *testing.T) {
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic), paygatetest.WithProject("pk", "sk"))
	assert.Equal(t, paygate.FormBasic, s.srv.Client().Form())
	assert.Equal(t, "pk", s.srv.Client().ProjectKey())
	assert.Equal(t, "sk", s.srv.PrivateKey)
}

func TestServer_ServersShareNothing(t *testing.T) {
	a, b := newSandbox(t), newSandbox(t)
	assert.Equal(t, "1", a.user("x"))
	assert.Equal(t, "1", b.user("y"), "ids are per server")
	assert.Equal(t, "1000000000000000001", idOf(a.charge(a.user("x"), paygatetest.CardApproved, nil)))
	assert.Equal(t, "1000000000000000001", idOf(b.charge(b.user("y"), paygatetest.CardApproved, nil)))
}

func TestServer_ProjectsAreIsolated(t *testing.T) {
	s := newSandbox(t)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret"), CardRemembering: true})
	id := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))

	v := url.Values{"project": {"other"}, "id": {id}}
	v.Set("signature", paygate.Sign(v, "other-secret"))
	s.rawFails(http.MethodGet, "/v1/transaction/status", v, paygate.CodeTransactionNotFound)

	v = url.Values{"project": {"other"}, "id": {id}}
	v.Set("signature", paygate.Sign(v, s.srv.PrivateKey))
	s.rawFails(http.MethodGet, "/v1/transaction/status", v, paygate.CodeSignatureInvalid)
}

func TestServer_CloseIsIdempotent(t *testing.T) {
	srv := paygatetest.NewServer()
	srv.Close()
	srv.Close()
}

func TestListen_ServesOnTheGivenAddress(t *testing.T) {
	srv, err := paygatetest.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, srv.URL)

	_, err = paygatetest.Listen("256.0.0.1:0")
	require.Error(t, err)
}

func TestServer_FormattingNeverShowsThePrivateKey(t *testing.T) {
	s := newSandbox(t, paygatetest.WithProject("pk", "very-secret"))
	p := paygatetest.Project{Key: "pk", Secret: paygatetest.NewSecret("very-secret")}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, s.srv), "very-secret", verb)
		assert.NotContains(t, fmt.Sprintf(verb, p), "very-secret", verb)
		assert.NotContains(t, fmt.Sprintf(verb, &p), "very-secret", verb)
	}
	assert.Contains(t, fmt.Sprint(p), `Key:"pk"`)
}
