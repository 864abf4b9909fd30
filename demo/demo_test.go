package demo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/output"
)

// runDemo runs the whole demo at speed into a hub with a JSON writer, and
// returns the events the writer wrote and the store.
func runDemo(t *testing.T, speed float64) ([]model.Event, *model.Store) {
	t.Helper()
	var out bytes.Buffer
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store, output.NewWriter(&out, output.WriterConfig{Name: "test output"}))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := Run(ctx, Options{Speed: speed}, hub); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := hub.Close(); err != nil {
		t.Fatalf("closing the writer: %v", err)
	}
	var events []model.Event
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		ev, err := output.DecodeLine(sc.Bytes())
		if err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	return events, store
}

// pick returns the events of a source kind ("tap" or "feed"), kind and raw
// tool name (a feed names tools mcp__demo_sheets__<tool>).
func pick(events []model.Event, source string, kind model.Kind, tool string) []model.Event {
	var out []model.Event
	for _, ev := range events {
		if ev.Source == source && ev.Kind == kind &&
			(ev.Tool == tool || ev.Tool == decoder.QualifiedName(instanceName, tool)) {
			out = append(out, ev)
		}
	}
	return out
}

func one(t *testing.T, what string, evs []model.Event) model.Event {
	t.Helper()
	if len(evs) != 1 {
		t.Fatalf("%s: want 1 event, got %d", what, len(evs))
	}
	return evs[0]
}

