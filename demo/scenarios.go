package demo

import (
	"context"
	"sync"
	"time"
)

// The demo's instance, as the platform stores it.
const (
	instanceName    = "Demo Sheets"
	instanceTimeout = 10 * time.Second // tool_timeout_seconds, at speed 1
	// minInstanceTimeout keeps fast runs honest: every call but the one meant
	// to time out ends well within it, even on a loaded machine. The export
	// is sized by the timeout actually used, so this changes no outcome.
	minInstanceTimeout = 5 * time.Second
	soatAt             = 19 * time.Second
	confirmAt          = 20 * time.Second
)

// plannedCall is one call of a task, started at At (speed 1) after the run
// began.
type plannedCall struct {
	At   time.Duration
	Call toolCall
}

// taskPlan is one task of the demo and the calls its agent makes.
type taskPlan struct {
	Title     string
	Feed      string // the feed source's name
	EndUserID string
	Metadata  map[string]any
	Calls     []plannedCall
}

// plan is every scenario, staggered so the screen stays readable: at speed 1
// the last call ends about 21 s in.
//
//	0.5 s  read_workbook      23 progress notifications, 4 a second: sent and relayed differ
//	1.5 s  scan_archive       progress with no total
//	3.0 s  post_ledger_entry  stream drops after the result is stored; attempt 2 is replayed
//	7.0 s  render_charts      two PNG images and text
//	7.5 s  build_report       structured content over 16000 chars (dropped), text over 8000 (offloaded)
//	9.5 s  validate_invoice   isError: true
//	11 s   export_ledger      outlives the 10 s timeout: cancelled, notifications/cancelled
//	13 s   lookup_customer    token for another instance: 401/-32001
//	15 s   lookup_customer    token minted for another tool: 403/-32003
//	17 s   lookup_customer    a good token: the same call succeeds
//	19 s   get_order          SOAT-style call, phone number in X-Soat-Context-actor_external_id
//	20 s   cancel_order       asks the user to confirm (2026-07-28 input_required); the user does after 1.5 s: two rounds
func plan() []taskPlan {
	return []taskPlan{
		{
			Title: "Reconcile the Q3 workbook", Feed: "feed:q3-close",
			EndUserID: "user-42", Metadata: map[string]any{"chatId": "c-9"},
			Calls: []plannedCall{
				{500 * time.Millisecond, toolCall{Tool: toolReadWorkbook, Args: map[string]any{"file": "q3-close.xlsx"}}},
				{7 * time.Second, toolCall{Tool: toolRenderCharts, Args: map[string]any{"sheet": "Summary"}}},
			},
		},
		{
			Title: "Audit the invoice archive", Feed: "feed:invoice-audit",
			Calls: []plannedCall{
				{1500 * time.Millisecond, toolCall{Tool: toolScanArchive, Args: map[string]any{"prefix": "invoices/2026/"}}},
				{7500 * time.Millisecond, toolCall{Tool: toolBuildReport, Args: map[string]any{"period": "2026-Q3"}}},
				{9500 * time.Millisecond, toolCall{Tool: toolValidateInvoice, Args: map[string]any{"invoice_id": "INV-2291"}}},
			},
		},
		{
			Title: "Post the Q3 corrections", Feed: "feed:ledger",
			Calls: []plannedCall{
				{3 * time.Second, toolCall{Tool: toolPostLedgerEntry,
					Args: map[string]any{"account": "4000", "amount": 36.0, "memo": "INV-2291 correction"}}},
				{11 * time.Second, toolCall{Tool: toolExportLedger, Args: map[string]any{"format": "csv"}}},
			},
		},
		{
			Title: "Check a customer's credit", Feed: "feed:credit-check",
			Calls: []plannedCall{
				{13 * time.Second, toolCall{Tool: toolLookupCustomer, Args: map[string]any{"customer_id": "C-1042"}, Fault: tokenWrongInstance}},
				{15 * time.Second, toolCall{Tool: toolLookupCustomer, Args: map[string]any{"customer_id": "C-1042"}, Fault: tokenWrongTool}},
				{17 * time.Second, toolCall{Tool: toolLookupCustomer, Args: map[string]any{"customer_id": "C-1042"}}},
			},
		},
	}
}

// newTask creates the task of a plan, as AgentArea does on POST .../tasks/.
func newTask(tp taskPlan) *task {
	return &task{
		ID:          newUUID(),
		Title:       tp.Title,
		Workspace:   "acme-finance",
		WorkspaceID: demoWorkspaceID,
		AgentID:     demoAgentID,
		ExecutionID: newUUID(),
		TraceParent: "00-" + newID("", 16) + "-" + newID("", 8) + "-01",
		EndUserID:   tp.EndUserID,
		Metadata:    tp.Metadata,
	}
}

// The demo's workspace and agent, fixed so runs look alike.
const (
	demoWorkspaceID = "1b2e5f0a-7c3d-4e8f-9a01-23456789abcd"
	demoAgentID     = "9d4a2c71-0b5e-4f36-8d2a-6c1e0f9b3a57"
)

// runTask starts the task shortly before its first call, runs every call at
// its time, and completes the task once they have all ended.
func (p *platform) runTask(ctx context.Context, start time.Time, t *task, tp taskPlan) {
	if p.clk.until(ctx, start, tp.Calls[0].At-taskSettle) != nil {
		return
	}
	base := map[string]any{"task_id": t.ID, "agent_id": t.AgentID, "execution_id": t.ExecutionID}
	p.feeds.publish(t, "task.started", with(base, "message", "Task started: "+t.Title))
	var wg sync.WaitGroup
	for _, pc := range tp.Calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.clk.until(ctx, start, pc.At) == nil {
				p.execute(ctx, t, pc.Call)
			}
		}()
	}
	wg.Wait()
	if p.clk.sleep(ctx, taskSettle) != nil {
		return
	}
	p.feeds.publish(t, "task.completed", with(base, "message", "Task completed: "+t.Title))
}

// with copies m and sets one more key.
func with(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for mk, mv := range m {
		c[mk] = mv
	}
	c[k] = v
	return c
}
