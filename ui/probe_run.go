package ui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// ProbeWork runs the probe, handing each finished case to done, and says
// how the run ended.
type ProbeWork func(ctx context.Context, done func(model.ProbeCase)) model.ProbeEnd

// RunProbe shows the probe screen on the terminal (alternate screen, mouse
// wheel) while work runs in the background. The screen stays after the run
// until the user quits; quitting earlier cancels work's context. It returns
// once work has returned, with the screen's error, if any.
func RunProbe(parent context.Context, opts ProbeOptions, work ProbeWork) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	progOpts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithAltScreen(), tea.WithMouseCellMotion()}
	if opts.Input != nil {
		progOpts = append(progOpts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		progOpts = append(progOpts, tea.WithOutput(opts.Output))
	}
	p := tea.NewProgram(NewProbe(opts), progOpts...)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		// Send returns at once when the program has ended.
		end := work(ctx, func(c model.ProbeCase) { p.Send(ProbeCaseDone(c)) })
		p.Send(ProbeEnded(end))
	}()
	_, err := p.Run()
	cancel()
	<-finished
	if parent.Err() != nil { // a signal ended it: not the screen's failure
		return nil
	}
	return err
}
