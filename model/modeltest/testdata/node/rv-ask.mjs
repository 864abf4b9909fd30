import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const client = new Client({ name: 'rv', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
for (const spec of process.argv.slice(3)) {
  const [name, json] = spec.split('=', 2);
  const r = await client.callTool({ name, arguments: JSON.parse(json || '{}') });
  console.log('=== ' + spec + (r.isError ? ' (isError)' : ''));
  console.log(r.content.map((c) => c.text ?? '').join('\n'));
  console.log('--- structured');
  console.log(JSON.stringify(r.structuredContent, null, 1));
}
await client.close();
