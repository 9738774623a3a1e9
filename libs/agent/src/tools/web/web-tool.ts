import { Injectable } from '@nestjs/common';
import { convert } from 'html-to-text';
import { Settings } from '@app/config';
import { AgentTool, ToolError, ToolSource } from '../tool';
import { FetchedPage, fetchPage, WebFetchError, WebFetchLimits } from './web-fetch';

/** What the model gets from `web`. */
export interface WebPage {
  url: string;
  status: number;
  content_type: string;
  title: string | null;
  text: string;
  /** The page was longer than the caps: `text` is its beginning. */
  truncated: boolean;
}

const HTML = /^(text\/html|application\/xhtml\+xml)\b/i;
const TEXT = /^(text\/[\w.+-]+|application\/([\w.-]+\+)?(json|xml)|application\/(javascript|x-ndjson))\b/i;

/** The page's readable text: HTML converted (scripts, styles and images left out), text types as they are. */
export function readableText(page: FetchedPage): { title: string | null; text: string } {
  const type = page.contentType.split(';')[0].trim();
  const source = decode(page.body, charsetOf(page.contentType));
  if (HTML.test(type) || (!type && /^\s*</.test(source))) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(source)?.[1];
    return {
      title: title ? convert(title, { wordwrap: false }).trim() || null : null,
      text: convert(source, {
        wordwrap: false,
        selectors: [
          {
            selector: 'a',
            options: { pathRewrite: (href) => absolute(href, page.url), hideLinkHrefIfSameAsText: true },
          },
          { selector: 'img', format: 'skip' },
          { selector: 'h1', options: { uppercase: false } },
          { selector: 'h2', options: { uppercase: false } },
          { selector: 'h3', options: { uppercase: false } },
          { selector: 'table', format: 'dataTable' },
        ],
      }).trim(),
    };
  }
  if (TEXT.test(type) || (!type && !source.includes('\u0000'))) return { title: null, text: source };
  throw new ToolError(`${page.url} is ${type || 'binary content'}, not a page with text`);
}

/** Links as absolute URLs, which the model can fetch next. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).toString();
  } catch {
    return href;
  }
}

function charsetOf(contentType: string): string {
  return /charset="?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * `web`: fetches a URL and gives its readable text. It refuses hosts that are or resolve to private, loopback or
 * link-local addresses (unless WEB_TOOL_ALLOW_PRIVATE), follows a few redirects checking each, and caps time,
 * bytes read and characters returned.
 */
@Injectable()
export class WebToolSource implements ToolSource {
  readonly tool: AgentTool;

  constructor(settings: Settings) {
    const limits: WebFetchLimits = {
      timeoutMs: settings.webToolTimeoutMs,
      maxBytes: settings.webToolMaxBytes,
      maxRedirects: settings.webToolMaxRedirects,
      allowPrivate: settings.webToolAllowPrivate,
    };
    const maxChars = settings.webToolMaxChars;
    this.tool = {
      name: 'web',
      permission: 'web',
      readOnly: true,
      description:
        'Fetches a web page (http or https URL) and returns its readable text, title and final URL after redirects.',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string', description: 'The absolute http(s) URL to fetch.' } },
        required: ['url'],
        additionalProperties: false,
      },
      execute: async (args, context): Promise<WebPage> => {
        if (typeof args.url !== 'string' || !args.url)
          throw new ToolError('`url` must be a non-empty string');
        let page: FetchedPage;
        try {
          page = await fetchPage(args.url, limits, context.signal);
        } catch (error) {
          if (error instanceof WebFetchError) throw new ToolError(error.message);
          throw error;
        }
        if (page.status >= 400) throw new ToolError(`${page.url} answered HTTP ${page.status}`);
        const { title, text } = readableText(page);
        return {
          url: page.url,
          status: page.status,
          content_type: page.contentType,
          title,
          text: text.slice(0, maxChars),
          truncated: page.truncated || text.length > maxChars,
        };
      },
    };
  }

  toolsFor(): AgentTool[] {
    return [this.tool];
  }
}
