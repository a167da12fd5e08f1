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

// ControlPlaneHelp names the events and the faults, which a client of the
// control plane in another language can learn nowhere else: exactly Events
// and Faults, in their order.
func TestControlPlaneHelp_ListsEveryEventAndFault(t *testing.T) {
	t.Parallel()
	help := strings.Join(strings.Fields(ControlPlaneHelp), " ")
	for _, c := range []struct {
		what, pattern string
		want          []string
	}{
		{"Events", `Applies an event: ([a-z_, ]+)\.`, eventNames()},
		{"Faults", `suffer the fault: ([a-z0-9, -]+)\.`, faultNames()},
	} {
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(help)
		if m == nil {
			t.Errorf("ControlPlaneHelp lists no %s (%s): has its layout changed?", c.what, c.pattern)
			continue
		}
		if got := strings.Split(m[1], ", "); !slices.Equal(got, c.want) {
			t.Errorf("ControlPlaneHelp lists %v, %s is %v", got, c.what, c.want)
		}
	}
}

func eventNames() []string {
	var out []string
	for _, e := range Events {
		out = append(out, string(e))
	}
	return out
}

func faultNames() []string {
	var out []string
	for _, f := range Faults {
		out = append(out, string(f))
	}
	return out
}
