package cli

import (
	"flag"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"toolscope/decoder/soat"
	"toolscope/decoder/token"
)

// A command's --help is its hand-written text (usage, what it does,
// examples) with the flags section made from its FlagSet, so a flag cannot
// be accepted and left out of the help, or described and not accepted.

// flagsMarker in a usage text is where the generated flags section goes.
const flagsMarker = "{{flags}}\n"

// envNames fill the environment variables' names into usage texts, so each
// name is spelled once, where the decoder reads it.
var envNames = strings.NewReplacer("{{secret_env}}", token.SecretEnv, "{{prefix_env}}", soat.PrefixEnv)

// commandHelp renders usageText with its flags section.
func commandHelp(s *flagSet, usageText string) string {
	return envNames.Replace(strings.Replace(usageText, flagsMarker, flagsSection(s), 1))
}

// flagsSection lists the command's own flags, then each group it takes
// under its title.
func flagsSection(s *flagSet) string {
	byTitle := map[string][]*flag.Flag{}
	s.VisitAll(func(f *flag.Flag) {
		title := s.groupOf[f.Name]
		byTitle[title] = append(byTitle[title], f)
	})
	var b strings.Builder
	if own := byTitle[""]; len(own) > 0 {
		b.WriteString("Flags:\n")
		writeFlags(&b, own)
		b.WriteString("\n")
	}
	for _, title := range s.titles {
		b.WriteString(title + ":\n")
		writeFlags(&b, byTitle[title])
		b.WriteString("\n")
	}
	return b.String()
}

// wrapAt breaks text at spaces into lines of at most width bytes (a longer
// word stays whole).
func wrapAt(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines, line = append(lines, line), w
		}
	}
	return append(lines, line)
}

// writeFlags writes "  --name ARG   usage (default X)", usage aligned.
func writeFlags(b *strings.Builder, flags []*flag.Flag) {
	heads := make([]string, len(flags))
	width := 0
	for i, f := range flags {
		arg, _ := flag.UnquoteUsage(f)
		heads[i] = "  --" + f.Name
		if arg != "" {
			heads[i] += " " + strings.ToUpper(arg)
		}
		width = max(width, len(heads[i]))
	}
	for i, f := range flags {
		_, usage := flag.UnquoteUsage(f)
		if showDefault(f) {
			usage += " (default " + f.DefValue + ")"
		}
		// Wrapped at 80 columns, under the usage column (or under the
		// flag when the names are long).
		indent := min(width+2, 30)
		lines := wrapAt(usage, max(30, 79-indent))
		if len(heads[i])+2 > indent {
			b.WriteString(heads[i] + "\n")
		} else {
			lines[0] = fmt.Sprintf("%-*s", indent, heads[i]) + lines[0]
			b.WriteString(lines[0] + "\n")
			lines = lines[1:]
		}
		for _, l := range lines {
			b.WriteString(strings.Repeat(" ", indent) + l + "\n")
		}
	}
}

// showDefault: a default worth saying (not empty, zero or false).
func showDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return false
	}
	return !strings.Contains(f.Usage, "(default")
}

// singleDash finds Go's -name spelling in the flag package's messages.
var singleDash = regexp.MustCompile(`(^|[ :])-([A-Za-z][A-Za-z0-9-]*)`)

// dashDash spells flags in a flag package error as the help does: --name.
func dashDash(err error) string {
	return singleDash.ReplaceAllString(err.Error(), "$1--$2")
}

// version is "toolscope VERSION (commit, time, go)" from the build info.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "toolscope (no build info)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var details []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if settings["vcs.modified"] == "true" {
			rev += "+modified"
		}
		details = append(details, "commit "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, t)
	}
	details = append(details, info.GoVersion)
	return "toolscope " + v + " (" + strings.Join(details, ", ") + ")"
}
