package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"toolscope/stream/feed"
)

func feedGet(t *testing.T, ctx context.Context, url, apiKey string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestFeedServerAnswersAtTheRealPath(t *testing.T) {
	f := startFeedServer("aat_key")
	defer f.Close(time.Second)
	tk := newTask(taskPlan{Title: "feed"})
	f.open(tk)
	url := feed.FeedURL(f.API(), tk.Workspace, tk.AgentID, tk.ID)
	if !strings.HasSuffix(url, "/v1/workspaces/acme-finance/agents/"+tk.AgentID+"/tasks/"+tk.ID+"/events/stream") {
		t.Fatalf("feed URL %s", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	for _, c := range []struct {
		url, key string
		status   int
	}{
		{url, "", http.StatusUnauthorized},
		{url, "wrong", http.StatusUnauthorized},
		{feed.FeedURL(f.API(), tk.Workspace, tk.AgentID, newUUID()), "aat_key", http.StatusNotFound},
		{feed.FeedURL(f.API(), "other-workspace", tk.AgentID, tk.ID), "aat_key", http.StatusNotFound},
	} {
		resp := feedGet(t, ctx, c.url, c.key)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("GET %s with key %q: HTTP %d, want %d", c.url, c.key, resp.StatusCode, c.status)
		}
	}

	resp := feedGet(t, ctx, url, "aat_key")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	f.publish(tk, "tool.progress", map[string]any{"task_id": tk.ID, "progress": 5, "total": 23, "message": "Reading sheet 5 of 23"})

	type frame struct{ event, data string }
	var frames []frame
	sc := bufio.NewScanner(resp.Body)
	cur := frame{}
	for len(frames) < 2 && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				frames = append(frames, cur)
			}
			cur = frame{}
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	if len(frames) != 2 || frames[0].event != "connected" || frames[1].event != "tool.progress" {
		t.Fatalf("frames %+v", frames)
	}
	if !strings.HasPrefix(frames[1].data, `{"event_type":"tool.progress","event_id":"`) {
		t.Errorf("envelope fields out of order: %s", frames[1].data)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(frames[1].data), &raw); err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	_ = json.Unmarshal(raw["data"], &data)
	var ts string
	_ = json.Unmarshal(raw["timestamp"], &ts)
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || len(raw["event_id"]) < 30 {
		t.Errorf("timestamp %q, event_id %s", ts, raw["event_id"])
	}
	if data["message"] != "Reading sheet 5 of 23" || data["total"] != 23.0 {
		t.Errorf("data %v", data)
	}
}
