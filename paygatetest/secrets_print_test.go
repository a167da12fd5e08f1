package paygatetest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectAndServer_NeverPrintThePrivateKey(t *testing.T) {
	const secret = "sk-never-printed-7f3a"
	srv := NewServer(WithProject("pk-printed", secret))
	defer srv.Close()
	p := Project{Key: "pk-printed", Secret: NewSecret(secret), CallbackURL: "https://shop.example/cb"}
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

// merchantFixture is a merchant's own test struct holding a project in
// unexported fields: fmt and slog walk those by reflection without calling
// Project's methods.
type merchantFixture struct {
	Name     string
	project  Project
	projects []Project
	byName   map[string]*Project
}

// A project held in an unexported field of a merchant's struct never
// prints its private key, whatever prints it: the key is kept where
// reflection cannot print it.
func TestProject_UnexportedFieldOfAMerchantStructNeverPrintsTheKey(t *testing.T) {
	const secret = "sk-unexported-9c41e2"
	p := Project{Key: "pk-fixture", Secret: NewSecret(secret), CallbackURL: "https://shop.example/cb"}
	fixture := merchantFixture{Name: "fixture-1", project: p, projects: []Project{p}, byName: map[string]*Project{"a": &p}}
	for _, v := range []any{fixture, &fixture} {
		var out bytes.Buffer
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
		slog.New(slog.NewTextHandler(&out, nil)).Info("fixture", "f", v)
		slog.New(slog.NewJSONHandler(&out, nil)).Info("fixture", "f", v)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out.Write(b)
		for _, form := range []string{secret, hex.EncodeToString([]byte(secret)), strings.Trim(fmt.Sprint([]byte(secret)[:6]), "[]")} {
			assert.NotContains(t, out.String(), form)
		}
		assert.Contains(t, out.String(), "fixture-1", "the rest of the struct still prints")
	}
	assert.Equal(t, secret, p.Secret.Reveal(), "the sandbox still has the key")
}

func TestSecret_RevealsOnlyOnAsking(t *testing.T) {
	s := NewSecret("sk-asked-for")
	assert.Equal(t, "sk-asked-for", s.Reveal())
	assert.False(t, s.IsZero())
	assert.Equal(t, "[redacted]", s.String())
	assert.Equal(t, `paygatetest.Secret("[redacted]")`, fmt.Sprintf("%#v", s))
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, `"[redacted]"`, string(b))

	var none Secret
	assert.Equal(t, none, NewSecret(""), `"" is no key`)
	assert.True(t, none.IsZero())
	assert.Empty(t, none.Reveal())
	assert.Empty(t, none.String(), "a missing key prints empty, told apart from a redacted one")
}
