package sandboxcmd

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

// The image (Containerfile), the compose file of docs/testing.md and the
// sandbox agree: the port, the health check, the flags and the environment
// variables. .ci/image builds the image and runs it; these checks need
// neither podman nor a network.

// containerfile is what the tests read of the Containerfile: each
// instruction's arguments, continuation lines joined.
type containerfile map[string][]string

func readContainerfile(t *testing.T) containerfile {
	t.Helper()
	b, err := os.ReadFile("../../../Containerfile")
	require.NoError(t, err)
	out := containerfile{}
	joined := strings.ReplaceAll(string(b), "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, args, _ := strings.Cut(line, " ")
		out[strings.ToUpper(instr)] = append(out[strings.ToUpper(instr)], strings.TrimSpace(args))
	}
	return out
}

// exec is the JSON (exec) form of the instruction instr, which must be
// given once.
func (c containerfile) exec(t *testing.T, instr string) []string {
	t.Helper()
	require.Len(t, c[instr], 1, "one %s", instr)
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(c[instr][0]), &argv), "%s in the exec form: %s", instr, c[instr][0])
	return argv
}

// composeService is what the tests read of a service of the compose file.
type composeService struct {
	Image       string
	Command     []string
	Environment map[string]string
	Ports       []string
	Healthcheck struct{ Test []string }
	DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
}

// readCompose parses the compose file of docs/testing.md: its one YAML
// block with services.
func readCompose(t *testing.T) map[string]composeService {
	t.Helper()
	b, err := os.ReadFile("../../../docs/testing.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?ms)^```yaml\n(services:\n.*?)^```").FindAllSubmatch(b, -1)
	require.Len(t, blocks, 1, "docs/testing.md has one compose file")
	var file struct{ Services map[string]composeService }
	dec := yaml.NewDecoder(strings.NewReader(string(blocks[0][1])))
	dec.KnownFields(false)
	require.NoError(t, dec.Decode(&file))
	return file.Services
}

// sandboxFlags are the flags the sandbox defines, read from its usage.
func sandboxFlags(t *testing.T) []string {
	t.Helper()
	var usage strings.Builder
	_ = Run(context.Background(), "paygate-sandbox", []string{"-h"}, envOf(nil), io.Discard, &usage)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(usage.String(), -1) {
		names = append(names, "-"+m[1])
	}
	require.Contains(t, names, "-addr")
	return names
}

// sandboxEnv is the environment variables a starting sandbox reads.
func sandboxEnv(t *testing.T) []string {
	t.Helper()
	var mu sync.Mutex
	var read []string
	getenv := func(name string) string {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(read, name) {
			read = append(read, name)
		}
		return map[string]string{"PAYGATE_SECRET": "sk"}[name] // no random key file
	}
	var stdout cmdtest.Buffer
	stop := cmdtest.Start(t, func(ctx context.Context) error {
		return Run(ctx, "paygate-sandbox", []string{"-addr", "127.0.0.1:0"}, getenv, &stdout, io.Discard)
	})
	cmdtest.URL(t, &stdout)
	stop()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(read)
	return read
}

// assertFlags asserts every flag among args is one the sandbox defines.
func assertFlags(t *testing.T, flags, args []string, where string) {
	t.Helper()
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			assert.Contains(t, flags, a, "%s: a flag the sandbox defines", where)
		}
	}
}

