package callback

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
	"github.com/paygate/paygate-go/internal/signing"
)

// testSecret is the private key the tests and the fixtures of
// ../testdata/callbacks are signed with, the root package's too.
const testSecret = "sk_test_5b1e07d6"

// testCallbackID is paygatetest.CallbackID: the id of the callbacks
// newTestCallbackSigner builds.
const testCallbackID ID = callbackform.DefaultID

// newTestCallbackSigner is paygatetest.NewCallbackSigner, for this
// package's own tests, which cannot import paygatetest (it imports this
// package through the client): the same builder of callbacks.
func newTestCallbackSigner(privateKey string, f Form) *callbackform.Signer[Status] {
	return callbackform.NewSigner[Status]("paygatetest.CallbackSigner", privateKey, f == FormBasic)
}

// sign is paygate.Sign.
func sign(params url.Values, privateKey string) string {
	var sig [signing.Len]byte
	signing.New(privateKey).SumValues(&sig, params)
	return string(sig[:])
}

// fixture returns the bytes of ../testdata/<name>, the root's fixtures.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	require.NoError(t, err)
	return b
}

// canonicalString is the string the signer HMACs for values.
func canonicalString(values []string) string {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return strings.Join(sorted, "|")
}
