package decoder

import (
	"strconv"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// The rules of multi-round calls (MCP 2026-07-28) seen across a round's
// request and answer; SummarizeResult judges an input_required answer by
// itself.

// UndeclaredInputs judges what an input_required answer asks against the
// capabilities the client declared (its request's _meta, else its
// session's initialize): a server may ask only for what the client can
// do, else it answers -32021 (MissingRequiredClientCapability). Without
// declared capabilities nothing is judged.
func UndeclaredInputs(asked []model.InputRequest, caps *jsonrpc.ClientCapabilities) []model.Warning {
	if caps == nil {
		return nil
	}
	var missing []string
	for _, ir := range asked {
		var capability string
		switch {
		case ir.Method == model.InputElicit && !caps.Elicitation:
			capability = "elicitation"
		case ir.Method == model.InputSample && !caps.Sampling:
			capability = "sampling"
		case ir.Method == model.InputRoots && !caps.Roots:
			capability = "roots"
		default:
			continue
		}
		missing = append(missing, quotedKey(ir.ID)+" needs "+capability)
	}
	if len(missing) == 0 {
		return nil
	}
	return []model.Warning{{Code: model.WarnInputCapabilityUndeclared, Message: "the server asks for input the client's capabilities do not declare (" +
		keyList(missing) + "): the client cannot answer it; the server should answer -32021 MissingRequiredClientCapability"}}
}

// RoundAnswers judges a later round's inputResponses keys against the
// inputRequests keys of the round it continues: each request answered,
// each answer to a request.
func RoundAnswers(asked, answered []string) []model.Warning {
	inAsked := make(map[string]bool, len(asked))
	for _, id := range asked {
		inAsked[id] = true
	}
	inAnswered := make(map[string]bool, len(answered))
	var extra []string
	for _, id := range answered {
		inAnswered[id] = true
		if !inAsked[id] {
			extra = append(extra, quotedKey(id))
		}
	}
	var unanswered []string
	for _, id := range asked {
		if !inAnswered[id] {
			unanswered = append(unanswered, quotedKey(id))
		}
	}
	var parts []string
	if len(unanswered) > 0 {
		parts = append(parts, "asked and not answered: "+keyList(unanswered))
	}
	if len(extra) > 0 {
		parts = append(parts, "answers to no request: "+keyList(extra))
	}
	if len(parts) == 0 {
		return nil
	}
	return []model.Warning{{Code: model.WarnInputResponsesMismatch, Message: "inputResponses do not match the inputRequests the server sent (" +
		strings.Join(parts, "; ") + "); their keys must be the requests' keys"}}
}

// StateNotReturned is the warning on a later round that does not carry
// back the requestState the server gave the round it answers.
func StateNotReturned(sent string) model.Warning {
	what := "carries none"
	if sent != "" {
		what = "carries another"
	}
	return model.Warning{Code: model.WarnRequestStateNotReturned, Message: "the client did not carry back the requestState the server gave (it " + what +
		"): the server cannot tell this round from a new call; the client must send the state back unchanged"}
}

// maxKeysSaid bounds the keys a warning names.
const maxKeysSaid = 5

// quotedKey is a key as a warning names it: sanitised, bounded, quoted.
func quotedKey(k string) string {
	return strconv.Quote(model.Truncate(model.Sanitize(k), 40))
}

// keyList joins the first keys, saying how many more there are.
func keyList(keys []string) string {
	if len(keys) <= maxKeysSaid {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:maxKeysSaid], ", ") + " and " + strconv.Itoa(len(keys)-maxKeysSaid) + " more"
}
