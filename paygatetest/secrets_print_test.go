package paygatetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectAndServer_NeverPrintThePrivateKey(t *testing.T) {
	const secret = "sk-never-printed-7f3a"
	srv := NewServer(WithProject("pk-printed", secret))
	defer srv.Close()
	p := Project{Key: "pk-printed", Secret: secret, CallbackURL: "https://shop.example/cb"}
	copyOfP := p

	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, nil))
	logger.Info("state", "project", p, "server", srv)
	logger.Info("text", "project", copyOfP)
	slog.New(slog.NewTextHandler(&out, nil)).Info("state", "project", p, "server", srv)
	for _, v := range []any{p, &p, srv} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out.Write(b)
		fmt.Fprintf(&out, "%v %+v %#v %s", v, v, v, v)
	}
	fmt.Fprintf(&out, "%+v", copyOfP)

	assert.NotContains(t, out.String(), secret)
	assert.Contains(t, out.String(), "pk-printed", "the public key is still shown")
	assert.Contains(t, out.String(), "https://shop.example/cb")
}
