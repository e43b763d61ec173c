import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noAnswerWords } from '../../src/delivery/send.js';
import { addressProblem, isPublicAddress, urlProblem } from '../../src/webhooks/address.js';

/**
 * Where webhooks may go (issue 13 §6, issue 36): IPv6 is public only inside global unicast
 * 2000::/3, outside its special ranges; IPv6 forms that carry an IPv4 address (mapped,
 * compatible, NAT64) are judged by the IPv4 rules. The operator may allow some ports only
 * (LEADLINE_WEBHOOK_PORTS). A failed attempt is recorded in coarse words, never with the address.
 */
const strict = { allowPrivate: false, ports: null };

describe('isPublicAddress', () => {
  it('refuses IPv6 outside global unicast, and its special ranges inside it', () => {
    for (const ip of [
      '::',
      '::1',
      'fec0::1', // site-local (deprecated, RFC 3879), routed inside some networks
      'feff::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '100::1',
      '1::1',
      '4000::1',
      'e000::1',
      '2001:db8::1',
      '3fff::1',
      '2001::1', // Teredo
      '2002:a00:1::1', // 6to4
      '64:ff9b:1::1',
    ])
      assert.equal(isPublicAddress(ip), false, ip);
  });

  it('judges IPv4-mapped, IPv4-compatible and NAT64 addresses by their IPv4 address', () => {
    for (const [ip, isPublic] of [
      ['::7f00:1', false], // [::127.0.0.1] as a URL writes it
      ['::127.0.0.1', false],
      ['::a00:1', false],
      ['::a9fe:a9fe', false], // 169.254.169.254
      ['::ffff:127.0.0.1', false],
      ['::ffff:7f00:1', false],
      ['0:0:0:0:0:ffff:c0a8:101', false],
      ['64:ff9b::a00:1', false], // 10.0.0.1 through NAT64
      ['64:ff9b::127.0.0.1', false],
      ['::8.8.8.8', true],
      ['::ffff:808:808', true],
      ['64:ff9b::808:808', true],
    ] as const)
      assert.equal(isPublicAddress(ip), isPublic, ip);
  });

  it('accepts global unicast IPv6 and public IPv4', () => {
    for (const ip of ['2606:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001::1', '93.184.216.34'])
      assert.equal(isPublicAddress(ip), true, ip);
  });

  it('names the IPv4 address an IPv6 one carries', () => {
    assert.equal(
      addressProblem('::7f00:1', strict),
      'resolves to ::7f00:1 (127.0.0.1), which is not a public address; private addresses are allowed only with LEADLINE_WEBHOOK_ALLOW_PRIVATE=true (receivers on your own network)',
    );
    assert.equal(addressProblem('::7f00:1', { allowPrivate: true, ports: null }), null);
  });
});

describe('urlProblem', () => {
  it('refuses IPv6 literals that are not public, in every form a URL takes', () => {
    for (const url of [
      'https://[::7f00:1]/x',
      'https://[::127.0.0.1]/x',
      'https://[fec0::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[64:ff9b::10.0.0.1]/x',
    ])
      assert.match(urlProblem(url, strict) ?? '', /not a public address/, url);
    assert.equal(urlProblem('https://[2606:4700::1111]/x', strict), null);
  });
});

describe('urlProblem: LEADLINE_WEBHOOK_PORTS', () => {
  const ports = { allowPrivate: false, ports: [443, 8443] };
  it("accepts the listed ports, the scheme's default counting as its port", () => {
    for (const url of [
      'https://hooks.example.com/x',
      'https://hooks.example.com:443/x',
      'https://hooks.example.com:8443/x',
    ])
      assert.equal(urlProblem(url, ports), null, url);
  });
  it('refuses any other port, saying which are allowed', () => {
    assert.equal(
      urlProblem('https://hooks.example.com:8080/x', ports),
      'port 8080 is not allowed: webhooks go to ports 443, 8443 only (LEADLINE_WEBHOOK_PORTS)',
    );
    assert.match(
      urlProblem('https://hooks.example.com:22/x', { allowPrivate: false, ports: [443] }) ?? '',
      /port 22 .* port 443 only/,
    );
    assert.match(
      urlProblem('http://10.0.0.1/x', { allowPrivate: true, ports: [443] }) ?? '',
      /port 80 is not allowed/,
    );
    assert.equal(urlProblem('https://hooks.example.com:8080/x', strict), null, 'unset: any port');
  });
});

describe('noAnswerWords', () => {
  const failure = (code: string, message: string) => Object.assign(new Error(message), { code });
  it('says refused, reset, timed out, unresolved, unreachable or TLS — never the address, port or message', () => {
    for (const [err, words] of [
      [failure('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432'), 'no answer: connection refused'],
      [failure('ECONNRESET', 'read ECONNRESET 10.1.2.3:443'), 'no answer: connection reset'],
      [failure('ETIMEDOUT', 'connect ETIMEDOUT 10.1.2.3:443'), 'no answer: connection timed out'],
      [
        failure('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal.example'),
        'no answer: the host name does not resolve',
      ],
      [failure('EHOSTUNREACH', 'connect EHOSTUNREACH 10.1.2.3:443'), 'no answer: host unreachable'],
      [
        failure(
          'ERR_TLS_CERT_ALTNAME_INVALID',
          "Hostname/IP does not match certificate's altnames: IP: 10.1.2.3 is not in the cert's list",
        ),
        'no answer: TLS failed (ERR_TLS_CERT_ALTNAME_INVALID)',
      ],
      [
        failure('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
        'no answer: TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      ],
      [
        failure('EADDRNOTAVAIL', 'connect EADDRNOTAVAIL 10.1.2.3:443 - Local (0.0.0.0:0)'),
        'no answer: connection failed',
      ],
      [new Error('socket hang up 10.1.2.3:443'), 'no answer: connection failed'],
    ] as const) {
      const got = noAnswerWords(err);
      assert.equal(got, words, err.message);
      assert.doesNotMatch(got, /10\.1\.2\.3|5432|443|internal/, err.message);
    }
  });
});
