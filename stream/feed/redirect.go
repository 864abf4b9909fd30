package feed

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

// redirectError is a redirect the feed refused to follow: it would have
// carried the API key to another scheme, host or port, or from https to
// plain http (net/http keeps Authorization on a redirect to another port of
// the same host, and from https to http). Retrying cannot help.
type redirectError struct {
	From, To string // display URLs (credentials redacted)
	Reason   string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("feed %s: redirected to %s: not followed (%s)", e.From, e.To, e.Reason)
}

// checkRedirect is the feed clients' CheckRedirect: a redirect is followed
// only to the same scheme, host and port as the first request when an API
// key is sent, and never from https to http.
func checkRedirect(withKey bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		from := via[0].URL
		if len(via) >= maxRedirects {
			return &redirectError{From: displayURL(from), To: displayURL(req.URL), Reason: fmt.Sprintf("more than %d redirects", maxRedirects)}
		}
		prev := via[len(via)-1].URL
		switch {
		case prev.Scheme == "https" && req.URL.Scheme != "https":
			return &redirectError{From: displayURL(from), To: displayURL(req.URL), Reason: "https to plain http"}
		case withKey && origin(req.URL) != origin(from):
			return &redirectError{From: displayURL(from), To: displayURL(req.URL),
				Reason: "the API key is sent only to the same scheme, host and port"}
		}
		return nil
	}
}

// origin is a URL's scheme, host and port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// withRedirectRule is a copy of c that follows redirects by checkRedirect.
func withRedirectRule(c *http.Client, withKey bool) *http.Client {
	cc := *c
	cc.CheckRedirect = checkRedirect(withKey)
	return &cc
}

// redirectNote says where a followed redirect led ("" when none was).
func redirectNote(resp *http.Response, asked string) string {
	if resp.Request == nil || resp.Request.URL == nil || resp.Request.URL.String() == asked {
		return ""
	}
	return "redirected to " + displayURL(resp.Request.URL)
}

// asRedirectError finds a refused redirect in a client error.
func asRedirectError(err error) (*redirectError, bool) {
	var re *redirectError
	ok := errors.As(err, &re)
	return re, ok
}
