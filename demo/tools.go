package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// The demo instance's tools. Each one is deterministic: the same arguments
// give the same progress and the same result every run.
const (
	toolReadWorkbook    = "read_workbook"
	toolScanArchive     = "scan_archive"
	toolRenderCharts    = "render_charts"
	toolBuildReport     = "build_report"
	toolValidateInvoice = "validate_invoice"
	toolPostLedgerEntry = "post_ledger_entry"
	toolExportLedger    = "export_ledger"
	toolLookupCustomer  = "lookup_customer"
	toolGetOrder        = "get_order"
	toolCancelOrder     = "cancel_order"
)

// Work the tools do, at speed 1.
const (
	workbookSheets     = 23
	sheetInterval      = 250 * time.Millisecond
	archiveSteps       = 14
	archiveInterval    = 350 * time.Millisecond
	chartInterval      = 400 * time.Millisecond
	reportInterval     = 300 * time.Millisecond
	ledgerSteps        = 3
	ledgerInterval     = 300 * time.Millisecond
	exportRowsPerStep  = 1800
	exportStepInterval = time.Second
)

func objectSchema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func (s *demoServer) addSheetTools(srv *mcp.Server) {
	add := func(name, desc string, schema map[string]any, h mcp.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema}, s.idempotent(h))
	}
	add(toolReadWorkbook, "Read every sheet of a workbook",
		objectSchema(map[string]any{"file": str("workbook path")}, "file"), s.readWorkbook)
	add(toolScanArchive, "Scan an archive prefix for documents (count unknown up front)",
		objectSchema(map[string]any{"prefix": str("archive prefix")}, "prefix"), s.scanArchive)
	add(toolRenderCharts, "Render the charts of a sheet as PNG images",
		objectSchema(map[string]any{"sheet": str("sheet name")}, "sheet"), s.renderCharts)
	add(toolBuildReport, "Build the period's full ledger report",
		objectSchema(map[string]any{"period": str("e.g. 2026-Q3")}, "period"), s.buildReport)
	add(toolValidateInvoice, "Check that an invoice balances",
		objectSchema(map[string]any{"invoice_id": str("invoice id")}, "invoice_id"), s.validateInvoice)
	add(toolPostLedgerEntry, "Post a ledger entry (not safe to run twice)",
		objectSchema(map[string]any{"account": str("account"), "amount": map[string]any{"type": "number"}, "memo": str("memo")},
			"account", "amount"), s.postLedgerEntry)
	add(toolExportLedger, "Export the whole ledger",
		objectSchema(map[string]any{"format": str("csv or xlsx")}, "format"), s.exportLedger)
	add(toolLookupCustomer, "Look a customer up",
		objectSchema(map[string]any{"customer_id": str("customer id")}, "customer_id"), s.lookupCustomer)
}

func (s *demoServer) addOrderTools(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: toolGetOrder, Description: "Get an order of the caller's tenant",
		InputSchema: objectSchema(map[string]any{"order_id": str("order id")}, "order_id")}, s.getOrder)
	srv.AddTool(&mcp.Tool{Name: toolCancelOrder, Description: "Cancel an order, once the user confirms",
		InputSchema: objectSchema(map[string]any{"order_id": str("order id")}, "order_id")}, s.cancelOrder)
}

// notify sends one notifications/progress for the call; total 0 is unknown.
// notify sends one progress notification, planned at scenario time at
// into the call (see plannedTimes).
func (s *demoServer) notify(ctx context.Context, req *mcp.CallToolRequest, at time.Duration, progress, total float64, message string) {
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	s.planned.set(fmt.Sprint(tok), progress, at)
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

func text(t string) *mcp.TextContent { return &mcp.TextContent{Text: t} }

func (s *demoServer) readWorkbook(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 1; i <= workbookSheets; i++ {
		if err := s.clk.sleep(ctx, sheetInterval); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(i)*sheetInterval, float64(i), workbookSheets, fmt.Sprintf("Reading sheet %d of %d", i, workbookSheets))
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{text("Read 23 sheets of q3-close.xlsx: 4,812 rows; formula errors on Accruals, FX and Intercompany.")},
		StructuredContent: map[string]any{"file": "q3-close.xlsx", "sheets": workbookSheets, "rows": 4812,
			"formula_errors": []string{"Accruals", "FX", "Intercompany"}},
	}, nil
}

func (s *demoServer) scanArchive(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 1; i <= archiveSteps; i++ {
		if err := s.clk.sleep(ctx, archiveInterval); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(i)*archiveInterval, float64(37*i), 0, fmt.Sprintf("Scanned %d files", 37*i))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		text(fmt.Sprintf("Scanned %d files under invoices/2026/: 12 duplicates, 3 unreadable.", 37*archiveSteps))}}, nil
}

func (s *demoServer) renderCharts(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 1; i <= 2; i++ {
		if err := s.clk.sleep(ctx, chartInterval); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(i)*chartInterval, float64(i), 2, fmt.Sprintf("Rendering chart %d of 2", i))
	}
	revenue := barChartPNG([]float64{0.42, 0.55, 0.61, 0.58, 0.72, 0.8, 0.77, 0.9, 0.95}, color.RGBA{46, 134, 193, 255})
	costs := splitPNG([]float64{0.46, 0.31, 0.23}, []color.RGBA{{231, 76, 60, 255}, {243, 156, 18, 255}, {39, 174, 96, 255}})
	return &mcp.CallToolResult{Content: []mcp.Content{
		text("Rendered 2 charts of Summary: revenue by month (up 12% over Q2) and the cost split."),
		&mcp.ImageContent{MIMEType: "image/png", Data: revenue},
		&mcp.ImageContent{MIMEType: "image/png", Data: costs},
	}}, nil
}

