package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With --json an error is a JSON object on standard error, standard output
// staying empty: {"error":{"message":...,"code":...}}, the code the
// gateway's or the sandbox's when they gave one, else the command's.
func TestJSON_ErrorsAreAJSONObjectOnStderr(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	env := sandboxEnv(base)
	for name, c := range map[string]struct {
		args []string
		exit int
		code any
	}{
		"gateway":       {[]string{"transactions", "get", "1"}, exitError, json.Number("40403")},
		"sandbox":       {[]string{"fault", "balance", "no-such-fault"}, exitError, json.Number("40000")},
		"usage":         {[]string{"trigger", "no-such-event"}, exitUsage, "usage"},
		"cobra's":       {[]string{"transactions", "get"}, exitUsage, "usage"},
		"not a sandbox": {[]string{"deliveries", "--base-url", "http://127.0.0.1:1"}, exitError, "error"},
	} {
		r := paygateCmd(t, env, "", append(c.args, "--json")...)
		assert.Equal(t, c.exit, r.code, "%s: %s", name, r.stderr)
		assert.Empty(t, r.stdout, name)
		var got struct {
			Error struct {
				Message string
				Code    any
			}
		}
		dec := json.NewDecoder(strings.NewReader(r.stderr))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&got), "%s: %s", name, r.stderr)
		assert.NotEmpty(t, got.Error.Message, name)
		assert.Equal(t, c.code, got.Error.Code, name)
		assert.False(t, dec.More(), "%s: one object only: %s", name, r.stderr)
	}
}
