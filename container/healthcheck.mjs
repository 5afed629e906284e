// The image's HEALTHCHECK: GET /healthz on the server's own port, 0 when it answers 200.
// Plain Node (the slim image has no curl); HTTPS when the server serves TLS itself, whose
// certificate is for the public name, not 127.0.0.1, hence no verification here.
import { request as http } from 'node:http';
import { request as https } from 'node:https';

const tls = Boolean(process.env.TESTREPORT_TLS_CERT);
const req = (tls ? https : http)(
  { host: '127.0.0.1', port: Number(process.env.TESTREPORT_PORT || 4000), path: '/healthz', timeout: 4000, rejectUnauthorized: false },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (err) => {
  process.stderr.write(`healthcheck: ${err.message}\n`);
  process.exit(1);
});
req.end();
