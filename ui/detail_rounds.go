package ui

import (
	"strconv"
	"strings"

	"toolscope/model"
)

// detailRounds shows a multi-round call's rounds (MCP 2026-07-28): for
// each, the request (with what the client answered to the round before),
// the server's time, and what its answer asked of the client; above them
// the call's time split between the server and the wait for the client.
func (m *detailModel) detailRounds(d *detailText, c *model.Call) {
	a := c.LastAttempt()
	if a == nil || len(a.Rounds) == 0 {
		return
	}
	st := d.st
	server, waiting := c.RoundTimes(m.now)
	d.section("ROUNDS", st.muted.on(strconv.Itoa(len(a.Rounds))+" · "+model.FormatDuration(server)+" in the server · "+
		model.FormatDuration(waiting)+" waiting for the client's input"))
	for i, r := range a.Rounds {
		parts := []string{"#" + strconv.Itoa(r.N)}
		if r.RequestID != "" {
			parts = append(parts, "id "+model.Sanitize(r.RequestID))
		}
		if !r.Started.IsZero() {
			parts = append(parts, clockMillis(r.Started))
		}
		if i > 0 && !a.Rounds[i-1].Ended.IsZero() && !r.Started.IsZero() {
			parts = append(parts, st.muted.on("after "+model.FormatDuration(r.Started.Sub(a.Rounds[i-1].Ended))+" waiting"))
		}
		switch {
		case !r.Ended.IsZero():
			parts = append(parts, "server "+model.FormatDuration(r.Ended.Sub(r.Started)))
		case c.Finished():
		default:
			parts = append(parts, st.run.on("the server is working"))
		}
		switch {
		case r.AskedInput && len(r.Asked) == 0:
			parts = append(parts, st.warn.on("input_required with nothing asked: the server is busy, retry later"))
		case r.AskedInput:
			parts = append(parts, st.warn.on("input_required"))
		case !r.Ended.IsZero():
			parts = append(parts, st.status(c.Status).on(string(c.Status)))
		}
		d.line("   " + strings.Join(parts, st.muted.on(" · ")))
		if len(r.Answers) > 0 {
			d.line("     " + st.label.on("the client answered"))
			d.jsonBlock(r.Answers, 7)
		}
		for _, ir := range r.Asked {
			m.askedLine(d, ir)
		}
	}
	if c.Status == model.StatusNeedsInput {
		d.line("   " + st.warn.on("waiting for round "+strconv.Itoa(len(a.Rounds)+1)+": the client sends the call again with its answers"))
	}
}

// askedLine is one thing a server asked: what, its message, its schema.
func (m *detailModel) askedLine(d *detailText, ir model.InputRequest) {
	st := d.st
	kind := model.Sanitize(ir.Method)
	switch ir.Method {
	case model.InputElicit:
		kind = "elicitation"
	case model.InputSample:
		kind = "sampling"
	case model.InputRoots:
		kind = "roots: the client's roots"
	}
	head := "     " + st.label.on("the server asked") + " " + st.accent.on(model.Sanitize(ir.ID)) + st.muted.on(" · ") + kind
	d.line(head)
	if ir.Message != "" {
		d.block(ir.Message, 7, 6)
	}
	if ir.URL != "" {
		d.line("       " + st.muted.on("open ") + model.Sanitize(ir.URL))
	}
	if len(ir.RequestedSchema) > 0 {
		d.line("       " + st.label.on("requested schema"))
		d.jsonBlock(ir.RequestedSchema, 7)
	}
}
