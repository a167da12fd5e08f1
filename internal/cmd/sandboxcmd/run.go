// Package sandboxcmd is the sandbox's command line, shared by the
// paygate-sandbox binary and "paygate sandbox": its flags, where its keys
// come from, and what it prints.
package sandboxcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/buildversion"
	"github.com/paygate/paygate-go/paygatetest"
)

// gcPercent is the garbage collector's target unless GOGC says otherwise:
// what the sandbox keeps lives for weeks and what a request makes dies with
// it, so a heap allowed to grow to twice what is kept (the default, 100)
// would be mostly garbage. At 40 the process stays within about 1.4 times
// what it keeps, for a little more collection work.
const gcPercent = 40

// Main runs the command named name with the process's arguments and
// environment until SIGINT or SIGTERM, and exits 1 on an error.
func Main(name string, args []string) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, name, args, os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // the usage was printed; asking for it is no failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Run serves until ctx is done, as the command name with the arguments
// args (without the command's name); getenv reads the environment.
func Run(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	project := fs.String("project", "", "the project's public key (default $PAYGATE_PROJECT, else "+paygatetest.DefaultProjectKey+")")
	secret := fs.String("secret", "", "the project's private key (default $PAYGATE_SECRET, else one made at random: see -secret-file)")
	secretFile := fs.String("secret-file", "", "file that keeps the private key when none is given: read when it exists (mode 0600), else made with a random key (default: beside -state as FILE.key, else a temporary file removed at shutdown)")
	callbackURL := fs.String("callback-url", "", "URL that receives the signed callbacks")
	formName := fs.String("form", "extended", "form of the interface: extended or basic")
	publicURL := fs.String("public-url", "", "address browsers reach the sandbox at: written into acs.url, and the origin its pages' forms accept besides the listening address (default: the listening address)")
	stateFile := fs.String("state", "", "file that keeps the sandbox's state across restarts, read at start and written after changes (made when missing)")
	fixtures := fs.String("fixtures", "", "JSON scenario to load at start (see paygatetest's package doc); with -state, only into a new state file")
	retain := fs.Int("retain", paygatetest.DefaultRetention, "how many transactions to keep; beyond them the oldest in a final state are dropped with their callbacks")
	healthcheck := fs.Bool("healthcheck", false, "instead of serving, check that the sandbox on -addr answers GET "+paygatetest.HealthPath+" (a container's HEALTHCHECK has no shell or curl); exit 0 if it does, 1 if not")
	showVersion := fs.Bool("version", false, "print the version of the sandbox (the SDK's module) it was built from, the Go that built it and the platform, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *showVersion:
		// The sandbox is the SDK's code whichever binary serves it, so the
		// version is the SDK module's: "(devel)" when built from a working tree.
		info := buildversion.Read()
		_, err := fmt.Fprintf(stdout, "%s %s %s %s\n", name, info.SDK, info.Go, info.Platform)
		return err
	case *healthcheck:
		return checkHealth(ctx, *addr, stdout)
	}
	if *retain < 1 {
		return fmt.Errorf("-retain must be at least 1, not %d", *retain)
	}
	form, err := parseForm(*formName)
	if err != nil {
		return err
	}
	if *publicURL != "" {
		if u, err := url.Parse(*publicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("-public-url must be an absolute http(s) URL, not %q", *publicURL)
		}
	}
	projectKey, err := projectKey(fs, *project, getenv)
	if err != nil {
		return err
	}
	key, err := privateKey(*secret, *secretFile, *stateFile, getenv)
	if err != nil {
		return err
	}
	defer key.discard()
	seed, err := readFixtures(*fixtures, *stateFile)
	if err != nil {
		return err
	}
	srv, err := paygatetest.Listen(*addr,
		paygatetest.WithProject(projectKey, key.value),
		paygatetest.WithCallbackURL(*callbackURL),
		paygatetest.WithForm(form),
		paygatetest.WithPublicURL(*publicURL),
		paygatetest.WithKeySource(key.source),
		paygatetest.WithRetention(*retain),
		paygatetest.WithStateFile(*stateFile),
	)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := loadFixtures(srv, *fixtures, seed, stderr); err != nil {
		return err
	}
	// The private key is never printed: developers do pass real-looking
	// keys, and CI logs are read by many.
	fmt.Fprintf(stderr, "project %s, %s form (private key %s)\n", projectKey, form, key.origin)
	if key.value == paygatetest.DefaultPrivateKey {
		fmt.Fprintln(stderr, "warning: the private key is the published "+paygatetest.DefaultPrivateKey+": anyone who reaches this sandbox can drive it")
	}
	fmt.Fprintf(stderr, "control plane and dashboard at %s/sandbox/ (Authorization: Bearer <private key>)\n", srv.URL)
	fmt.Fprintf(stderr, "dashboard login link (single use, valid 5 minutes): %s\n", srv.LoginURL())
	// Without this line a newcomer learns that callbacks go nowhere only
	// from a handler that never hears of them.
	if *callbackURL != "" {
		fmt.Fprintf(stderr, "callbacks go to %s\n", *callbackURL)
	} else {
		fmt.Fprintln(stderr, "no callback URL: callbacks are recorded only (set one with -callback-url, POST /sandbox/callback-url or paygate callback-url URL)")
	}
	fmt.Fprintf(stdout, "listening on %s\n", srv.URL)
	<-ctx.Done()
	return nil
}

func parseForm(name string) (paygate.Form, error) {
	switch name {
	case "extended":
		return paygate.FormExtended, nil
	case "basic":
		return paygate.FormBasic, nil
	}
	return paygate.Form(0), fmt.Errorf("-form must be extended or basic, not %q", name)
}

// projectKey is -project when given, else $PAYGATE_PROJECT, else the
// default project key (a public key is no secret).
func projectKey(fs *flag.FlagSet, flagValue string, getenv func(string) string) (string, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "project" })
	switch {
	case given && flagValue == "":
		return "", errors.New("-project must not be empty")
	case given:
		return flagValue, nil
	case getenv("PAYGATE_PROJECT") != "":
		return getenv("PAYGATE_PROJECT"), nil
	}
	return paygatetest.DefaultProjectKey, nil
}
