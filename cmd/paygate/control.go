package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// controlPlane calls a sandbox's control plane under {base}/sandbox/,
// authorised with the project's private key: base is sandboxBase, never
// where an answer points.
type controlPlane struct {
	base   string
	secret string
	http   *http.Client
}

// maxControlAnswer bounds an answer of the control plane.
const maxControlAnswer = 16 << 20

func (c *config) controlPlane() (*controlPlane, error) {
	base, err := c.sandboxBase()
	if err != nil {
		return nil, err
	}
	secret, err := c.privateKey()
	if err != nil {
		return nil, err
	}
	return &controlPlane{base: base, secret: secret, http: &http.Client{
		Timeout: 30 * time.Second,
		// The bearer key goes to the sandbox's address only. Go's client
		// would forward it on a redirect to the same host name (another
		// port, plain http), and the body of a POST with a 307.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// do sends method to /sandbox/path with form (POST) and decodes the JSON
// answer into out; the sandbox's error object becomes the error.
func (p *controlPlane) do(ctx context.Context, method, path string, form url.Values, out any) error {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(form.Encode())
	}
	return p.send(ctx, method, path, "application/x-www-form-urlencoded", body, out)
}

// send is do with the body given as it is, of the content type.
func (p *controlPlane) send(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, p.base+"/sandbox/"+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxControlAnswer))
	if err != nil {
		return err
	}
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return fmt.Errorf("%s /sandbox/%s: HTTP %d, a redirect to %q, not followed: the private key goes to the sandbox's address only (is this a sandbox?)",
			method, path, res.StatusCode, redirectHost(res))
	}
	if res.StatusCode != http.StatusOK {
		return controlError(method, path, res.StatusCode, raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s /sandbox/%s: the answer is not what a sandbox sends: %w", method, path, err)
	}
	return nil
}

// redirectHost is the host a redirect points to, for the error.
func redirectHost(res *http.Response) string {
	if u, err := res.Location(); err == nil {
		return u.Host
	}
	return ""
}

// controlError describes a failed control-plane call by the sandbox's
// error object, or by its HTTP status when there is none.
func controlError(method, path string, status int, body []byte) error {
	var e struct {
		Error struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Code != "" {
		return &controlPlaneError{Call: method + " /sandbox/" + path, Code: e.Error.Code.String(), Message: e.Error.Message}
	}
	return fmt.Errorf("%s /sandbox/%s: HTTP %d (is this a sandbox?)", method, path, status)
}

// controlPlaneError is the sandbox's error object.
type controlPlaneError struct {
	Call, Code, Message string
}

func (e *controlPlaneError) Error() string { return e.Call + ": " + e.Code + " " + e.Message }

// codeEventNotApplies is the sandbox's code for an event that does not
// apply to the transaction in its state.
const codeEventNotApplies = "40900"

// controlPlaneAnnotation is the cobra annotation that names, one a line,
// the control plane's operations a command calls ("POST /sandbox/reset"):
// a test holds them to paygatetest.ControlPlaneHelp, so that every
// operation has a command.
const controlPlaneAnnotation = "paygate.controlplane"

// calls is the annotation of a command that calls the operations ops.
func calls(ops ...string) map[string]string {
	return map[string]string{controlPlaneAnnotation: strings.Join(ops, "\n")}
}