// flagValue is the value of the flag name in args ("" when absent).
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func TestContainerfile_ServesTheExposedPortAsAnUnprivilegedUser(t *testing.T) {
	c := readContainerfile(t)
	flags := sandboxFlags(t)
	assert.Equal(t, []string{"scratch"}, c["FROM"], "nothing but the static binary")
	require.Len(t, c["USER"], 1)
	assert.Regexp(t, `^[1-9][0-9]*:[0-9]+$`, c["USER"][0], "a numeric uid:gid, not root: a runtime checking runAsNonRoot needs numbers")
	require.Len(t, c["EXPOSE"], 1)
	port := c["EXPOSE"][0]

	entrypoint := c.exec(t, "ENTRYPOINT")
	require.Equal(t, "/paygate-sandbox", entrypoint[0])
	assertFlags(t, flags, entrypoint[1:], "ENTRYPOINT")
	assert.Equal(t, "0.0.0.0:"+port, flagValue(entrypoint, "-addr"), "every interface of the container, on the exposed port")
	cmd := c.exec(t, "CMD")
	assertFlags(t, flags, cmd, "CMD")
	assert.Equal(t, "http://localhost:"+port, flagValue(cmd, "-public-url"))

	// HEALTHCHECK [options] CMD [...]: the binary asks the health path.
	require.Len(t, c["HEALTHCHECK"], 1)
	_, health, ok := strings.Cut(c["HEALTHCHECK"][0], " CMD ")
	require.True(t, ok, "HEALTHCHECK ... CMD [...]: %s", c["HEALTHCHECK"][0])
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(health), &argv))
	assert.Equal(t, []string{"/paygate-sandbox", "-healthcheck", "-addr", "127.0.0.1:" + port}, argv)
	assertFlags(t, flags, argv[1:], "HEALTHCHECK")
}

func TestCompose_AgreesWithTheImageAndTheSandbox(t *testing.T) {
	c := readContainerfile(t)
	port := c["EXPOSE"][0]
	services := readCompose(t)
	sandbox, ok := services["sandbox"]
	require.True(t, ok, "a service named sandbox")

	assert.Regexp(t, `/paygate-sandbox:v\d+\.\d+\.\d+$`, sandbox.Image, "the release's image, at a version")
	require.Len(t, sandbox.Ports, 1)
	assert.Regexp(t, `:`+port+`$`, sandbox.Ports[0], "the image's port published")
	assertFlags(t, sandboxFlags(t), sandbox.Command, "the sandbox's command")
	assert.Equal(t, "http://localhost:"+strings.Split(sandbox.Ports[0], ":")[1], flagValue(sandbox.Command, "-public-url"),
		"the ACS page at the port published on the host")

	var health []string
	_, healthJSON, _ := strings.Cut(c["HEALTHCHECK"][0], " CMD ")
	require.NoError(t, json.Unmarshal([]byte(healthJSON), &health))
	assert.Equal(t, append([]string{"CMD"}, health...), sandbox.Healthcheck.Test, "the image's health check")

	var names []string
	for name := range sandbox.Environment {
		names = append(names, name)
	}
	slices.Sort(names)
	assert.Equal(t, sandboxEnv(t), names, "the compose file sets the variables the sandbox reads, and no other")

	// The callbacks go to the receiver, on the port it listens on.
	callback, err := url.Parse(flagValue(sandbox.Command, "-callback-url"))
	require.NoError(t, err)
	webhook, ok := services[callback.Hostname()]
	require.True(t, ok, "the callback URL's host %q is a service", callback.Hostname())
	assert.Contains(t, strings.Join(webhook.Command, " "), "github.com/paygate/paygate-go/examples/webhook@")
	assert.Equal(t, "0.0.0.0:"+callback.Port(), flagValue(webhook.Command, "-addr"))
	source, err := os.ReadFile("../../../examples/webhook/main.go")
	require.NoError(t, err)
	for name := range webhook.Environment {
		assert.Contains(t, string(source), `"`+name+`"`, "examples/webhook reads %s", name)
	}

	// Every other service reaches the sandbox by its name and port, with
	// its keys, once it is healthy.
	for name, s := range services {
		if name == "sandbox" {
			continue
		}
		assert.Equal(t, "http://sandbox:"+port, s.Environment["PAYGATE_BASE_URL"], "%s reaches the sandbox", name)
		assert.Equal(t, sandbox.Environment["PAYGATE_PROJECT"], s.Environment["PAYGATE_PROJECT"], "%s: the sandbox's project", name)
		assert.Equal(t, sandbox.Environment["PAYGATE_SECRET"], s.Environment["PAYGATE_SECRET"], "%s: the sandbox's key", name)
		assert.Equal(t, "service_healthy", s.DependsOn["sandbox"].Condition, "%s waits for the sandbox's health check", name)
	}
	doc, err := os.ReadFile("../../../docs/testing.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "`GET "+paygatetest.HealthPath+"`", "docs/testing.md names the health path")
}
