// A stand-in for an OpenAI-compatible server (`vllm serve`) on loopback, for the tests of the Ask box's "Ask my
// model": it lists one model, streams a chat completion word by word with known delays, and records every request.
import { createServer } from 'node:http';

/**
 * Starts the stand-in. `cors`: answer cross-origin requests (as vLLM with --allowed-origins); `status`: answer every
 * request with this status instead (401 for a missing key); `words`: the streamed answer, one chunk each, the first
 * after `ttftMs` and the others `tpotMs` apart.
 * Returns `server` (its `lastRequest`: the last chat request's body; `sent`: when it arrived and each word left),
 * `seen` (method, path and Authorization header of every request), `base` (the address to type, ending in /v1) and
 * `close`.
 */
export async function startModelStandIn({
  cors = true, status = 200, words = ['fine'], ttftMs = 0, tpotMs = 0,
} = {}) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization ?? null });
    const headers = cors
      ? {
        'access-control-allow-origin': req.headers.origin ?? '*',
        'access-control-allow-headers': 'content-type, authorization',
        'access-control-allow-methods': 'GET, POST',
      }
      : {};
    if (req.method === 'OPTIONS') {
      res.writeHead(204, headers);
      return res.end();
    }
    if (status !== 200) {
      res.writeHead(status, { ...headers, 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'Unauthorized' } }));
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'stand-in-model' }] }));
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        server.lastRequest = JSON.parse(body);
        // When each word really left: under load a timer fires late, and the page should report what happened.
        server.sent = { received: performance.now(), tokens: [] };
        res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const chunk = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
        res.write(chunk({ role: 'assistant' }));
        let sent = 0;
        const next = () => {
          if (res.destroyed) return;
          res.write(chunk({ content: words[sent] }));
          server.sent.tokens.push(performance.now());
          sent += 1;
          if (sent < words.length) {
            setTimeout(next, tpotMs);
          } else {
            res.write(`data: ${JSON.stringify({ choices: [], usage: { completion_tokens: words.length } })}\n\n`);
            res.end('data: [DONE]\n\n');
          }
        };
        setTimeout(next, ttftMs);
      });
      return undefined;
    }
    res.writeHead(404, headers);
    return res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, base: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}
