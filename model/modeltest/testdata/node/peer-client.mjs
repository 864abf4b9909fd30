// The TypeScript MCP SDK's client, as a test peer: connects to an MCP
// server over Streamable HTTP (argv[2] an http URL) or stdio (argv[2]
// "stdio", the command after it), lists the tools, makes the calls given as
// JSON in TOOLSCOPE_CALLS ([{name, arguments, progress}]) and prints what
// it got as JSON lines: the tools' names, each result, the progress it was
// sent. The Go tests compare these lines with and without toolscope.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [target, ...command] = process.argv.slice(2);
const transport = target === 'stdio'
  ? new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'ignore' })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: 'ts-peer', version: '1.0.0' });
await client.connect(transport);
const out = [];
out.push((await client.listTools()).tools.map((t) => t.name).sort());
for (const call of JSON.parse(process.env.TOOLSCOPE_CALLS)) {
  const progress = [];
  const options = call.progress ? { onprogress: (p) => progress.push(`${p.progress}/${p.total}`) } : undefined;
  const result = await client.callTool({ name: call.name, arguments: call.arguments }, undefined, options);
  out.push({ name: call.name, result, progress });
}
if (transport.terminateSession) await transport.terminateSession().catch(() => {});
await client.close();
for (const o of out) console.log(JSON.stringify(o));
