package ui

import "github.com/charmbracelet/x/ansi"

// Column layout of the calls table, for the rows on screen. A column every
// row leaves empty (no task, no flag, no progress) is not drawn. The tool's
// name, the status and the progress column (which holds why a call failed,
// was cancelled or came late) stay at every width; when the terminal is
// narrow the rest give way in this order until the progress column has
// room to say why: the status becomes a glyph before the tool, a valid
// token is no longer flagged (the flags then say only what is wrong), a
// long list of flags is cut (its verdict first), then time, task, elapsed
// time and sent→relayed are dropped. Past that the cause is cut short, then
// the progress column goes, and last the tool's name and the flags are cut.

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
	right bool
	want  int
	full  int // what its content wants, before it gave way
	width int
}

var columnSet = []column{
	{id: colTime, title: "TIME", min: 8},
	{id: colTask, title: "TASK", min: 8},
	{id: colTool, title: "TOOL", min: 8},
	{id: colProgress, title: "PROGRESS", min: progressMin, fill: true},
	{id: colElapsed, title: "ELAPSED", min: 1, right: true},
	{id: colFlags, title: "FLAGS", min: 5},
	{id: colRelay, title: "SENT→REL", short: "S→R", min: 3, right: true},
	{id: colStatus, title: "STATUS", min: 1},
}

const (
	// progressMin is the narrowest progress column: a bar and its counts.
	progressMin = 14
	// causeWant is the room the progress column is given, by the columns
	// that give way, when a row on screen says why it ended badly or has a
	// progress message: a cause is read in its first words.
	causeWant = 28
	// toolWant is the longest tool name (with its server) shown whole
	// before other columns have their room; a longer one is made whole
	// from the spare room while the progress column keeps roomyProgress.
	toolWant      = 28
	roomyProgress = 40
	// flagsFloor keeps "rejected 401 attempt 2" whole when flags are cut.
	flagsFloor = 22
)

// markerWidth is the selection marker before every row.
const markerWidth = 2

// contentWidths is what the rows on screen hold.
type contentWidths struct {
	tool, flags, relay, status, elapsed int
	// flagsBare: the flags without a valid token's.
	flagsBare int
	// task: some row has a task id and not every row has the same one.
	task bool
	// says: some row has a cause or a progress message to show.
	says bool
}

// tableLayout is the columns drawn, whether the status is a glyph before
// the tool (its words then say nothing twice in the progress cell) and
// whether a valid token is flagged.
type tableLayout struct {
	cols        []column
	statusGlyph bool
	bareFlags   bool // a valid token is not flagged
}

