package decoder

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"toolscope/model"
)

// MaxAgentNameLen bounds an agent-facing tool name.
const MaxAgentNameLen = 64

// digestLen is the length of the digest that ends a cut name.
const digestLen = 8

// QualifiedName is the agent-facing name of an MCP tool,
// mcp__<server>__<tool>, per the contract's "Tool names the model sees":
// <server> is serverLabel(instanceName), <tool> the raw name with every
// character outside [a-zA-Z0-9_-] replaced by "_". A name over 64 characters
// is cut to 55 and ended with "_" and a digest: the first 8 hex digits of the
// SHA-256 of the whole uncut name, so two long names that share a start stay
// apart and the same name always gives the same result.
func QualifiedName(instanceName, tool string) string {
	full := model.AgentName(serverLabel(instanceName), ToolLabel(tool))
	if len(full) <= MaxAgentNameLen {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	return full[:MaxAgentNameLen-digestLen-1] + "_" + hex.EncodeToString(sum[:])[:digestLen]
}

// ToolLabel replaces every character of a tool name outside [a-zA-Z0-9_-]
// with "_" (one per character, nothing collapsed).
func ToolLabel(tool string) string {
	if !strings.ContainsFunc(tool, isNotNameChar) {
		return tool // nothing to replace: no copy
	}
	var b strings.Builder
	b.Grow(len(tool))
	for _, r := range tool {
		if isNameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func isNotNameChar(r rune) bool { return !isNameChar(r) }

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// serverLabel is the <server> part of an agent-facing name. An ASCII-only
// instance name is lowercased with every character outside [a-zA-Z0-9_-]
// replaced by "_" (nothing collapsed: "My GitHub!" gives "my_github_").
// Any other name is made readable: Cyrillic is transliterated, accents are
// dropped, letters are lowercased, and every run of anything but [a-z0-9]
// becomes one "_", trimmed at both ends. Nothing readable left (CJK only,
// say) gives "server".
func serverLabel(name string) string {
	if model.IsASCII(name) {
		if name == "" {
			return "server"
		}
		return strings.ToLower(ToolLabel(name))
	}
	var b strings.Builder
	pendingSep := false
	emit := func(s string) {
		if pendingSep && b.Len() > 0 {
			b.WriteByte('_')
		}
		pendingSep = false
		b.WriteString(s)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			emit(string(r))
		case r >= 'A' && r <= 'Z':
			emit(string(r + 'a' - 'A'))
		default:
			if t, ok := readable(r); ok && t != "" {
				emit(t)
			} else if !ok {
				pendingSep = true
			}
			// ok with t == "" (soft and hard signs) drops the letter, no separator.
		}
	}
	if b.Len() == 0 {
		return "server"
	}
	return b.String()
}

// readable returns the ASCII spelling of a letter: Cyrillic transliterated
// (the ICAO passport scheme, ь and ъ dropped), Latin with accents stripped
// (latinFold).
// ok is false for anything else.
func readable(r rune) (string, bool) {
	if t, ok := cyrillic[r]; ok {
		return t, true
	}
	return latinFold(r)
}

var cyrillic = map[rune]string{}

func init() {
	lower := []struct {
		upper, lower rune
		ascii        string
	}{
		{'А', 'а', "a"}, {'Б', 'б', "b"}, {'В', 'в', "v"}, {'Г', 'г', "g"}, {'Д', 'д', "d"},
		{'Е', 'е', "e"}, {'Ё', 'ё', "e"}, {'Ж', 'ж', "zh"}, {'З', 'з', "z"}, {'И', 'и', "i"},
		{'Й', 'й', "i"}, {'К', 'к', "k"}, {'Л', 'л', "l"}, {'М', 'м', "m"}, {'Н', 'н', "n"},
		{'О', 'о', "o"}, {'П', 'п', "p"}, {'Р', 'р', "r"}, {'С', 'с', "s"}, {'Т', 'т', "t"},
		{'У', 'у', "u"}, {'Ф', 'ф', "f"}, {'Х', 'х', "kh"}, {'Ц', 'ц', "ts"}, {'Ч', 'ч', "ch"},
		{'Ш', 'ш', "sh"}, {'Щ', 'щ', "shch"}, {'Ъ', 'ъ', ""}, {'Ы', 'ы', "y"}, {'Ь', 'ь', ""},
		{'Э', 'э', "e"}, {'Ю', 'ю', "iu"}, {'Я', 'я', "ia"},
		// Ukrainian and Belarusian letters.
		{'І', 'і', "i"}, {'Ї', 'ї', "i"}, {'Є', 'є', "ie"}, {'Ґ', 'ґ', "g"}, {'Ў', 'ў', "u"},
	}
	for _, l := range lower {
		cyrillic[l.upper] = l.ascii
		cyrillic[l.lower] = l.ascii
	}
}
