package feed

import (
	"net/http"

	"toolscope/model"
)

// redirectError is a redirect the feed refused to follow (model.RedirectRule:
// the API key goes only to the same scheme, host and port).
type redirectError = model.RedirectError

// withRedirectRule is a copy of c that follows redirects by
// model.RedirectRule.
func withRedirectRule(c *http.Client, withKey bool) *http.Client {
	cc := *c
	cc.CheckRedirect = model.RedirectRule("feed", withKey)
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
func asRedirectError(err error) (*redirectError, bool) { return model.AsRedirectError(err) }
