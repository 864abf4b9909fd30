package cli

import (
	"flag"
	"fmt"
	"os"

	"toolscope/model"
	"toolscope/output"
	"toolscope/output/metrics"
)

// registerMetrics adds --metrics-listen to a live command (tap, watch, demo).
func (o *outputFlags) registerMetrics(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "serve Prometheus metrics at http://`ADDR`/metrics (OpenTelemetry, MCP semantic conventions); a bare :PORT is loopback")
}

// metricsOutput starts the /metrics endpoint, says where when no screen
// shows, and returns it as an output of the hub.
func (o *outputFlags) metricsOutput(mode string, warn func(model.Event)) (output.Output, error) {
	x, err := metrics.New(metrics.Config{Listen: o.metricsListen, OnEvent: warn})
	if err != nil {
		return nil, err
	}
	if mode != "tui" {
		fmt.Fprintf(os.Stderr, "toolscope: metrics at http://%s/metrics\n", x.Addr())
	}
	return x, nil
}
