import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

/** How the catcher answers each mail: takes it, never answers (a stalled server), or refuses it for now (451) or for good (550). */
export type CatcherAnswer = 'take' | 'stall' | 'refuse-for-now' | 'refuse-for-good';

export interface MailCatcher {
  /** SMTP_URL for the app. */
  url: string;
  /** Every mail taken, in order, as mailparser reads it. */
  mails: ParsedMail[];
  answer: CatcherAnswer;
  /** Mails it was sent while answering `stall`: held for ever, never taken. */
  stalled: number;
  close(): Promise<void>;
}

/**
 * A local SMTP server that keeps what it is sent, for the demo (with a page to read them,
 * serveMailPage) and the tests: nodemailer's own smtp-server, read with mailparser. Plain SMTP on
 * this machine, no authentication.
 */
export async function startMailCatcher(port = 0): Promise<MailCatcher> {
  const catcher: MailCatcher = { url: '', mails: [], answer: 'take', stalled: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onData(stream: SMTPServerDataStream, _session, callback) {
      const answer = catcher.answer;
      simpleParser(stream).then((mail) => {
        if (answer === 'take') {
          catcher.mails.push(mail);
          callback();
        } else if (answer === 'stall') {
          catcher.stalled += 1;
        } else {
          callback(Object.assign(new Error('Not now'), { responseCode: answer === 'refuse-for-now' ? 451 : 550 }));
        }
      }, callback);
    },
  });
  server.listen(port, '127.0.0.1');
  await once(server.server, 'listening');
  catcher.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  catcher.close = () => new Promise((resolve) => server.close(() => resolve()));
  return catcher;
}

/** Readable on a phone: long addresses and lines of a mail wrap rather than widen the page. */
const MAIL_PAGE_STYLE =
  'body { font: 16px/1.5 system-ui, sans-serif; max-width: 50rem; margin: 0 auto; padding: 0 1rem; overflow-wrap: anywhere; } ' +
  'article { border-top: 1px solid #ddd; } pre { white-space: pre-wrap; font-size: 14px; }';

/** A page listing the mails caught, newest first, with their headers that matter and their text, its links to open. */
export async function serveMailPage(catcher: MailCatcher, port: number): Promise<Server> {
  const escape = (text: string) => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
  // A mail's links (to confirm an address, set a password, reconnect) open from the page, on a phone too.
  const withLinks = (escaped: string) => escaped.replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
  const server = createServer((_req, res) => {
    const mails = [...catcher.mails].reverse().map((mail) => {
      const unsubscribe = mail.headerLines.find((header) => header.key === 'list-unsubscribe')?.line;
      return `<article><h2>${escape(mail.subject ?? '(no subject)')}</h2>
<p>To ${escape(
        mail.to
          ? [mail.to]
              .flat()
              .map((to) => to.text)
              .join(', ')
          : '',
      )}, ${escape(mail.date?.toISOString() ?? '')}${
        unsubscribe ? `; ${escape(unsubscribe)}` : ''
      }</p><pre>${withLinks(escape(mail.text ?? ''))}</pre></article>`;
    });
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mails sent by the demo</title><style>${MAIL_PAGE_STYLE}</style><h1>Mails sent by the demo</h1>
${mails.join('\n') || '<p>None yet.</p>'}`);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}
