import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from './temporary-folders.js';

/** PEM files of a certificate authority of the test's own and of a server certificate it signed. */
export interface TestCertificates {
  /** The authority's certificate: what a client trusts (NODE_EXTRA_CA_CERTS). */
  ca: string;
  /** The server's certificate and key, for 127.0.0.1. */
  cert: string;
  key: string;
}

/** Made by openssl, on P-256 keys (quick to make), valid for two days. */
export function makeServerCertificates(): TestCertificates {
  const folder = temporaryFolder('athlete-sync-tls-');
  const file = (name: string) => join(folder, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...newKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=athlete-sync test CA');
  openssl('req', ...newKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('san.ext'),
  );
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}
