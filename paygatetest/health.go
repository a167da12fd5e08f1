package paygatetest

import (
	"io"
	"net/http"
)

// HealthPath is the sandbox's health check: a GET or HEAD there answers 200
// with the body "ok", without a key, once the sandbox serves requests. It
// is for a container's health check and for a CI job waiting for a sandbox
// to start; it says nothing about any project, so it asks for no key.
const HealthPath = "/healthz"

func serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}