func (s *demoServer) buildReport(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 1; i <= 3; i++ {
		if err := s.clk.sleep(ctx, reportInterval); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(i)*reportInterval, float64(i), 3, fmt.Sprintf("Aggregating ledger (%d/3)", i))
	}
	report, lines := ledgerReport(200)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{text(report)},
		StructuredContent: map[string]any{"period": "2026-Q3", "currency": "EUR", "lines": lines},
	}, nil
}

// ledgerReport makes a deterministic report of n lines: over 8000 characters
// of text and over 16000 characters of structured JSON, the platform's limits.
func ledgerReport(n int) (string, []map[string]any) {
	var b strings.Builder
	b.WriteString("Ledger report 2026-Q3 (EUR)\n")
	lines := make([]map[string]any, 0, n)
	for i := 1; i <= n; i++ {
		debit := float64((i*7919)%100000) / 100
		credit := float64((i*104729)%100000) / 100
		name := ledgerAccounts[i%len(ledgerAccounts)]
		fmt.Fprintf(&b, "%03d  %04d  %-22s debit %9.2f  credit %9.2f\n", i, 4000+i, name, debit, credit)
		lines = append(lines, map[string]any{"line": i, "account": fmt.Sprintf("%04d", 4000+i), "name": name,
			"debit": debit, "credit": credit, "balance": debit - credit})
	}
	return b.String(), lines
}

var ledgerAccounts = []string{"Revenue", "Cost of sales", "Payroll", "Rent", "Travel", "Software", "FX gains", "Accruals"}

func (s *demoServer) validateInvoice(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.clk.sleep(ctx, 500*time.Millisecond); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		text("Invoice INV-2291 does not balance: its lines sum to 1,240.00 but its total says 1,204.00.")}}, nil
}

func (s *demoServer) postLedgerEntry(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 1; i <= ledgerSteps; i++ {
		if err := s.clk.sleep(ctx, ledgerInterval); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(i)*ledgerInterval, float64(i), ledgerSteps, []string{"Checking period lock", "Posting entry", "Updating balances"}[i-1])
	}
	return &mcp.CallToolResult{Content: []mcp.Content{text("Posted ledger entry LE-5521: account 4000, 36.00 (INV-2291 correction).")}}, nil
}

func (s *demoServer) exportLedger(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// A job half as long again as the instance allows: the platform gives up
	// two thirds of the way (the bar shows how far it got) and cancels.
	// Steps fall half a step off the timeout's beat: which step the
	// timeout cuts is then the same on every run.
	total := s.exportSteps * exportRowsPerStep
	// On an absolute schedule: a late wake-up on a loaded machine does not
	// push every later step past the timeout.
	start := time.Now()
	for step, rows := 1, exportRowsPerStep; rows <= total; step, rows = step+1, rows+exportRowsPerStep {
		due := start.Add(time.Duration(step)*s.exportStep - s.exportStep/2)
		if err := model.Sleep(ctx, time.Until(due)); err != nil {
			return nil, err
		}
		s.notify(ctx, req, time.Duration(step)*exportStepInterval-exportStepInterval/2, float64(rows), float64(total), fmt.Sprintf("Exported %d of %d rows", rows, total))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{text(fmt.Sprintf("Exported %d rows to ledger-2026-q3.csv.", total))}}, nil
}

func (s *demoServer) lookupCustomer(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.clk.sleep(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{text("Customer C-1042: Acme Corp, net 30, credit limit 50,000.00.")}}, nil
}

// getOrder authorizes against the SOAT context the platform sent as headers.
func (s *demoServer) getOrder(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.clk.sleep(ctx, 300*time.Millisecond); err != nil {
		return nil, err
	}
	tenant := ""
	if req.Extra != nil {
		tenant = req.Extra.Header.Get("X-Soat-Context-tenantId")
	}
	if tenant == "" {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{text("no tenant in the tool context")}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		text(fmt.Sprintf("Order ord_42 of tenant %s: 3 items, shipped 2026-07-28.", tenant))}}, nil
}

// cancelOrder asks the user to confirm before it cancels (MCP 2026-07-28: a
// multi-round call): its first answer is input_required with an
// elicitation; the same call sent again with the user's answer and the
// state cancels the order, or not.
func (s *demoServer) cancelOrder(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		OrderID string `json:"order_id"`
	}
	_ = json.Unmarshal(req.Params.Arguments, &in)
	state := "cancel:" + in.OrderID
	answer, answered := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
	if !answered || req.Params.RequestState != state {
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
				Message: "Cancel order " + in.OrderID + "? It has shipped: the customer gets a return label.",
				RequestedSchema: map[string]any{"type": "object", "required": []string{"confirm"},
					"properties": map[string]any{"confirm": map[string]any{"type": "boolean", "title": "Cancel the order"}}},
			}},
			RequestState: state,
		}, nil
	}
	if err := s.clk.sleep(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	if answer.Action != "accept" || answer.Content["confirm"] != true {
		return &mcp.CallToolResult{Content: []mcp.Content{text("Order " + in.OrderID + " kept: the user did not confirm.")}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{text("Order " + in.OrderID + " cancelled; return label RL-7731 sent.")}}, nil
}
