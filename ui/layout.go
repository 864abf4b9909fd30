package ui

import "github.com/charmbracelet/x/ansi"

// Column layout of the calls table, by priority: the tool's whole name, its
// status and its flags (the verdicts) are kept at every width; progress,
// relay counts, elapsed time, task and time give way, in that order from
// last, when the terminal is narrow. Tool, flags, relay and status are as
// wide as what the rows on screen hold; progress takes what is left.

type colID int

const (
	colTime colID = iota
	colTask
	colTool
	colProgress
	colElapsed
	colFlags
	colRelay
	colStatus
)

type column struct {
	id    colID
	title string
	short string // the title when the column is narrower than title
	min   int
	max   int  // 0: no maximum
	fill  bool // takes the spare width
	drop  int  // dropped first when narrow: higher drops earlier; 0 never
	right bool
	want  int
	width int
}

var columnSet = []column{
	{id: colTime, title: "TIME", min: 8, drop: 6},
	{id: colTask, title: "TASK", min: 8, drop: 5},
	{id: colTool, title: "TOOL", min: 8, max: 28},
	{id: colProgress, title: "PROGRESS", min: 14, fill: true, drop: 2},
	{id: colElapsed, title: "ELAPSED", min: 8, drop: 4, right: true},
	{id: colFlags, title: "FLAGS", min: 8, max: 32},
	{id: colRelay, title: "SENT→REL", short: "S→R", min: 3, drop: 3, right: true},
	{id: colStatus, title: "STATUS", short: " ", min: 1},
}

// Widths below which the table changes form.
const (
	// narrowWidth: the status becomes one glyph (✓ ✕ ⊘ ● !) before the tool.
	narrowWidth = 60
	// compactFlagsWidth: a valid token is flagged ✓ instead of "valid".
	compactFlagsWidth = 110
	// toolWant is the longest tool name shown whole.
	toolWant = 24
	// flagsFloor keeps "attempt 2 replayed ✓" whole before the tool is cut.
	flagsFloor = 20
)

// markerWidth is the selection marker before every row.
const markerWidth = 2

// contentWidths is how wide the rows on screen want some columns.
type contentWidths struct {
	tool, flags, relay, status, elapsed int
}

// layoutColumns picks the columns that fit in width and sizes them.
func layoutColumns(width int, content contentWidths) []column {
	cols := wantedColumns(width, content)
	cols = dropColumns(cols, width)
	sizeColumns(cols, width)
	return cols
}

// needWidth is the line width of cols at the given sizes.
func needWidth(cols []column, size func(column) int) int {
	n := markerWidth - 1
	for _, c := range cols {
		n += size(c) + 1
	}
	return n
}

// wantedWidth is a column's width before spare room is shared.
func wantedWidth(c column) int {
	if c.fill {
		return c.min
	}
	return c.want
}

// wantedColumns is every column with the width its content wants.
func wantedColumns(width int, content contentWidths) []column {
	cols := make([]column, 0, len(columnSet))
	for _, c := range columnSet {
		switch c.id {
		case colTool:
			c.want = min(max(content.tool, ansi.StringWidth(c.title)), toolWant)
		case colFlags:
			c.want = max(content.flags, ansi.StringWidth(c.title))
		case colRelay:
			c.min = max(content.relay, ansi.StringWidth(c.short))
			c.want = c.min
			if width >= compactFlagsWidth {
				c.want = max(c.min, ansi.StringWidth(c.title))
			}
		case colStatus:
			c.want = max(content.status, ansi.StringWidth(c.title))
			c.min = c.want
			if width < narrowWidth {
				c.min, c.want, c.title = 1, 1, c.short
			}
		case colElapsed:
			c.min = max(c.min, content.elapsed)
			c.want = c.min
		case colTime, colTask, colProgress:
			c.want = c.min
		}
		if c.max > 0 {
			c.want = min(c.want, c.max)
		}
		c.want = max(c.want, c.min)
		cols = append(cols, c)
	}
	if width < narrowWidth { // status first, as a glyph
		st := cols[len(cols)-1]
		cols = append([]column{st}, cols[:len(cols)-1]...)
	}
	return cols
}

// dropColumns drops the least telling columns until what stays is shown whole.
func dropColumns(cols []column, width int) []column {
	for needWidth(cols, wantedWidth) > width {
		worst := -1
		for i, c := range cols {
			if c.drop > 0 && (worst < 0 || c.drop > cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		cols = append(cols[:worst], cols[worst+1:]...)
	}
	return cols
}

// sizeColumns sets each column's width: wanted, cut if still too wide,
// grown into the spare room.
func sizeColumns(cols []column, width int) {
	for i := range cols {
		cols[i].width = wantedWidth(cols[i])
	}
	// Still too wide (a narrow terminal): the flags' tail gives way first
	// (they list the verdicts first), then the tool name, then the rest.
	over := needWidth(cols, func(c column) int { return c.width }) - width
	shrink := func(id colID, floor int) {
		for i := range cols {
			if c := &cols[i]; c.id == id && over > 0 {
				cut := max(0, min(over, c.width-max(floor, c.min)))
				c.width -= cut
				over -= cut
			}
		}
	}
	shrink(colFlags, flagsFloor)
	shrink(colTool, 0)
	shrink(colFlags, 0)
	// Spare width goes to progress, else to the flags and the tool.
	spare := width - needWidth(cols, func(c column) int { return c.width })
	for _, grow := range []func(column) bool{
		func(c column) bool { return c.fill },
		func(c column) bool { return c.id == colFlags },
	} {
		for i := range cols {
			if c := &cols[i]; spare > 0 && grow(*c) {
				add := spare
				if c.max > 0 {
					add = min(add, max(0, c.max-c.width))
				}
				c.width += add
				spare -= add
			}
		}
	}
	for i := range cols {
		if c := &cols[i]; c.width < ansi.StringWidth(c.title) && c.short != "" {
			c.title = c.short
		}
	}
}
