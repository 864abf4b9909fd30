package ui

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"toolscope/model"
)

// claimOrder puts the contract's claims first, in the contract's order.
var claimOrder = []string{"iss", "aud", "iat", "nbf", "exp", "jti", "tool", "protocol", "task_id",
	"tool_call_id", "workspace_id", "idempotency_key", "agent_id", "end_user_id", "metadata"}

func (m *detailModel) detailToken(d *detailText, c *model.Call) {
	st := d.st
	ctx := c.Context
	if ctx == nil && !tapped(c) {
		d.section("TOKEN", st.muted.on("none seen (a feed does not carry it; a tap shows it)"))
		return
	}
	if ctx == nil && len(c.SoatContext) > 0 {
		d.section("TOKEN", st.muted.on("none: SOAT carries its context in headers (see SOAT CONTEXT)"))
		return
	}
	if ctx == nil || !m.speaksAgentArea(c) {
		d.section("TOKEN", st.muted.on("none: plain MCP (no AgentArea context on this call or its source)"))
		return
	}
	d.section("TOKEN", m.verdictPaint(ctx.Verdict).on(verdictText(ctx)))
	switch ctx.Verdict {
	case model.VerdictRejected:
		ans := model.RequiredAnswer(ctx)
		if ctx.Reason != "" {
			ans += " · " + model.Sanitize(ctx.Reason)
		}
		d.kv("server must answer", st.err.on(ans))
	case model.VerdictValid:
		d.kv("server", st.ok.on(model.SaysValid))
	case model.VerdictUnverified:
		d.kv("server", st.warn.on(model.SaysUnverified))
	case model.VerdictAbsent:
		d.kv("server", st.warn.on(model.SaysAbsent))
	}
	cred := "not sent"
	if ctx.CredentialPresent {
		cred = "sent (value hidden)"
	}
	d.kv("static credential", cred)
	if len(ctx.Header) > 0 {
		keys := slices.Sorted(maps.Keys(ctx.Header))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = model.Sanitize(k) + "=" + valueLine(ctx.Header[k])
		}
		d.kv("header", strings.Join(parts, "  "))
	}
	if claims := ctx.ClaimMap(); len(claims) > 0 {
		d.line("   " + st.label.on("claims"))
		for _, k := range orderedClaims(claims) {
			d.line("     " + st.muted.on(fit(model.Sanitize(k), 16)) + " " + m.claimValue(k, claims[k]))
		}
	}
	if len(ctx.Steps) > 0 {
		d.line("   " + st.label.on("verification"))
		nameW := 0
		for _, s := range ctx.Steps {
			nameW = max(nameW, min(len(s.Name), 40))
		}
		for _, s := range ctx.Steps {
			mark := st.ok.on("✓")
			if !s.Passed {
				mark = st.err.on("✗")
			}
			line := "     " + mark + " " + fit(model.Sanitize(s.Name), nameW)
			if s.Detail != "" {
				line += " " + st.muted.on(model.Sanitize(s.Detail))
			}
			d.line(line)
		}
	}
	for _, w := range ctx.Warnings {
		d.line("   " + st.warn.on("⚠ "+model.Sanitize(w)))
	}
}

func (m *detailModel) verdictPaint(v string) paint {
	switch v {
	case model.VerdictValid:
		return m.st.ok
	case model.VerdictRejected:
		return m.st.err
	}
	return m.st.warn
}

// claimValue shows times (iat, nbf, exp) as UTC and relative to now.
func (m *detailModel) claimValue(k string, v any) string {
	if f, ok := v.(float64); ok && (k == "iat" || k == "exp" || k == "nbf") && f > 0 && f < math.MaxInt32*4 {
		sec, frac := math.Modf(f)
		t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
		return t.Format("2006-01-02 15:04:05") + " UTC " + m.st.muted.on("("+relative(t, m.now)+", "+model.FormatNumber(f)+")")
	}
	return valueLine(v)
}

func orderedClaims(claims map[string]any) []string {
	out := make([]string, 0, len(claims))
	seen := make(map[string]bool, len(claimOrder))
	for _, k := range claimOrder {
		seen[k] = true
		if _, ok := claims[k]; ok {
			out = append(out, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(claims)) {
		if !seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// detailMeta shows every _meta key against its claim, and context claims
// _meta lacks (contract step 3; the comparison is model's).
func (m *detailModel) detailMeta(d *detailText, c *model.Call) {
	rows := c.MetaAgainstClaims()
	if rows == nil {
		return
	}
	st := d.st
	note := ""
	if len(c.Context.ClaimMap()) == 0 {
		note = st.muted.on("no claims to compare with")
	}
	d.section("_META vs CLAIMS", note)
	for _, r := range rows {
		verdict := st.muted.on("not signed")
		switch r.Verdict {
		case model.MetaNoClaim:
			verdict = st.err.on("✗ no claim " + r.Claim)
		case model.MetaEqual:
			verdict = st.ok.on("= claim")
		case model.MetaDiffers:
			verdict = st.err.on("✗ claim is " + cut(valueLine(r.Signed), 40))
		case model.MetaNoKey:
			d.line("   " + st.label.on(fit(r.Key, 28)) + " " + fit(st.muted.on("(absent)"), 36) + " " +
				st.err.on("✗ claim "+r.Claim+" has no _meta key"))
			continue
		}
		d.line("   " + st.label.on(fit(model.Sanitize(r.Key), 28)) + " " + fit(cut(valueLine(r.Meta), 36), 36) + " " + verdict)
	}
}

// identityKeys are SOAT's auto-populated keys: set by SOAT, not the caller.
func isIdentityKey(k string) bool {
	switch strings.ToLower(strings.ReplaceAll(k, "_", "")) {
	case "sessionid", "actorid", "actorexternalid":
		return true
	}
	return false
}

func (m *detailModel) detailSoat(d *detailText, c *model.Call) {
	if len(c.SoatContext) == 0 {
		return
	}
	st := d.st
	d.section("SOAT CONTEXT", st.muted.on(soatKeys(len(c.SoatContext))))
	keys := slices.Sorted(maps.Keys(c.SoatContext))
	kw, vw := 0, 0
	for _, k := range keys {
		kw = max(kw, min(len(k), 32))
		vw = max(vw, min(len(c.SoatContext[k]), 40))
	}
	for _, k := range keys {
		line := "   " + st.label.on(fit(model.Sanitize(k), kw)) + "  "
		v := model.Sanitize(c.SoatContext[k])
		if isIdentityKey(k) {
			line += fit(v, vw) + "  " + st.accent.on("identity")
		} else {
			line += v
		}
		d.line(line)
	}
}

func (m *detailModel) detailHeaders(d *detailText, c *model.Call) {
	headers := c.Headers()
	if len(headers) == 0 {
		return
	}
	d.section("HEADERS", d.st.muted.on("credentials redacted"))
	keys := slices.Sorted(maps.Keys(headers))
	kw := 0
	for _, k := range keys {
		kw = max(kw, min(len(k), 40))
	}
	for _, k := range keys {
		d.line("   " + d.st.label.on(fit(model.Sanitize(k), kw)) + "  " + model.Sanitize(headers[k]))
	}
}

// tapped says whether a tap carried one of the call's attempts: there a
// call without context is one that came without it, not one a feed hid.
func tapped(c *model.Call) bool {
	for i := range c.Attempts {
		if c.Attempts[i].SourceName != "" {
			return true
		}
	}
	return false
}

func soatKeys(n int) string {
	if n == 1 {
		return "1 key"
	}
	return strconv.Itoa(n) + " keys"
}
