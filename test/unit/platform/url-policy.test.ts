import { expect } from 'chai';
import { request } from 'undici';
import { addressRefusal, createPolicyAgent, urlRefusal } from '../../../platform/security/url-policy';
import { startReceiver } from '../../support/receiver';

const strict = { allowPrivate: false };
const lenient = { allowPrivate: true };

describe('URL policy', () => {
  it('always refuses link-local and metadata addresses', () => {
    const metadata = ['169.254.169.254', '169.254.0.1', 'fd00:ec2::254', '168.63.129.16', '100.100.100.200'];
    // The IPv4 ones in IPv6 dress: compatible, mapped, translated and NAT64 (well-known and local-use).
    const disguised = ['169.254.169.254', '168.63.129.16', '100.100.100.200'].flatMap((v4) => [
      `::${v4}`,
      `::ffff:${v4}`,
      `::ffff:0:${v4}`,
      `64:ff9b::${v4}`,
      `64:ff9b:1::${v4}`,
    ]);
    for (const ip of [...metadata, ...disguised, '::a9fe:a9fe', 'fe80::1', '0.0.0.0', '::', '224.0.0.1']) {
      expect(addressRefusal(ip, lenient), ip).to.match(/link-local or metadata/);
      expect(addressRefusal(ip, strict), ip).to.match(/link-local or metadata/);
    }
  });

  it('refuses loopback and private addresses unless allowed', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::10.0.0.1',
      '64:ff9b::127.0.0.1',
    ]) {
      expect(addressRefusal(ip, strict), ip).to.match(/loopback or private/);
      expect(addressRefusal(ip, lenient), ip).to.equal(null);
    }
  });

  it('accepts public addresses', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '64:ff9b::93.184.216.34'])
      expect(addressRefusal(ip, strict), ip).to.equal(null);
  });

  it('checks the text of a URL: scheme, credentials, literal hosts', () => {
    expect(urlRefusal('ftp://example.com/x', lenient)).to.equal('must use http or https');
    expect(urlRefusal('javascript:alert(1)', lenient)).to.equal('must use http or https');
    expect(urlRefusal('not a url', lenient)).to.equal('must be an absolute URL');
    expect(urlRefusal('https://u:p@example.com/', lenient)).to.equal('must not contain credentials');
    expect(urlRefusal('http://169.254.169.254/latest/meta-data', lenient)).to.match(/metadata/);
    expect(urlRefusal('http://[fd00:ec2::254]/', lenient)).to.match(/metadata/);
    // The URL parser writes [::169.254.169.254] as [::a9fe:a9fe]; still the metadata service.
    expect(urlRefusal('http://[::169.254.169.254]/latest/meta-data', lenient)).to.equal('::a9fe:a9fe is a link-local or metadata address');
    expect(urlRefusal('http://168.63.129.16/machine?comp=goalstate', lenient)).to.equal(
      '168.63.129.16 is a link-local or metadata address',
    );
    expect(urlRefusal('http://127.0.0.1:9000/hook', strict)).to.match(/loopback/);
    expect(urlRefusal('http://localhost:9000/hook', strict)).to.match(/loopback/);
    expect(urlRefusal('http://localhost:9000/hook', lenient)).to.equal(null);
    expect(urlRefusal('https://hooks.example.com/in', strict)).to.equal(null);
  });

  describe('at connect time', () => {
    it('refuses a name that resolves to a refused address, and a literal one', async () => {
      const receiver = await startReceiver(() => 200);
      const agent = createPolicyAgent(strict);
      const port = new URL(receiver.url).port;
      try {
        for (const url of [`http://localhost:${port}/`, `http://127.0.0.1:${port}/`]) {
          const err = await request(url, { method: 'POST', body: '{}', dispatcher: agent }).then(
            () => null,
            (e: Error) => e,
          );
          expect(err, url).to.be.instanceOf(Error);
          expect(err!.message, url).to.match(/loopback or private/);
          // A name's refusal says what kind of address it resolved to, not which.
          if (url.includes('localhost')) expect(err!.message).to.equal('localhost resolves to a loopback or private address');
        }
        expect(receiver.received).to.have.length(0);
      } finally {
        await agent.close();
        await receiver.close();
      }
    });

    it('connects when allowed and never follows a redirect', async () => {
      const target = await startReceiver(() => 200);
      const redirecting = await startReceiver(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
      const agent = createPolicyAgent(lenient);
      try {
        const res = await request(`${redirecting.url.replace('127.0.0.1', 'localhost')}/hook`, {
          method: 'POST',
          body: '{}',
          dispatcher: agent,
        });
        await res.body.dump();
        expect(res.statusCode).to.equal(302);
        expect(redirecting.received).to.have.length(1);
        expect(target.received).to.have.length(0);
      } finally {
        await agent.close();
        await Promise.all([target.close(), redirecting.close()]);
      }
    });
  });
});
