package decoder

import (
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// summarize reads raw as the result of a response to an AgentArea call, as
// the tap reads it, and judges it.
func summarize(raw []byte) (ResultSummary, []model.Warning) { return summarizeAs(raw, true) }

// summarizePlain judges raw as the result of a plain MCP call.
func summarizePlain(raw []byte) (ResultSummary, []model.Warning) { return summarizeAs(raw, false) }

func summarizeAs(raw []byte, agentArea bool) (ResultSummary, []model.Warning) {
	b := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":1,"result":` + string(raw) + `}`))
	if b.Err != nil || b.Messages[0].Kind != jsonrpc.KindResponse {
		return SummarizeResult(nil, agentArea)
	}
	return SummarizeResult(b.Messages[0].Summary, agentArea)
}
