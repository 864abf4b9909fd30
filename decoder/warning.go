package decoder

import "toolscope/model"

// Warning is a finding that becomes a model warning event: Code is short and
// stable (e.g. meta_claim_mismatch), Message says what was seen.
type Warning struct {
	Code    model.WarningCode
	Message string
}

func (w Warning) String() string { return string(w.Code) + ": " + w.Message }

// Event makes the warning a model warning event; the source fills in time,
// source and the call's identity.
func (w Warning) Event() model.Event {
	return model.Event{Kind: model.KindWarning, Code: string(w.Code), Message: w.Message}
}
