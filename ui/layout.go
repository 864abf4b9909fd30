package ui

// Column layout of the calls table: fixed columns, three that share the
// spare width, and a drop order for narrow terminals.

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
	id     colID
	title  string
	min    int
	max    int // 0: no maximum
	weight int // share of the spare width
	drop   int // dropped first when narrow: higher drops earlier; 0 never
	right  bool
	width  int
}

var columnSet = []column{
	{id: colTime, title: "TIME", min: 8, drop: 5},
	{id: colTask, title: "TASK", min: 8, drop: 6},
	{id: colTool, title: "TOOL", min: 10, max: 28, weight: 2},
	{id: colProgress, title: "PROGRESS", min: 22, weight: 2},
	{id: colElapsed, title: "ELAPSED", min: 10, drop: 2, right: true},
	{id: colFlags, title: "FLAGS", min: 12, max: 36, weight: 5, drop: 3},
	{id: colRelay, title: "SENT→REL", min: 8, drop: 4, right: true},
	{id: colStatus, title: "STATUS", min: 9},
}

// markerWidth is the selection marker before every row.
const markerWidth = 2

// layoutColumns picks the columns that fit in width and sizes them.
func layoutColumns(width int) []column {
	cols := append([]column(nil), columnSet...)
	need := func() int {
		n := markerWidth
		for _, c := range cols {
			n += c.min + 1
		}
		return n - 1
	}
	for need() > width {
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
	spare := max(0, width-need())
	for i := range cols {
		cols[i].width = cols[i].min
	}
	// Hand out the spare width by weight, respecting maxima.
	for spare > 0 {
		total := 0
		for _, c := range cols {
			if c.weight > 0 && (c.max == 0 || c.width < c.max) {
				total += c.weight
			}
		}
		if total == 0 {
			break
		}
		given := 0
		for i := range cols {
			c := &cols[i]
			if c.weight == 0 || (c.max > 0 && c.width >= c.max) {
				continue
			}
			add := max(1, spare*c.weight/total)
			if c.max > 0 {
				add = min(add, c.max-c.width)
			}
			add = min(add, spare-given)
			c.width += add
			given += add
			if given >= spare {
				break
			}
		}
		if given == 0 {
			break
		}
		spare -= given
	}
	return cols
}
