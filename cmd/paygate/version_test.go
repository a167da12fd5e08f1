package main

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// paygate version answers from the binary's build information: the tests'
// binary is built in the workspace, so both it and the SDK are "(devel)"
// (the release check installs a release and sees its version).
func TestVersion_PrintsWhatTheBinaryWasBuiltFrom(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "version")
	assert.Zero(t, r.code, r.stderr)
	assert.Equal(t, "paygate (devel) (github.com/paygate/paygate-go (devel)) "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n", r.stdout)

	r = paygateCmd(t, nil, "", "version", "--json")
	assert.Zero(t, r.code, r.stderr)
	var got map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	assert.Equal(t, map[string]string{
		"path": "github.com/paygate/paygate-go/cmd/paygate", "version": "(devel)",
		"sdk": "(devel)", "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH,
	}, got)
}

func TestVersion_TakesNoArguments(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "version", "extra")
	assert.Equal(t, exitUsage, r.code)
}
