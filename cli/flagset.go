package cli

import (
	"flag"
	"slices"
)

// flagSet is one command's flags: a FlagSet, parsed and described as one,
// whose flags are either the command's own (registered on it directly) or
// those of a group several commands share (registered with group), listed
// under the group's title in the help.
//
// Adding a flag is one line in the right place: in a command's constructor
// for that command alone, or in a group's register function for every
// command that takes the group (outputFlags.register, liveFlags.registerFeeds,
// liveFlags.registerTaps, liveFlags.registerCallChecks).
type flagSet struct {
	*flag.FlagSet
	// helpName is what 'toolscope help' takes to show this help: the
	// command's name ("tap --" for the stdio tap).
	helpName string
	groupOf  map[string]string // flag name → its group's title
	titles   []string          // group titles in the order the help lists them
	// refused names flags this command does not take although a sibling
	// form does, with why (the stdio tap's --enforce).
	refused map[string]string
}

// Titles of the flag groups, as the help prints them.
const (
	groupOutput     = "Output"
	groupFeeds      = "Feeds"
	groupTaps       = "Taps (HTTP)"
	groupCallChecks = "Checking calls (every tap)"
	groupMCP        = "MCP server"
)

func newFlagSet(name string) *flagSet {
	return &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), helpName: name, groupOf: map[string]string{}}
}

// group adds the flags register defines to the command, under title.
func (s *flagSet) group(title string, register func(*flag.FlagSet)) {
	g := flag.NewFlagSet(title, flag.ContinueOnError)
	register(g)
	g.VisitAll(func(f *flag.Flag) {
		s.Var(f.Value, f.Name, f.Usage)
		s.groupOf[f.Name] = title
	})
	if hasFlags(g) && !slices.Contains(s.titles, title) {
		s.titles = append(s.titles, title)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// names are every flag the command takes.
func (s *flagSet) names() []string {
	var out []string
	s.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}

// given says whether the flag was set on the command line.
func (s *flagSet) given(name string) bool {
	set := false
	s.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
