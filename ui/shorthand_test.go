package ui

import "toolscope/model"

// Shorthands the tests use for state that lives in the table.

// selected is the table's call under the cursor.
func (m *Model) selected() *model.Call { return m.table.selected() }

// tableRows is how many calls the table shows.
func (m *Model) tableRows() int { return m.table.rowsShown() }
