// Command paygate-sandbox serves the paygate sandbox (package paygatetest)
// as a standalone gateway, for merchants whose tests are not written in Go.
//
//	paygate-sandbox -addr 127.0.0.1:8080 -project KEY [-secret KEY | -secret-file PATH]
//	    [-callback-url URL] [-form extended|basic] [-public-url URL] [-retain N]
//	    [-state FILE] [-fixtures FILE]
//
// It serves the API under /v1/, the 3-D Secure and confirm pages, and the
// control plane and dashboard under /sandbox/ (authorised with
// "Authorization: Bearer <private key>"; see package paygatetest). The project's
// keys come from -project and -secret, else from the environment variables
// PAYGATE_PROJECT and PAYGATE_SECRET (a command line is visible to every
// user of the machine; the environment is not). Without a private key it
// reads the key file (-secret-file, by default FILE.key beside -state) or,
// when there is none, makes a random key and writes it to a new file
// readable by its owner only, read again at the next start (without
// -secret-file or -state, a temporary file removed at shutdown): it never
// serves with a published key, and never prints a key.
// It prints the project's public key, its form and where the private key
// came from to standard error, and the line "listening on http://ADDR" to
// standard output once it accepts connections, and shuts down gracefully
// on SIGINT or SIGTERM. -public-url is the address browsers reach it at,
// written into acs.url and accepted as the origin of the confirm page's
// and the dashboard's forms besides the listening address, for a sandbox
// listening on 0.0.0.0 or behind a proxy. -retain is how many transactions it keeps (default 100,000):
// beyond them the oldest in a final state are dropped with their
// callbacks, so that a sandbox serving CI for weeks holds bounded memory.
// -state keeps the sandbox's state in a file across restarts and crashes
// (a corrupt or newer-format file stops it, naming the file); -fixtures
// loads a scenario (paygatetest's package doc, "Fixtures") into a new
// state. At start it prints a one-time dashboard login link to standard
// error.
//
// GET /healthz answers 200 without a key once it serves (for a container's
// health check or a CI job waiting for it). -healthcheck, with the -addr it
// serves on, asks that path instead of serving and exits 0 when it answers
// 200, 1 otherwise: the health check of an image without a shell or curl.
// -version prints the version of the SDK module it was built from (its
// build information: "(devel)" when built from a working tree, the
// release's for a release binary), the Go release and the platform; -h
// prints the usage; both exit 0.
package main

import (
	"os"

	"github.com/paygate/paygate-go/internal/cmd/sandboxcmd"
)

func main() { sandboxcmd.Main("paygate-sandbox", os.Args[1:]) }
