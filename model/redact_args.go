package model

import "strings"

// RedactArgs is a command line as it may be recorded: the value of a flag
// named like a credential (--api-key=K, --token K, -password=K), of an
// assignment (API_KEY=K) and what Text redacts (a URL's password, a
// known secret, a JWT's signature) in any argument.
func RedactArgs(args []string) []string { return (*Redactor)(nil).Args(args) }

// Args is RedactArgs with this run's names and secrets.
func (r *Redactor) Args(args []string) []string {
	x := r.pass(nil)
	out := make([]string, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, assigned := argAssignment(a)
		switch {
		case assigned && value != "" && x.names.isCredential(name):
			out[i] = a[:len(a)-len(value)] + Redacted
		case !assigned && name != "" && x.names.isCredential(name) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			out[i] = a
			out[i+1] = Redacted // --token VALUE
			i++
		default:
			out[i] = x.text(a)
		}
	}
	return out
}

// argAssignment reads a flag (-name, --name, with =value) or an
// assignment (NAME=value). name is "" for anything else.
func argAssignment(a string) (name, value string, assigned bool) {
	if strings.HasPrefix(a, "-") {
		name = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if n, v, ok := strings.Cut(name, "="); ok {
			return n, v, true
		}
		return name, "", false
	}
	n, v, ok := strings.Cut(a, "=")
	if !ok || n == "" || strings.ContainsAny(n, " /:\"'") {
		return "", "", false
	}
	return n, v, true
}
