package demo

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"toolscope/model"
	"toolscope/stream/tap"
)

// components are the demo's running parts: the MCP server, the taps in front
// of it and the platform's feed server.
type components struct {
	inst            instance
	recordBodyLimit int64 // the taps capture for --record (Options.RecordBodyLimit)
	planned         *plannedTimes
	server          *demoServer
	sheetsTap       *tap.Tap
	soatTap         *tap.Tap
	soatURL         string // the SOAT server's endpoint, through its tap
	apiKey          string // the feed server's
	feeds           *feedServer
}

// start starts the components; on an error, close stops those it started.
func (c *components) start(clk pace, sink model.Sink) error {
	secret := newSecret()
	c.inst = instance{
		ID:         newUUID(),
		Name:       instanceName,
		Credential: newID("demo_", 16),
		Secret:     secret,
		Timeout:    max(clk.d(instanceTimeout), minInstanceTimeout),
		OtherID:    newUUID(),
	}
	inst := &c.inst
	c.planned = newPlannedTimes()
	c.server = startDemoServer(clk, inst.ID, secret, inst.Credential, inst.Timeout, c.planned)

	var err error
	c.sheetsTap, err = startTap(tap.Config{Name: sheetsTapName, Listen: "127.0.0.1:0", Upstream: c.server.URL(),
		InstanceID: inst.ID, InstanceName: inst.Name, Secrets: [][]byte{secret}, Timeout: inst.Timeout, RecordBodyLimit: c.recordBodyLimit}, sink)
	if err != nil {
		return err
	}
	c.soatTap, err = startTap(tap.Config{Name: soatTapName, Listen: "127.0.0.1:0", Upstream: c.server.SoatURL(),
		InstanceName: "Demo Orders", Timeout: inst.Timeout, RecordBodyLimit: c.recordBodyLimit}, sink)
	if err != nil {
		return err
	}
	inst.URL = "http://" + c.sheetsTap.Addr() + "/mcp"
	c.soatURL = "http://" + c.soatTap.Addr() + "/soat/mcp"

	c.apiKey = newID("aat_demo_", 16)
	c.feeds = startFeedServer(c.apiKey)
	return nil
}

// close stops what start started, the feeds first and the server last (the
// order in which Run used to defer their closing).
func (c *components) close() {
	if c.feeds != nil {
		c.feeds.Close(time.Second)
	}
	if c.soatTap != nil {
		shutdownTap(c.soatTap)
	}
	if c.sheetsTap != nil {
		shutdownTap(c.sheetsTap)
	}
	if c.server != nil {
		c.server.Close()
	}
}

func startTap(cfg tap.Config, sink model.Sink) (*tap.Tap, error) {
	t, err := tap.New(cfg, sink)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	if err := t.Start(); err != nil {
		return nil, fmt.Errorf("demo: starting %s: %w", cfg.Name, err)
	}
	return t, nil
}

// shutdownTap lets in-flight exchanges end and the tap emit its last events.
func shutdownTap(t *tap.Tap) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.Shutdown(ctx)
}

// newSecret is the instance's context_secret: 48 random characters (the
// contract allows 32 to 512).
func newSecret() []byte {
	b := make([]byte, 36)
	_, _ = rand.Read(b)
	return []byte(base64.RawURLEncoding.EncodeToString(b))
}
