package model

// Warning is a finding that becomes a warning event: Code is short and
// stable (a WarningCode), Message says what was seen.
type Warning struct {
	Code    WarningCode `json:"code"`
	Message string      `json:"message"`
}

func (w Warning) String() string { return string(w.Code) + ": " + w.Message }

// Event makes the warning a warning event; the source fills in time, source
// and the call's identity.
func (w Warning) Event() Event {
	return Event{Kind: KindWarning, Code: string(w.Code), Message: w.Message}
}
