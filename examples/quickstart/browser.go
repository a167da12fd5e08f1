package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// browser stands in for the payer's browser on the 3-D Secure pages: it
// posts a form, reads the first form of the page that comes back, and can
// submit that in turn. It is just enough for the sandbox's pages; a real
// bank's page needs a person.
type browser struct{ http *http.Client }

// page is an HTML page the browser received.
type page struct {
	url  *url.URL
	body string
}

// post submits fields to target as a form.
func (b *browser) post(ctx context.Context, target string, fields url.Values) (*page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(fields.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %s", target, resp.Status, strings.TrimSpace(string(body)))
	}
	return &page{url: resp.Request.URL, body: string(body)}, nil
}

var (
	formTag  = regexp.MustCompile(`(?is)<form\b[^>]*\baction="([^"]*)"`)
	inputTag = regexp.MustCompile(`(?is)<input\b[^>]*>`)
	attr     = regexp.MustCompile(`(?is)\b(name|value)="([^"]*)"`)
)

// form returns where the page's first form posts to and its fields.
func (p *page) form() (string, url.Values, error) {
	m := formTag.FindStringSubmatch(p.body)
	if m == nil {
		return "", nil, fmt.Errorf("no form on %s", p.url)
	}
	action, err := p.url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		return "", nil, err
	}
	fields := url.Values{}
	for _, input := range inputTag.FindAllString(p.body, -1) {
		var name, value string
		for _, a := range attr.FindAllStringSubmatch(input, -1) {
			if strings.EqualFold(a[1], "name") {
				name = html.UnescapeString(a[2])
			} else {
				value = html.UnescapeString(a[2])
			}
		}
		if name != "" {
			fields.Set(name, value)
		}
	}
	return action.String(), fields, nil
}
