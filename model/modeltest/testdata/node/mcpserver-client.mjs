// The TypeScript SDK's MCP client against toolscope's MCP server: lists the
// tools and calls each, then prints what it got as one JSON object for the
// Go test (output/mcpserver/node_test.go) to judge. Usage: node mcpserver-client.mjs URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.argv[2]);
const client = new Client({ name: 'ts-agent', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(url);
await client.connect(transport);

const out = { protocolVersion: transport.protocolVersion, server: client.getServerVersion() };
out.tools = (await client.listTools()).tools.map((t) => ({
  name: t.name, hasInputSchema: !!t.inputSchema, hasOutputSchema: !!t.outputSchema,
}));
// callTool validates structuredContent against the tool's outputSchema.
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join('\n'), structured: r.structuredContent ?? null };
};
out.list = await call('list_calls', {});
out.errors = await call('list_calls', { filter: 'status:error' });
out.badFilter = await call('list_calls', { filter: 'flag:whatever' });
const first = out.list.structured.calls[0].id;
out.get = await call('get_call', { id: first });
out.unknown = await call('get_call', { id: 'no/such-call' });
const rejected = out.list.structured.calls.find((c) => c.verdict === 'rejected');
out.explain = await call('explain_call', { id: rejected.id });
out.warnings = await call('list_warnings', {});
out.sources = await call('sources', {});
const templates = await client.listResourceTemplates();
out.templates = templates.resourceTemplates.map((t) => t.uriTemplate);
const read = await client.readResource({ uri: 'toolscope://calls/' + encodeURIComponent(first) });
out.resource = JSON.parse(read.contents[0].text);
await client.close();
console.log(JSON.stringify(out));
