import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { serveMailPage, startMailCatcher, type MailCatcher } from '../../src/dev/mail-catcher.js';
import { eventually } from '../helpers/wait.js';

let catcher: MailCatcher;

beforeAll(async () => {
  catcher = await startMailCatcher();
});
afterAll(async () => {
  await catcher.close();
});

describe('the demo’s page of the mails the app sent', () => {
  it('makes each link in a mail one to open, its text escaped as the rest', async () => {
    const link = 'http://localhost:3000/email/verify?link=abc_DEF-1&next=%2F';
    await createTransport(catcher.url).sendMail({
      from: 'demo@localhost',
      to: 'ana@example.com',
      subject: 'Confirm your email address',
      text: `Open it:\n\n${link}\n\nThe <b>link</b> works once.`,
    });
    await eventually('the mail caught', async () => (catcher.mails.length > 0 ? true : undefined));
    const port = await freePort();
    const page = await serveMailPage(catcher, port);
    try {
      const html = await (await fetch(`http://127.0.0.1:${String(port)}/`)).text();
      const escaped = link.replaceAll('&', '&#38;');
      expect(html).toContain(`<a href="${escaped}">${escaped}</a>`);
      expect(html).toContain('The &#60;b&#62;link&#60;/b&#62; works once.');
    } finally {
      page.close();
    }
  });
});
