//go:build !unix

package tap

// ServeWatchdog: there is no watchdog without process groups.
func ServeWatchdog() bool { return false }

type watchdog struct{}

func startWatchdog() *watchdog { return nil }
func (*watchdog) guard(int)    {}
func (*watchdog) stopping()    {}
func (*watchdog) release()     {}