// layoutColumns picks the columns that fit in width and sizes them: first
// columns give way until the progress column has room to say why; then,
// if even its bare minimum does not fit, it goes before the tool's name
// and the flags are cut.
func layoutColumns(width int, content contentWidths) tableLayout {
	l := tableLayout{cols: wantedColumns(content)}
	want := progressMin
	if content.says {
		want = causeWant
	}
	fits := func() bool { return needWidth(l.cols, wantedWidth)-l.progressMin()+want <= width }
	for _, giveWay := range []func(){
		func() { l.toGlyph() },
		func() { l.shrinkWant(colRelay, 0) }, // "S→R" over the counts
		func() {
			l.bareFlags = true
			if content.flagsBare == 0 {
				l.drop(colFlags)
			}
			l.shrinkWant(colFlags, content.flagsBare)
		},
		func() { l.shrinkWant(colFlags, flagsFloor) },
		func() { l.drop(colTime) },
		func() { l.drop(colTask) },
		func() { l.drop(colElapsed) },
		func() { l.drop(colRelay) },
		func() { want = progressMin }, // a cause cut short, rather than the tool
		func() { // a bar in a few cells says little: the tool and the flags stay
			l.drop(colProgress)
			want = 0
		},
		func() { l.shrinkWant(colTool, 0) },
		func() { l.shrinkWant(colFlags, 0) },
	} {
		if fits() {
			break
		}
		giveWay()
	}
	sizeColumns(l.cols, width)
	return l
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

// wantedColumns is every column with content, at the width it wants.
func wantedColumns(content contentWidths) []column {
	cols := make([]column, 0, len(columnSet))
	for _, c := range columnSet {
		switch c.id {
		case colTask:
			if !content.task {
				continue
			}
			c.want = c.min
		case colTool:
			c.want = min(max(content.tool, ansi.StringWidth(c.title)), toolWant)
		case colFlags:
			if content.flags == 0 {
				continue
			}
			c.want = max(content.flags, c.min)
		case colRelay:
			if content.relay == 0 {
				continue
			}
			c.min = max(content.relay, ansi.StringWidth(c.short))
			c.want = max(c.min, ansi.StringWidth(c.title))
		case colStatus:
			c.want = max(content.status, ansi.StringWidth(c.title))
			c.min = c.want
		case colElapsed:
			c.min = max(content.elapsed, ansi.StringWidth(c.title))
			c.want = c.min
		case colTime, colProgress:
			c.want = c.min
		}
		if c.max > 0 {
			c.want = min(c.want, c.max)
		}
		c.want = max(c.want, c.min)
		c.full = c.want
		if c.id == colTool {
			c.full = max(c.want, content.tool)
		}
		cols = append(cols, c)
	}
	return cols
}

// progressMin is the progress column's minimum, 0 once it was dropped.
func (l *tableLayout) progressMin() int {
	for _, c := range l.cols {
		if c.id == colProgress {
			return c.min
		}
	}
	return 0
}

// drop removes a column.
func (l *tableLayout) drop(id colID) {
	for i, c := range l.cols {
		if c.id == id {
			l.cols = append(l.cols[:i], l.cols[i+1:]...)
			return
		}
	}
}

// shrinkWant lowers what a column wants to floor (its minimum at least).
func (l *tableLayout) shrinkWant(id colID, floor int) {
	for i := range l.cols {
		if c := &l.cols[i]; c.id == id {
			c.want = min(c.want, max(floor, c.min))
		}
	}
}

// toGlyph turns the status column into one glyph, moved before the tool.
func (l *tableLayout) toGlyph() {
	for i, c := range l.cols {
		if c.id != colStatus {
			continue
		}
		c.min, c.want, c.title = 1, 1, " "
		rest := append(l.cols[:i:i], l.cols[i+1:]...)
		l.cols = append([]column{c}, rest...)
		l.statusGlyph = true
		return
	}
}

// sizeColumns sets each column's width: wanted, cut if still too wide (the
// tool's server, then the flags' tail), and the spare room to progress, or
// without it back to the flags and the tool.
func sizeColumns(cols []column, width int) {
	for i := range cols {
		cols[i].width = wantedWidth(cols[i])
	}
	over := needWidth(cols, func(c column) int { return c.width }) - width
	shrink := func(id colID) {
		for i := range cols {
			if c := &cols[i]; c.id == id && over > 0 {
				cut := max(0, min(over, c.width-c.min))
				c.width -= cut
				over -= cut
			}
		}
	}
	shrink(colTool)
	shrink(colFlags)
	shrink(colProgress)
	spare := width - needWidth(cols, func(c column) int { return c.width })
	for i := range cols {
		if c := &cols[i]; c.id == colTool && c.full > c.width {
			add := min(c.full-c.width, max(0, spare-roomyProgress))
			c.width += add
			spare -= add
		}
	}
	for _, grow := range []func(column) bool{
		func(c column) bool { return c.fill },
		func(c column) bool { return c.id == colTool },
		func(c column) bool { return c.id == colFlags },
	} {
		for i := range cols {
			if c := &cols[i]; spare > 0 && grow(*c) {
				add := spare
				if !c.fill {
					add = min(add, max(0, c.full-c.width))
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
