import nodemailer from 'nodemailer';
import type { Logger } from './logger.js';

// Mail to sellers (docs/decisions/093-mail-and-reset-links.md): through SMTP when configured; in
// development and tests without SMTP the message goes to the log (it is how a developer gets a
// reset link); in production without SMTP nothing is sent and the log says so, without the message.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailOptions {
  smtpUrl?: string | undefined;
  from: string;
  env: 'development' | 'test' | 'production';
  logger: Logger;
}

export function createMailer(options: MailOptions): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({ from: options.from, ...message });
      },
    };
  }
  if (options.env === 'production') {
    return {
      async send(message) {
        options.logger.warn({ subject: message.subject }, 'mail not sent: SMTP_URL is not configured');
      },
    };
  }
  // nodemailer's own composition, so the logged message is what SMTP would have carried
  const transport = nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(message) {
      const sent = await transport.sendMail({ from: options.from, ...message });
      const { to, subject, text } = JSON.parse(sent.message as string) as {
        to: { address: string }[];
        subject: string;
        text: string;
      };
      options.logger.info({ mail: { to: to.map((a) => a.address), subject, text } }, 'mail (development: not sent)');
    },
  };
}
