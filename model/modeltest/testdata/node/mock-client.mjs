// The TypeScript MCP SDK's client over Streamable HTTP: lists the tools,
// calls count (with progress), echo twice and fail, and prints what it saw
// as JSON lines (the first: the protocol version and server it connected to).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'ts-client', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const out = [];
out.push({ protocol: transport.protocolVersion ?? null, server: client.getServerVersion(), session: transport.sessionId ? 'yes' : 'no' });
out.push((await client.listTools()).tools);
const progress = [];
out.push(await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined,
  { onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) }));
out.push(await client.callTool({ name: 'echo', arguments: { text: 'one' } }));
out.push(await client.callTool({ name: 'echo', arguments: { text: 'two' } }));
out.push(await client.callTool({ name: 'fail', arguments: { text: 'x' } }));
out.push(progress);
await transport.terminateSession().catch(() => {});
await client.close();
for (const o of out) console.log(JSON.stringify(o));
