import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { ParseLimitError, UntrustedParsing } from '@app/documents';
import { AgentTool, FixedTools, ToolError } from '../tool';
import { HtmlPage, READ_HTML_PAGE } from './html-page';
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

/**
 * The page's readable text: HTML converted (scripts, styles and images left out) in a parsing thread with a
 * deadline, text types as they are.
 */
async function readableText(
  page: FetchedPage,
  parsing: UntrustedParsing,
  timeoutMs: number,
): Promise<{ title: string | null; text: string }> {
  const type = page.contentType.split(';')[0].trim();
  const source = decode(page.body, charsetOf(page.contentType));
  if (HTML.test(type) || (!type && /^\s*</.test(source))) {
    try {
      return await parsing.run<HtmlPage>(READ_HTML_PAGE, [source, page.url], timeoutMs);
    } catch (error) {
      if (error instanceof ParseLimitError)
        throw new ToolError(`${page.url} could not be read: ${error.message}`);
      throw error;
    }
  }
  if (TEXT.test(type) || (!type && !source.includes('\u0000'))) return { title: null, text: source };
  throw new ToolError(`${page.url} is ${type || 'binary content'}, not a page with text`);
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
 * `web`: fetches a URL and gives its readable text. It refuses hosts that are or resolve to anything but a public
 * unicast address of another machine (unless WEB_TOOL_ALLOW_PRIVATE), follows a few redirects checking each, caps time,
 * bytes read and characters returned, and parses HTML off the event loop (PARSE_TIMEOUT_MS).
 */
@Injectable()
export class WebToolSource implements FixedTools {
  readonly permission = 'web';
  readonly tool: AgentTool;
  readonly tools: readonly AgentTool[];

  constructor(settings: Settings, parsing: UntrustedParsing) {
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
        const { title, text } = await readableText(page, parsing, settings.parseTimeoutMs);
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
    this.tools = [this.tool];
  }
}
