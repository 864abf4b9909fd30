// Package ui is toolscope's live screen: a Bubble Tea program that redraws
// from store snapshots on a frame tick, one row a call, and the detail of one
// call. It reads the store and never writes to it; it imports only model.
//
// The screen is a small root (Model: the frame tick, the header and footer,
// the filter line, the `?` help) over three parts, each a model with its own
// keymap, help and size: the calls table (tableModel), the detail of one
// call (detailModel) and the event log (logModel); the detail and the log
// each scroll their own viewport.
package ui
