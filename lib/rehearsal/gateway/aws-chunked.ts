/**
 * S3's `aws-chunked` content encoding, which the SDK uses for streamed uploads with flexible
 * checksums (its default since 2025): `<hex size>[;chunk-signature=…]\r\n<data>\r\n` … `0\r\n`
 * then trailer headers (`x-amz-checksum-crc32:…`) and a blank line. AWS decodes it; s3rver
 * stores it verbatim (corrupting the object), so the gateway decodes it before forwarding.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from './errors.js';

/** Whether the request body is aws-chunked. */
export function isAwsChunked(headers: IncomingHttpHeaders): boolean {
  const enc = String(headers['content-encoding'] ?? '');
  const sha = String(headers['x-amz-content-sha256'] ?? '');
  return enc.split(',').some((e) => e.trim() === 'aws-chunked') || sha.startsWith('STREAMING-');
}

/**
 * The payload of an aws-chunked body.
 *
 * @example
 * decodeAwsChunked(Buffer.from('5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n')).toString() // 'hello'
 */
export function decodeAwsChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) throw new GatewayError('aws-chunked body ends inside a chunk header');
    const size = parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size) || size < 0) throw new GatewayError('aws-chunked body has a malformed chunk size');
    if (size === 0) return Buffer.concat(parts);
    const start = eol + 2;
    if (start + size > body.length) throw new GatewayError('aws-chunked body is shorter than its chunk sizes');
    parts.push(body.subarray(start, start + size));
    at = start + size + 2; // data is followed by \r\n
  }
}

/** Headers for the decoded body: plain length, no aws-chunked encoding, no trailer. */
export function decodedHeaders(headers: IncomingHttpHeaders, length: number): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { ...headers, 'content-length': String(length), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  const enc = String(headers['content-encoding'] ?? '').split(',').map((e) => e.trim()).filter((e) => e && e !== 'aws-chunked');
  if (enc.length) out['content-encoding'] = enc.join(', ');
  else delete out['content-encoding'];
  delete out['x-amz-decoded-content-length'];
  delete out['x-amz-trailer'];
  delete out['transfer-encoding'];
  return out;
}