func TestRunShowsEveryScenario(t *testing.T) {
	started := time.Now()
	events, store := runDemo(t, 10)
	if d := time.Since(started); d > 15*time.Second {
		t.Errorf("the demo at speed 10 took %v, want under 15 s", d)
	}
	snap := store.Snapshot()

	t.Run("the run matches its outline", func(t *testing.T) {
		// The same every run, apart from ids and times: one line per call.
		want := []string{
			"build_report ok attempts=1 sent=3 token=valid structured dropped offloaded",
			"cancel_order ok attempts=1 sent=0 token=none rounds=2",
			"export_ledger cancelled attempts=1 sent=x token=valid cancelled",
			"get_order ok attempts=1 sent=0 token=none pii",
			"lookup_customer error attempts=1 sent=0 token=rejected rejected http=401",
			"lookup_customer error attempts=1 sent=0 token=rejected rejected http=403",
			"lookup_customer ok attempts=1 sent=0 token=valid",
			"post_ledger_entry ok attempts=2 sent=3 token=valid retried replayed",
			"read_workbook ok attempts=1 sent=23 token=valid structured",
			"render_charts ok attempts=1 sent=2 token=valid images",
			"scan_archive ok attempts=1 sent=14 token=valid",
			"validate_invoice error attempts=1 sent=0 token=valid",
		}
		var got []string
		for _, c := range snap.Calls {
			got = append(got, outline(c))
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("a call that asks the user to confirm is one call of two rounds", func(t *testing.T) {
		var got []string
		calls := map[string]bool{}
		for _, ev := range events {
			if ev.Tool == toolCancelOrder && (ev.Kind == model.KindToolCall || ev.Kind == model.KindToolResult) {
				got = append(got, fmt.Sprintf("%s %d %s", ev.Kind, ev.Round, ev.ResultType))
				calls[ev.Call] = true
			}
		}
		want := "tool.call 0 ,tool.result 1 input_required,tool.call 2 ,tool.result 2 complete"
		if strings.Join(got, ",") != want || len(calls) != 1 || calls[""] {
			t.Errorf("cancel_order lines %q of calls %v, want %q of one", got, calls, want)
		}
		var c *model.Call
		for _, call := range snap.Calls {
			if call.Tool == toolCancelOrder {
				c = call
			}
		}
		if c == nil {
			t.Fatal("no cancel_order call")
		}
		if a := c.LastAttempt(); a == nil || len(a.Rounds) != 2 || len(a.Rounds[0].Asked) != 1 ||
			!strings.HasPrefix(a.Rounds[0].Asked[0].Message, "Cancel order ord_42?") || !strings.Contains(string(a.Rounds[1].Answers), `"confirm":true`) {
			t.Errorf("rounds %+v", a)
		}
		if _, waiting := c.RoundTimes(time.Now()); waiting < time.Duration(float64(userThinks)/10) {
			t.Errorf("waited %v for the user, who took %v", waiting, userThinks/10)
		}
	})

	t.Run("the platform keeps its relay rule at every speed", func(t *testing.T) {
		// The demo's platform relays at 0.5 s of scenario time; its feeds
		// are checked against the same clock, so the rule holds. On a
		// loaded machine a late wake-up can bunch two relays planned 50 ms
		// apart (speed 10) into one instant: one or two are tolerated, where
		// checking on the wrong clock gives about twenty.
		var too []string
		for _, ev := range events {
			if ev.Kind == model.KindWarning && ev.Code == string(model.WarnProgressRelayedTooSoon) {
				too = append(too, ev.Tool+": "+ev.Message)
			}
		}
		if len(too) > 2 {
			t.Errorf("%d relays judged too soon:\n%s", len(too), strings.Join(too, "\n"))
		}
	})

	t.Run("every call carries its task's traceparent", func(t *testing.T) {
		traceparent := regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`)
		byTask := map[string]string{}
		seen := map[string]bool{}
		for _, e := range events {
			if e.Kind != model.KindToolCall || e.Source != model.SourceTap || e.TaskID == "" {
				continue
			}
			if !traceparent.MatchString(e.TraceParent) {
				t.Fatalf("%s: traceparent %q", e.Tool, e.TraceParent)
			}
			if tp, ok := byTask[e.TaskID]; ok && tp != e.TraceParent {
				t.Errorf("task %s: calls with traceparents %s and %s", e.TaskID, tp, e.TraceParent)
			}
			if _, ok := byTask[e.TaskID]; !ok && seen[e.TraceParent] {
				t.Errorf("two tasks share traceparent %s", e.TraceParent)
			}
			byTask[e.TaskID] = e.TraceParent
			seen[e.TraceParent] = true
		}
		if len(byTask) < 2 {
			t.Fatalf("tap calls of %d tasks", len(byTask))
		}
	})

	t.Run("long call: sent and relayed differ", func(t *testing.T) {
		sent := pick(events, model.SourceTap, model.KindToolProgress, toolReadWorkbook)
		relayed := pick(events, model.SourceFeed, model.KindToolProgress, toolReadWorkbook)
		if len(sent) != workbookSheets {
			t.Errorf("tap saw %d progress notifications, want %d", len(sent), workbookSheets)
		}
		if len(relayed) < 2 || len(relayed) >= len(sent) {
			t.Errorf("feed relayed %d of %d notifications, want at least 2 and fewer than sent", len(relayed), len(sent))
		}
		if len(relayed) > 0 {
			last := relayed[len(relayed)-1]
			if last.Progress != workbookSheets || last.Total == nil || *last.Total != workbookSheets {
				t.Errorf("the completion (23 of 23) must always be relayed; last relayed is %v", last.Progress)
			}
		}
		if len(sent) > 0 && sent[4].Message != "Reading sheet 5 of 23" {
			t.Errorf("5th notification message = %q", sent[4].Message)
		}
		c := snap.FindCall(one(t, "tap tool.call", pick(events, model.SourceTap, model.KindToolCall, toolReadWorkbook)).ToolCallID)
		if c == nil {
			t.Fatal("the long call is not in the store")
		}
		if c.SentCount() != workbookSheets || c.RelayedCount() != len(relayed) || c.RelayedCount() >= c.SentCount() {
			t.Errorf("store: sent %d, relayed %d; want %d sent and the feed's %d relayed", c.SentCount(), c.RelayedCount(), workbookSheets, len(relayed))
		}
		if len(c.Sources) != 2 {
			t.Errorf("the call should be joined from the feed and the tap, sources %v", c.Sources)
		}
	})

	t.Run("progress without total", func(t *testing.T) {
		sent := pick(events, model.SourceTap, model.KindToolProgress, toolScanArchive)
		relayed := pick(events, model.SourceFeed, model.KindToolProgress, toolScanArchive)
		if len(sent) != archiveSteps || len(relayed) == 0 {
			t.Fatalf("scan_archive: %d sent, %d relayed", len(sent), len(relayed))
		}
		for _, ev := range append(sent, relayed...) {
			if ev.Total != nil {
				t.Errorf("%s progress %v has total %v, want none", ev.Source, ev.Progress, *ev.Total)
			}
		}
	})

	t.Run("retry answered from the idempotency store", func(t *testing.T) {
		results := pick(events, model.SourceTap, model.KindToolResult, toolPostLedgerEntry)
		if len(results) != 2 {
			t.Fatalf("tap saw %d results for the retried call, want 2 (broken, replayed)", len(results))
		}
		if results[0].Error == "" || results[0].Replayed {
			t.Errorf("attempt 1 should have broken without a result: %+v", results[0])
		}
		if !results[1].Replayed || results[1].IsError {
			t.Errorf("attempt 2 should be replayed: %+v", results[1])
		}
		fr := one(t, "feed tool.result", pick(events, model.SourceFeed, model.KindToolResult, toolPostLedgerEntry))
		if fr.Attempt != 2 || !fr.Replayed || fr.IsError {
			t.Errorf("feed result: attempt %d, replayed %v, error %q; want attempt 2, replayed", fr.Attempt, fr.Replayed, fr.Error)
		}
		calls := pick(events, model.SourceTap, model.KindToolCall, toolPostLedgerEntry)
		if len(calls) != 2 || calls[0].IdempotencyKey != calls[1].IdempotencyKey ||
			calls[0].Context.Claims["jti"] == calls[1].Context.Claims["jti"] {
			t.Errorf("a retry sends the same idempotency key with a new token")
		}
		c := snap.FindCall(fr.ToolCallID)
		if c == nil || len(c.Attempts) != 2 || c.Flags&model.FlagReplayed == 0 || c.Status != model.StatusOK {
			t.Errorf("store: the retried call should have 2 attempts, be replayed and ok: %+v", c)
		}
	})

	t.Run("two images", func(t *testing.T) {
		for _, src := range []string{model.SourceTap, model.SourceFeed} {
			r := one(t, src+" render_charts result", pick(events, src, model.KindToolResult, toolRenderCharts))
			if len(r.Images) != 2 {
				t.Fatalf("%s: %d images, want 2", src, len(r.Images))
			}
			for _, im := range r.Images {
				if im.MimeType != "image/png" || im.Size <= 0 || im.Problem != "" {
					t.Errorf("%s: image %+v", src, im)
				}
			}
			if r.TextChars == 0 {
				t.Errorf("%s: the result's text is missing", src)
			}
		}
	})

	t.Run("structured content dropped, text offloaded", func(t *testing.T) {
		tr := one(t, "tap build_report result", pick(events, model.SourceTap, model.KindToolResult, toolBuildReport))
		fr := one(t, "feed build_report result", pick(events, model.SourceFeed, model.KindToolResult, toolBuildReport))
		if !tr.StructuredContentDropped || tr.StructuredContentBytes <= model.MaxStructuredChars || !tr.Offloaded || tr.TextChars <= model.MaxTextChars {
			t.Errorf("tap: dropped %v (%d bytes), offloaded %v (%d chars)", tr.StructuredContentDropped, tr.StructuredContentBytes, tr.Offloaded, tr.TextChars)
		}
		if !fr.StructuredContentDropped || len(fr.StructuredContent) != 0 {
			t.Errorf("feed: structured content should be dropped, not carried")
		}
		c := snap.FindCall(fr.ToolCallID)
		if c == nil || c.Flags&model.FlagStructuredDropped == 0 || c.Flags&model.FlagOffloaded == 0 {
			t.Errorf("store: flags %b, want dropped and offloaded", c.Flags)
		}
	})

	t.Run("isError result", func(t *testing.T) {
		for _, src := range []string{model.SourceTap, model.SourceFeed} {
			r := one(t, src+" validate_invoice result", pick(events, src, model.KindToolResult, toolValidateInvoice))
			if !r.IsError || !strings.Contains(r.Error, "INV-2291") {
				t.Errorf("%s: is_error %v, error %q", src, r.IsError, r.Error)
			}
		}
	})

	t.Run("rejected tokens", func(t *testing.T) {
		want := map[[2]int]bool{{401, jsonrpc.CodeUnauthorized}: false, {403, jsonrpc.CodeForbidden}: false}
		for _, ev := range pick(events, model.SourceTap, model.KindToolResult, toolLookupCustomer) {
			k := [2]int{ev.HTTPStatus, ev.RPCCode}
			if _, ok := want[k]; ok {
				want[k] = true
			}
		}
		for k, seen := range want {
			if !seen {
				t.Errorf("no tap tool.result with HTTP %d / %d", k[0], k[1])
			}
		}
		verdicts := map[string]int{}
		for _, ev := range pick(events, model.SourceTap, model.KindToolCall, toolLookupCustomer) {
			if ev.Context == nil {
				t.Fatal("tap tool.call without context")
			}
			verdicts[ev.Context.Verdict+" "+strconv.Itoa(ev.Context.HTTPStatus)+" "+strconv.Itoa(ev.Context.RPCCode)]++
		}
		for _, v := range []string{"rejected 401 -32001", "rejected 403 -32003", "valid 0 0"} {
			if verdicts[v] != 1 {
				t.Errorf("token verdicts %v, want one %q", verdicts, v)
			}
		}
		var feedErrors []string
		for _, ev := range pick(events, model.SourceFeed, model.KindToolResult, toolLookupCustomer) {
			feedErrors = append(feedErrors, ev.Error)
		}
		joined := strings.Join(feedErrors, "|")
		if !strings.Contains(joined, "rejected the credentials (HTTP 401)") || !strings.Contains(joined, "rejected the credentials (HTTP 403)") {
			t.Errorf("feed errors %q", joined)
		}
	})

	t.Run("timeout cancels the call", func(t *testing.T) {
		c := one(t, "tap tool.cancelled", pick(events, model.SourceTap, model.KindToolCancelled, toolExportLedger))
		fr := one(t, "feed export_ledger result", pick(events, model.SourceFeed, model.KindToolResult, toolExportLedger))
		if !fr.IsError || !fr.TimedOut || !strings.HasPrefix(fr.Error, "MCP tool call timed out: no result within") {
			t.Errorf("feed result error %q timed_out %v", fr.Error, fr.TimedOut)
		}
		// The platform sends notifications/cancelled with the reason, then
		// closes the stream: the call's cancellation carries that reason,
		// and the notification is not left over as an event of its own.
		if c.Reason != fr.Error {
			t.Errorf("tap tool.cancelled reason %q, want the notification's %q", c.Reason, fr.Error)
		}
		for _, ev := range events {
			if ev.Source == model.SourceTap && ev.Kind == model.KindEvent && strings.Contains(ev.EventType, "notifications/cancelled") {
				t.Errorf("notifications/cancelled left unattached: %s", ev.Data)
			}
		}
		for _, c := range snap.Calls {
			if c.Tool == toolExportLedger && (c.Status != model.StatusCancelled || c.LastAttempt().Cancelled != fr.Error) {
				t.Errorf("export_ledger on screen: %s, cancelled %q", c.Status, c.LastAttempt().Cancelled)
			}
		}
		if len(pick(events, model.SourceTap, model.KindToolProgress, toolExportLedger)) == 0 {
			t.Error("the timed-out call sent no progress")
		}
	})

	t.Run("SOAT context with a phone number", func(t *testing.T) {
		call := one(t, "tap get_order call", pick(events, model.SourceTap, model.KindToolCall, toolGetOrder))
		phone := false
		for _, v := range call.SoatContext {
			phone = phone || v == "+5511999999999"
		}
		if !phone || len(call.SoatContext) != 4 {
			t.Errorf("soat_context %v", call.SoatContext)
		}
		found := false
		for _, ev := range events {
			found = found || (ev.Kind == model.KindWarning && ev.Code == "pii_in_context" && ev.SourceName == soatTapName)
		}
		if !found {
			t.Error("no pii_in_context warning")
		}
	})

	t.Run("no secret in the output", func(t *testing.T) {
		signed := regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16,}`)
		for _, ev := range events {
			line := output.EncodeLine(&ev)
			for _, leak := range []string{"Bearer demo_", "aat_demo_"} {
				if bytes.Contains(line, []byte(leak)) {
					t.Fatalf("a credential reached the output: %s", line)
				}
			}
			if signed.Match(line) {
				t.Fatalf("a token signature reached the output: %s", line)
			}
		}
	})

	t.Run("every task and source ended", func(t *testing.T) {
		ended := map[string]bool{}
		completed := 0
		for _, ev := range events {
			if ev.Kind == model.KindSourceStatus && ev.State == model.StateEnded {
				ended[ev.SourceName] = true
			}
			if ev.Kind == model.KindTaskStatus && ev.EventType == "task.completed" {
				completed++
			}
			if ev.Kind == model.KindWarning && ev.Source == model.SourceDemo {
				t.Errorf("demo warning: %s", ev.Message)
			}
		}
		for _, tp := range plan() {
			if !ended[tp.Feed] {
				t.Errorf("%s did not end", tp.Feed)
			}
		}
		if completed != len(plan()) || !ended[sheetsTapName] || !ended[soatTapName] || !ended[demoName] {
			t.Errorf("completed tasks %d, ended sources %v", completed, ended)
		}
		for _, c := range snap.Calls {
			if !c.Finished() {
				t.Errorf("call %s (%s) still running", c.ID, c.Tool)
			}
		}
	})
}

// outline summarises a call in the terms that must not vary between runs.
func outline(c *model.Call) string {
	sent := strconv.Itoa(c.SentCount())
	if c.Tool == toolExportLedger && c.SentCount() > 0 {
		sent = "x" // how many rows it exported before the timeout is a matter of time
	}
	verdict := "none"
	if c.Context != nil {
		verdict = c.Context.Verdict
	}
	s := fmt.Sprintf("%s %s attempts=%d sent=%s token=%s", c.Tool, c.Status, len(c.Attempts), sent, verdict)
	for _, f := range []struct {
		flag model.CallFlag
		name string
	}{{model.FlagRetried, "retried"}, {model.FlagReplayed, "replayed"}, {model.FlagImages, "images"},
		{model.FlagStructured, "structured"}, {model.FlagStructuredDropped, "dropped"}, {model.FlagOffloaded, "offloaded"},
		{model.FlagRejected, "rejected"}, {model.FlagPII, "pii"}} {
		if c.Flags&f.flag != 0 {
			s += " " + f.name
		}
	}
	if a := c.LastAttempt(); a != nil && a.Result.HTTPStatus >= 400 {
		s += fmt.Sprintf(" http=%d", a.Result.HTTPStatus)
	}
	if a := c.LastAttempt(); a != nil && a.Cancelled != "" {
		s += " cancelled"
	}
	if n := c.Rounds(); n > 1 {
		s += fmt.Sprintf(" rounds=%d", n)
	}
	return s
}

func TestRunStopsWhenCancelled(t *testing.T) {
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once calls are in flight (at speed 1 the long ones run for seconds).
	var cancelledAt atomic.Value
	sink := model.SinkFunc(func(ev model.Event) {
		hub.Emit(ev)
		if ev.Kind == model.KindToolProgress && cancelledAt.Load() == nil {
			cancelledAt.Store(time.Now())
			cancel()
		}
	})
	err := Run(ctx, Options{Speed: 1}, sink)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	at, ok := cancelledAt.Load().(time.Time)
	if !ok {
		t.Fatal("no progress was seen")
	}
	if d := time.Since(at); d > 8*time.Second {
		t.Errorf("Run took %v to stop after cancel", d)
	}
}
