import { Parser } from 'htmlparser2';
import { convert } from 'html-to-text';
import type { ParseFunction } from '@app/documents';

/** The readable parts of an HTML page: its first title and its text. */
export interface HtmlPage {
  title: string | null;
  text: string;
}

/**
 * Reads an HTML page with linear-cost parsers (htmlparser2, and html-to-text on top of it): no regular
 * expression runs over the page, so a crafted page (thousands of unclosed `<title>`) costs what its length does.
 * Runs in a parsing thread (UntrustedParsing) through READ_HTML_PAGE.
 */
export function readHtmlPage(html: string, pageUrl: string): HtmlPage {
  const title = titleOf(html);
  return {
    title: title ? convert(title, { wordwrap: false }).trim() || null : null,
    text: convert(html, {
      wordwrap: false,
      selectors: [
        {
          selector: 'a',
          options: { pathRewrite: (href) => absolute(href, pageUrl), hideLinkHrefIfSameAsText: true },
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

export const READ_HTML_PAGE: ParseFunction = { module: __filename, name: readHtmlPage.name };

/** The text of the page's first `<title>` element, one streaming pass; null when it has none. */
function titleOf(html: string): string | null {
  let depth = 0;
  let found: string | null = null;
  const parts: string[] = [];
  const parser = new Parser(
    {
      onopentagname: (name) => {
        if (name === 'title' && found === null) depth++;
      },
      ontext: (text) => {
        if (depth > 0) parts.push(text);
      },
      onclosetag: (name) => {
        if (name !== 'title' || depth === 0) return;
        depth = 0;
        found = parts.join('');
        parser.pause();
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return found ?? (depth > 0 ? parts.join('') : null);
}

/** Links as absolute URLs, which the model can fetch next. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).toString();
  } catch {
    return href;
  }
}
