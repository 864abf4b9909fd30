package decoder

import (
	"encoding/json"
	"strconv"
)

// A stream of progress notifications is read one by one as it arrives. As
// for results (result_fast.go), the common shape is read in one pass and
// anything else (a member name differing only in case or with an escape,
// a syntax error) by encoding/json, whose reading is the reference
// (FuzzProgressOnePass).

// wireProgress is notifications/progress params with each member kept raw
// (absent: nil; a JSON null stays "null", as encoding/json keeps it).
type wireProgress struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress json.RawMessage `json:"progress"`
	Total    json.RawMessage `json:"total"`
	Message  json.RawMessage `json:"message"`
}

var progressMembers = [...]string{"progressToken", "progress", "total", "message"}

// readOnePass reads p (trimmed, starting with '{') as json.Unmarshal would,
// the members sharing p's bytes; false leaves w to encoding/json.
func (w *wireProgress) readOnePass(p []byte) bool {
	rd := envelopeReader{s: p}
	return rd.members(func(key []byte) bool {
		start := rd.i
		if !rd.skipValue(0) {
			return false
		}
		v := json.RawMessage(p[start:rd.i])
		switch string(key) { // a repeated member: the last one counts, as in encoding/json
		case "progressToken":
			w.Token = v
		case "progress":
			w.Progress = v
		case "total":
			w.Total = v
		case "message":
			w.Message = v
		default:
			return !foldsToAny(key, progressMembers[:])
		}
		return true
	}) && rd.end()
}

// plainNumber is raw as encoding/json decodes a float64 from it, when raw is
// exactly one JSON number in range; false otherwise.
func plainNumber(raw []byte) (float64, bool) {
	rd := envelopeReader{s: raw}
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || !rd.skipNumber() || rd.i != len(raw) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// jsonString decodes raw, one JSON value, as a string the way encoding/json
// does.
func jsonString(raw []byte) (string, error) {
	rd := envelopeReader{s: raw}
	if rd.at('"') && rd.skipString() && rd.i == len(raw) {
		return unquoteJSON(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
