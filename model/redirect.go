package model

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is as many redirects as net/http follows by default.
const maxRedirects = 10

// RedirectError is a redirect a client refused to follow: it would have
// carried a credential to another scheme, host or port, or from https to
// plain http (net/http keeps Authorization on a redirect to another port
// of the same host, and from https to http). Retrying cannot help.
type RedirectError struct {
	Client   string // who was redirected: "feed", "OpenTelemetry export"
	From, To string // display URLs (credentials redacted)
	Reason   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s %s: redirected to %s: not followed (%s)", e.Client, e.From, e.To, e.Reason)
}

// RedirectRule is the CheckRedirect of a client that sends a credential
// (withCredential) or may: a redirect is followed only to the same
// scheme, host and port as the first request when it sends one, and never
// from https to http. toolscope's feeds and its OTLP export both follow it.
func RedirectRule(client string, withCredential bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		from := via[0].URL
		refuse := func(reason string) error {
			return &RedirectError{Client: client, From: RedactURL(from), To: RedactURL(req.URL), Reason: reason}
		}
		if len(via) >= maxRedirects {
			return refuse(fmt.Sprintf("more than %d redirects", maxRedirects))
		}
		prev := via[len(via)-1].URL
		switch {
		case prev.Scheme == "https" && req.URL.Scheme != "https":
			return refuse("https to plain http")
		case withCredential && Origin(req.URL) != Origin(from):
			return refuse("credentials are sent only to the same scheme, host and port")
		}
		return nil
	}
}

// Origin is a URL's scheme, host and port, the port made explicit.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// AsRedirectError finds a refused redirect in a client error.
func AsRedirectError(err error) (*RedirectError, bool) {
	var re *RedirectError
	ok := errors.As(err, &re)
	return re, ok
}
