package paygatetest

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ControlPlaneHelp is the control plane's table for people and for the
// paygate command, which has a command for each line: every operation the
// sandbox serves is a line of it, and every line an operation.
func TestControlPlaneHelp_NamesEveryOperation(t *testing.T) {
	served := []string{http.MethodPost + " transactions/{id}/{event}", http.MethodGet + " "} // the event route, the dashboard
	for path, op := range controlOps {
		served = append(served, op.method+" "+path)
	}
	for path, op := range controlOpsMore {
		served = append(served, op.method+" "+path)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  (GET|POST) +/sandbox/(\S*)`).FindAllStringSubmatch(ControlPlaneHelp, -1) {
		listed = append(listed, m[1]+" "+m[2])
	}
	for _, op := range served {
		if !slices.Contains(listed, op) {
			method, path, _ := strings.Cut(op, " ")
			t.Errorf("ControlPlaneHelp has no line for %s /sandbox/%s", method, path)
		}
	}
	for _, op := range listed {
		if !slices.Contains(served, op) {
			t.Errorf("ControlPlaneHelp lists %q, which the sandbox does not serve", op)
		}
	}
}
