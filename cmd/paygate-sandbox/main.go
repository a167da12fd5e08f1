// Command paygate-sandbox serves the paygate sandbox (package paygatetest)
// as a standalone gateway, for merchants whose tests are not written in Go.
//
//	paygate-sandbox -addr 127.0.0.1:8080 -project KEY [-secret KEY | -secret-file PATH]
//	    [-callback-url URL] [-form extended|basic] [-public-url URL]
//
// It serves the API under /v1/, the 3-D Secure and confirm pages, and the
// control plane and dashboard under /sandbox/ (authorised with
// "Authorization: Bearer <private key>"; see the README). The project's
// keys come from -project and -secret, else from the environment variables
// PAYGATE_PROJECT and PAYGATE_SECRET (a command line is visible to every
// user of the machine; the environment is not). Without a private key it
// makes a random one and writes it to a new file readable by its owner
// only (-secret-file, by default in the temporary directory), removed at
// shutdown: it never serves with a published key, and never prints a key.
// It prints the project's public key, its form and where the private key
// came from to standard error, and the line "listening on http://ADDR" to
// standard output once it accepts connections, and shuts down gracefully
// on SIGINT or SIGTERM. -public-url is the address browsers reach it at,
// written into acs.url, for a sandbox listening on 0.0.0.0 or behind a
// proxy. -h prints the usage and exits 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // the usage was printed; asking for it is no failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "paygate-sandbox:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done; getenv reads the environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("paygate-sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	project := fs.String("project", "", "the project's public key (default $PAYGATE_PROJECT, else "+paygatetest.DefaultProjectKey+")")
	secret := fs.String("secret", "", "the project's private key (default $PAYGATE_SECRET, else one made at random: see -secret-file)")
	secretFile := fs.String("secret-file", "", "new file (mode 0600) to write a random private key to, when none is given (default: one in the temporary directory)")
	callbackURL := fs.String("callback-url", "", "URL that receives the signed callbacks")
	formName := fs.String("form", "extended", "form of the interface: extended or basic")
	publicURL := fs.String("public-url", "", "address browsers reach the sandbox at, written into acs.url (default: the listening address)")
	if err := fs.Parse(args); err != nil {
		return err
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
	key, err := privateKey(*secret, *secretFile, getenv)
	if err != nil {
		return err
	}
	defer key.discard()
	srv, err := paygatetest.Listen(*addr,
		paygatetest.WithProject(projectKey, key.value),
		paygatetest.WithCallbackURL(*callbackURL),
		paygatetest.WithForm(form),
		paygatetest.WithPublicURL(*publicURL),
	)
	if err != nil {
		return err
	}
	defer srv.Close()
	// The private key is never printed: developers do pass real-looking
	// keys, and CI logs are read by many.
	fmt.Fprintf(stderr, "project %s, %s form (private key %s)\n", projectKey, form, key.origin)
	if key.value == paygatetest.DefaultPrivateKey {
		fmt.Fprintln(stderr, "warning: the private key is the published "+paygatetest.DefaultPrivateKey+": anyone who reaches this sandbox can drive it")
	}
	fmt.Fprintf(stderr, "control plane and dashboard at %s/sandbox/ (Authorization: Bearer <private key>)\n", srv.URL)
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
